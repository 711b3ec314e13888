//! [`CassetteScript`]: a cassette file as the model's script of an agent mock — replayed with
//! checks, or recorded through your model adapter — and the rules it is matched with.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::replay::MatchMode;
use super::session::{CassetteMode, CassetteOptions, TurnSource};
use crate::agent::request::AgentRequest;
use crate::agent::turn::Turn;

/// A cassette as an agent's script. Replays by default, checking every model call against the
/// recorded request; `BATON_RECORD=1` (or [`CassetteScript::mode`]) records it instead, with
/// the turns of [`CassetteScript::record_with`].
///
/// ```text
/// let agent = t.mock_ai_agent(
///     "support-agent",
///     CassetteScript::new("tests/cassettes/damaged-order.json")
///         .record_with(|request| my_model(request)),
/// );
/// ```
pub struct CassetteScript {
    pub(crate) path: PathBuf,
    pub(crate) options: CassetteOptions,
    pub(crate) record_with: Option<TurnSource>,
    /// Rules that could not be read (a bad pointer or regex): the mock refuses the script.
    pub(crate) problems: Vec<String>,
}

impl std::fmt::Debug for CassetteScript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CassetteScript")
            .field("path", &self.path)
            .field("options", &self.options)
            .field("record_with", &self.record_with.is_some())
            .finish()
    }
}

impl CassetteScript {
    /// The cassette at `path`, replayed in order (see the type's documentation).
    pub fn new(path: impl AsRef<Path>) -> CassetteScript {
        CassetteScript {
            path: path.as_ref().to_path_buf(),
            options: CassetteOptions::default(),
            record_with: None,
            problems: Vec::new(),
        }
    }

    /// Replay, record, or replay when the file exists and record otherwise. `BATON_RECORD=1`
    /// records whatever this says.
    pub fn mode(mut self, mode: CassetteMode) -> CassetteScript {
        self.options.mode = mode;
        self
    }

    /// Which recorded call answers a model call: in order (the default), by request, or turns
    /// only (no checks, as a format 1 cassette).
    pub fn matching(mut self, matching: MatchMode) -> CassetteScript {
        self.options.matching = matching;
        self
    }

    /// The turns when recording: your adapter to a model, or a transcript. Called once per
    /// model call with what the model would see.
    pub fn record_with(
        mut self,
        mut handler: impl FnMut(&AgentRequest) -> Turn + 'static,
    ) -> CassetteScript {
        self.record_with = Some(Box::new(move |request, _| Ok(handler(request))));
        self
    }

    /// The turns when recording from an adapter that can fail (a model that is down, a
    /// transcript that ran out): an `Err` fails the run at that call, saying so, and the
    /// cassette keeps the calls before it.
    pub fn try_record_with<E: std::fmt::Display>(
        mut self,
        mut handler: impl FnMut(&AgentRequest) -> Result<Turn, E> + 'static,
    ) -> CassetteScript {
        self.record_with = Some(Box::new(move |request, _| {
            handler(request).map_err(|e| {
                format!(
                    "the recording handler failed on model call {} of \"{}\": {e}",
                    request.model_call, request.element_id
                )
            })
        }));
        self
    }

    /// The turns when recording, from a source that can fail (an agent command).
    pub fn record_with_source(mut self, source: TurnSource) -> CassetteScript {
        self.record_with = Some(source);
        self
    }

    /// Your own normalisation of each request (on both sides, before the standard rules).
    pub fn normalize(
        mut self,
        rule: impl Fn(&mut Value) + Send + Sync + 'static,
    ) -> CassetteScript {
        self.options.normalizer = std::mem::take(&mut self.options.normalizer).with(rule);
        self
    }

    /// Leaves the request value at a JSON pointer out of the comparison
    /// (`/toolCallResults/*/content/updatedAt`; `*` stands for every key or index).
    pub fn ignore(mut self, pointer: &str) -> CassetteScript {
        match self.options.normalizer.clone().ignore(pointer) {
            Ok(normalizer) => self.options.normalizer = normalizer,
            Err(e) => self.problems.push(format!("ignore: {e}")),
        }
        self
    }

    /// Replaces every match of a regex in the request's strings before comparing.
    pub fn replace(mut self, pattern: &str, with: &str) -> CassetteScript {
        match self.options.normalizer.clone().replace(pattern, with) {
            Ok(normalizer) => self.options.normalizer = normalizer,
            Err(e) => self
                .problems
                .push(format!("replace: invalid regex \"{pattern}\": {e}")),
        }
        self
    }

    /// Writes every match of a regex as `[REDACTED]` (and compares it so).
    pub fn redact(mut self, pattern: &str) -> CassetteScript {
        match self.options.redactor.clone().pattern(pattern) {
            Ok(redactor) => self.options.redactor = redactor,
            Err(e) => self
                .problems
                .push(format!("redact: invalid regex \"{pattern}\": {e}")),
        }
        self
    }

    /// Your own redaction of every string the cassette stores.
    pub fn redact_with(
        mut self,
        redact: impl Fn(&str) -> String + Send + Sync + 'static,
    ) -> CassetteScript {
        self.options.redactor = std::mem::take(&mut self.options.redactor).with(redact);
        self
    }

    /// Replays without failing on drift: what changed is collected
    /// ([`crate::agent::AiAgentHandle::drift_report`]) and the run goes on with the recorded
    /// turns (or the [`record_with`](Self::record_with) handler's, to compare a live model).
    pub fn drift(mut self) -> CassetteScript {
        self.options.drift = true;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}
