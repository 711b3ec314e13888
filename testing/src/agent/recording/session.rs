//! A cassette in use by one agent element during a test: recording (turns from a handler, the
//! file rewritten after every model call and trajectory change), replaying with checks (a
//! mismatch fails with its drift message), or replaying for a drift report (mismatches are
//! collected and the run goes on).
//!
//! The session reads the run's trace from the engine whenever it is synced — before each model
//! call, at quiescence, at the end — so every call's trajectory is what happened between it and
//! the next call.

use std::collections::BTreeMap;
use std::path::Path;

use baton_engine::runtime::{BpmnElementType, Engine};
use serde_json::Value;

use super::drift::{Drift, DriftContext, compare_recordings};
use super::format::{RecordedProcess, Recording, RecordingError, sha256};
use super::normalize::Normalizer;
use super::record::Recorder;
use super::redact::Redactor;
use super::replay::{MatchMode, Replayer, UnmatchedCall};
use super::request_json;
use crate::agent::handle::task_container;
use crate::agent::request::AgentRequest;
use crate::agent::turn::Turn;
use crate::trace::TraceReader;

/// The environment variable that makes every cassette record: `BATON_RECORD=1`.
pub const RECORD_ENV: &str = "BATON_RECORD";

/// Whether a test records its cassette or replays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CassetteMode {
    /// Replay; a missing cassette is an error.
    #[default]
    Replay,
    /// Record a new cassette (replacing the file) with turns from the handler.
    Record,
    /// Replay when the cassette exists, else record.
    Auto,
}

impl CassetteMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CassetteMode::Replay => "replay",
            CassetteMode::Record => "record",
            CassetteMode::Auto => "auto",
        }
    }

    pub fn parse(text: &str) -> Option<CassetteMode> {
        [
            CassetteMode::Replay,
            CassetteMode::Record,
            CassetteMode::Auto,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == text)
    }

    /// `Record` when `BATON_RECORD=1` is set, else this mode.
    pub fn or_from_env(self) -> CassetteMode {
        match std::env::var(RECORD_ENV) {
            Ok(value) if value.trim() == "1" => CassetteMode::Record,
            _ => self,
        }
    }
}

/// How a session uses its cassette.
#[derive(Debug, Clone, Default)]
pub struct CassetteOptions {
    pub mode: CassetteMode,
    pub matching: MatchMode,
    pub normalizer: Normalizer,
    pub redactor: Redactor,
    /// Replay without failing on drift: collect what changed and go on with the recorded
    /// turns (or, with a handler, with the handler's).
    pub drift: bool,
}

/// The turns when recording: the model adapter (a closure calling your model, a transcript,
/// an agent command). It sees the request as the model would and the same as JSON.
pub type TurnSource = Box<dyn FnMut(&AgentRequest, &Value) -> Result<Turn, String>>;

enum Kind {
    Recording(TurnSource),
    Replaying {
        replayer: Box<Replayer>,
        /// In drift mode, a live model answers instead of the cassette.
        live: Option<TurnSource>,
    },
}

/// One agent element's cassette in a test. See the module documentation.
pub struct CassetteSession {
    agent: String,
    kind: Kind,
    /// This run, recorded: to the file when recording, in memory when replaying (the actual
    /// trajectories drift messages compare with the cassette's).
    run: Recorder,
    reader: TraceReader,
    context: DriftContext,
    drift: bool,
    /// Whether requests and the trace are read (not when replaying turns only).
    watching: bool,
    drifts: Vec<Drift>,
    /// The recorded call that answered the last model call (replaying).
    last_entry: Option<usize>,
    /// The turn of the last model call when it did not come from the cassette (recording, or
    /// a live model in drift mode).
    last_turn: Option<Turn>,
    /// The connector crashed after the last model call was answered: the next call asks the
    /// same again (see [`CassetteSession::crashed_after_answer`]).
    repeat: bool,
}

impl std::fmt::Debug for CassetteSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CassetteSession")
            .field("agent", &self.agent)
            .field("cassette", &self.context.source)
            .field("recording", &matches!(self.kind, Kind::Recording(_)))
            .field("calls", &self.run.recording().calls.len())
            .finish()
    }
}

/// What the session answers instead of a turn: the run cannot go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionFailure {
    /// The run left its recording.
    #[error("{0}")]
    Drift(Box<Drift>),
    /// The cassette cannot be written, or the handler gave no turn (its message).
    #[error("{0}")]
    Other(String),
}

impl CassetteSession {
    /// Opens the cassette at `path` for the agent element `agent` of the processes deployed in
    /// `engine`: reads and checks it to replay, or prepares to record it with `turns`.
    pub fn open(
        engine: &Engine,
        agent: &str,
        path: &Path,
        options: CassetteOptions,
        turns: Option<TurnSource>,
    ) -> Result<CassetteSession, RecordingError> {
        let source = path.display().to_string();
        let process_id = agent_process(engine, agent);
        let definition_hash = agent_definition_hash(engine, agent);
        let record = match options.mode {
            CassetteMode::Record => true,
            CassetteMode::Replay => false,
            CassetteMode::Auto => !path.exists(),
        };
        let mut context = DriftContext {
            agent: agent.to_string(),
            source: source.clone(),
            tool_kinds: tool_kinds(engine, agent),
            process_id: process_id.clone(),
            definition_changed: false,
        };
        let process = process_id.clone().map(|id| RecordedProcess {
            id,
            definition_hash: definition_hash.clone(),
        });
        let (kind, file) = if record {
            let Some(turns) = turns else {
                return Err(RecordingError::NoHandler {
                    file: source,
                    agent: agent.to_string(),
                });
            };
            (Kind::Recording(turns), Some(path.to_path_buf()))
        } else {
            let recording = Recording::read(path).map_err(|e| match e {
                RecordingError::Io { path, error }
                    if error.kind() == std::io::ErrorKind::NotFound =>
                {
                    RecordingError::Missing {
                        path,
                        agent: agent.to_string(),
                    }
                }
                other => other,
            })?;
            recording.check_for(agent, process_id.as_deref(), &source)?;
            context.definition_changed = match (
                recording
                    .process
                    .as_ref()
                    .and_then(|p| p.definition_hash.as_ref()),
                &definition_hash,
            ) {
                (Some(recorded), Some(actual)) => recorded != actual,
                _ => false,
            };
            let replayer = Replayer::new(
                recording,
                options.matching,
                options.normalizer.clone(),
                options.redactor.clone(),
            );
            (
                Kind::Replaying {
                    replayer: Box::new(replayer),
                    live: if options.drift { turns } else { None },
                },
                None,
            )
        };
        let watching = match &kind {
            Kind::Recording(_) => true,
            Kind::Replaying { replayer, .. } => {
                replayer.mode() != MatchMode::TurnsOnly || options.drift
            }
        };
        Ok(CassetteSession {
            agent: agent.to_string(),
            watching,
            kind,
            run: Recorder::new(agent, process, file, options.normalizer, options.redactor),
            reader: TraceReader::from_now(engine),
            context,
            drift: options.drift,
            drifts: Vec::new(),
            last_entry: None,
            last_turn: None,
            repeat: false,
        })
    }

    /// The agent element.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The cassette as messages name it.
    pub fn source(&self) -> &str {
        &self.context.source
    }

    pub fn is_recording(&self) -> bool {
        matches!(self.kind, Kind::Recording(_))
    }

    /// Whether mismatches are collected instead of failing the run.
    pub fn is_drift_mode(&self) -> bool {
        self.drift
    }

    /// The cassette being replayed (`None` when recording).
    pub fn cassette(&self) -> Option<&Recording> {
        match &self.kind {
            Kind::Replaying { replayer, .. } => Some(replayer.recording()),
            Kind::Recording(_) => None,
        }
    }

    /// This run so far, recorded.
    pub fn run(&self) -> &Recording {
        self.run.recording()
    }

    /// Recorded calls not played yet (none when recording).
    pub fn unplayed_calls(&self) -> usize {
        match &self.kind {
            Kind::Replaying { replayer, .. } => replayer.unplayed().len(),
            Kind::Recording(_) => 0,
        }
    }

    /// The drifts collected in drift mode.
    pub fn drifts(&self) -> &[Drift] {
        &self.drifts
    }

    /// The turn for a model call, whose request is `request`. Sync first (see
    /// [`CassetteSession::sync`]), so that the previous call's trajectory is complete.
    pub fn answer(&mut self, request: &AgentRequest) -> Result<Turn, SessionFailure> {
        if std::mem::take(&mut self.repeat) {
            return self.answer_again(request);
        }
        let other = |e: RecordingError| SessionFailure::Other(e.to_string());
        let (replayer, live) = match &mut self.kind {
            Kind::Recording(turns) => {
                let json = request_json(request);
                let turn = turns(request, &json).map_err(SessionFailure::Other)?;
                self.run.record_call(&json, &turn).map_err(other)?;
                self.last_turn = Some(turn.clone());
                return Ok(turn);
            }
            Kind::Replaying { replayer, live } => (replayer, live),
        };
        if !self.watching {
            // Turns only: nothing is compared, nothing needs explaining.
            let played = replayer.answer(&Value::Null);
            return match played {
                Ok(played) => {
                    self.last_entry = Some(played.entry);
                    Ok(replayer.turn(played.entry).clone())
                }
                // Turns only can only run out.
                Err(
                    UnmatchedCall::Exhausted { call, .. } | UnmatchedCall::Differs { call, .. },
                ) => Err(SessionFailure::Drift(Box::new(self.context.extra_call(
                    call,
                    replayer.recording(),
                    &Default::default(),
                    &[],
                )))),
            };
        }
        // The request's JSON is built only when something needs it: a replay that matches
        // compares the request where it lies.
        let json = std::cell::OnceCell::new();
        let json = || json.get_or_init(|| request_json(request));
        let actual_before = self
            .run
            .recording()
            .calls
            .last()
            .map_or(&[][..], |c| c.trajectory.as_slice());
        self.last_entry = None;
        let recorded_turn = match replayer.answer_request(request) {
            Ok(played) => {
                self.last_entry = Some(played.entry);
                Some(replayer.turn(played.entry).clone())
            }
            Err(UnmatchedCall::Differs {
                call,
                entry,
                difference,
                actual,
            }) => {
                let recorded = replayer
                    .recorded_request(entry)
                    .cloned()
                    .unwrap_or_default();
                let recorded_before = entry.checked_sub(1).map_or(&[][..], |i| {
                    replayer.recording().calls[i].trajectory.as_slice()
                });
                let drift = self.context.mismatch(
                    call,
                    *difference,
                    &recorded,
                    &actual,
                    recorded_before,
                    actual_before,
                );
                if !self.drift {
                    return Err(SessionFailure::Drift(Box::new(drift)));
                }
                self.drifts.push(drift);
                self.last_entry = replayer.take_next();
                self.last_entry.map(|i| replayer.turn(i).clone())
            }
            Err(UnmatchedCall::Exhausted { call, .. }) => {
                let actual = replayer.prepare(json());
                let drift =
                    self.context
                        .extra_call(call, replayer.recording(), &actual, actual_before);
                if !self.drift || live.is_none() {
                    return Err(SessionFailure::Drift(Box::new(drift)));
                }
                self.drifts.push(drift);
                None
            }
        };
        self.last_turn = None;
        let turn = match (live, recorded_turn) {
            (Some(live), _) => {
                let turn = live(request, json()).map_err(SessionFailure::Other)?;
                self.last_turn = Some(turn.clone());
                turn
            }
            (None, Some(turn)) => turn,
            (None, None) => {
                return Err(SessionFailure::Other(format!(
                    "{} has no call left to replay for model call {} of \"{}\"",
                    self.context.source, request.model_call, self.agent
                )));
            }
        };
        if self.drift {
            self.run.record_call(json(), &turn).map_err(other)?;
        } else {
            // The run's trajectories explain a later mismatch; its requests are not needed.
            self.run.record_turn(&turn);
        }
        Ok(turn)
    }

    /// The connector crashed after the model answered the last call, before the job was
    /// completed: Zeebe activates the job again once it times out, and the connector asks the
    /// model the same again. That repeated request is answered as the crashed call was: by the
    /// same recorded call (checked against its request) when replaying, with the same turn (the
    /// model not asked again) when recording. The cassette holds the calls the model answered,
    /// one for both, so it replays under the same fault and without it alike; what happened
    /// between them (the timeout, the activation again) is the call's trajectory.
    pub fn crashed_after_answer(&mut self) {
        self.repeat = true;
    }

    /// The answer to the request repeated after a crash (see
    /// [`CassetteSession::crashed_after_answer`]).
    fn answer_again(&mut self, request: &AgentRequest) -> Result<Turn, SessionFailure> {
        let none = || {
            SessionFailure::Other(format!(
                "{} answered no model call before model call {} of \"{}\", which repeats one after a crash",
                self.context.source, request.model_call, self.agent
            ))
        };
        if let Some(turn) = &self.last_turn {
            return Ok(turn.clone());
        }
        let Kind::Replaying { replayer, .. } = &self.kind else {
            return Err(none());
        };
        let Some(entry) = self.last_entry else {
            return Err(none());
        };
        if self.watching
            && let Err(UnmatchedCall::Differs {
                call,
                difference,
                actual,
                ..
            }) = replayer.check_again(entry, &request_json(request))
        {
            let recorded = replayer
                .recorded_request(entry)
                .cloned()
                .unwrap_or_default();
            // What happened since the crashed call (its timeout) has no recorded counterpart.
            let drift = self
                .context
                .mismatch(call, *difference, &recorded, &actual, &[], &[]);
            if !self.drift {
                return Err(SessionFailure::Drift(Box::new(drift)));
            }
            self.drifts.push(drift);
        }
        Ok(replayer.turn(entry).clone())
    }

    /// Reads what happened since the last model call (or sync) into its trajectory; a recording
    /// is rewritten when it changed.
    pub fn sync(&mut self, engine: &Engine) -> Result<(), RecordingError> {
        if !self.watching {
            return Ok(());
        }
        let events = self.reader.read(engine);
        self.run.extend_trajectory(events)
    }

    /// At the end of the run: syncs, then, when replaying with checks, refuses a cassette with
    /// calls the run did not make (in drift mode they are collected).
    pub fn finish(&mut self, engine: &Engine) -> Result<(), SessionFailure> {
        self.sync(engine)
            .map_err(|e| SessionFailure::Other(e.to_string()))?;
        let Kind::Replaying { replayer, .. } = &self.kind else {
            return Ok(());
        };
        let unplayed = replayer.unplayed();
        if unplayed.is_empty() || replayer.mode() == MatchMode::TurnsOnly {
            return Ok(());
        }
        let made = replayer.calls();
        let actual_after = self
            .run
            .recording()
            .calls
            .last()
            .map_or(&[][..], |c| c.trajectory.as_slice());
        let drift = self
            .context
            .missing_calls(made, replayer.recording(), &unplayed, actual_after);
        if self.drift {
            if !self.drifts.contains(&drift) {
                self.drifts.push(drift);
            }
            return Ok(());
        }
        Err(SessionFailure::Drift(Box::new(drift)))
    }

    /// How this run's trajectory changed against the cassette, one line per change (drift
    /// mode's report); empty when recording or when nothing changed.
    pub fn drift_report(&self) -> Vec<String> {
        match &self.kind {
            Kind::Replaying { replayer, .. } => {
                compare_recordings(&self.context, replayer.recording(), self.run.recording())
            }
            Kind::Recording(_) => Vec::new(),
        }
    }
}

/// The process a deployed agent element is in (the latest version that has it).
pub(crate) fn agent_process(engine: &Engine, agent: &str) -> Option<String> {
    engine
        .deployed_processes()
        .filter(|p| p.find(agent).is_some())
        .last()
        .map(|p| p.bpmn_process_id().to_string())
}

/// The content hash of the deployed resource that holds the agent (its latest deployment).
pub(crate) fn agent_definition_hash(engine: &Engine, agent: &str) -> Option<String> {
    let process = engine
        .deployed_processes()
        .filter(|p| p.find(agent).is_some())
        .last()?;
    let resource = engine
        .deployed_resources()
        .filter(|r| r.name == **process.resource_name())
        .last()?;
    Some(sha256(resource.content()))
}

/// What each tool of the agent is, for drift messages: `job type order-lookup`, `a user task`.
/// An AI Agent Task (the connector on a service task) runs its tools in the ad-hoc sub-process
/// its `data.tools.containerElementId` names; when that is an expression, every ad-hoc
/// sub-process of its process may be the one.
fn tool_kinds(engine: &Engine, agent: &str) -> BTreeMap<String, String> {
    let mut kinds = BTreeMap::new();
    for process in engine.deployed_processes() {
        let Some(idx) = process.find(agent) else {
            continue;
        };
        let containers: Vec<_> = match process.ad_hoc_sub_process(idx) {
            Some(_) => vec![idx],
            None => match task_container(process, idx).and_then(|id| process.find(&id)) {
                Some(container) => vec![container],
                None => process
                    .element_types()
                    .filter(|(_, t)| *t == BpmnElementType::AdHocSubProcess)
                    .filter_map(|(id, _)| process.find(id))
                    .collect(),
            },
        };
        for container in containers {
            let Some(ad_hoc) = process.ad_hoc_sub_process(container) else {
                continue;
            };
            for &child in ad_hoc.activities {
                let kind = match process.static_job_type(child) {
                    Some(job_type) => format!("job type {job_type}"),
                    None => element_kind(process.element_type(child)).to_string(),
                };
                kinds.insert(process.element_id(child).to_string(), kind);
            }
        }
    }
    kinds
}

fn element_kind(element_type: BpmnElementType) -> &'static str {
    match element_type {
        BpmnElementType::ScriptTask => "a script task",
        BpmnElementType::UserTask => "a user task",
        BpmnElementType::ServiceTask => "a service task",
        BpmnElementType::BusinessRuleTask => "a business rule task",
        BpmnElementType::SendTask => "a send task",
        BpmnElementType::ReceiveTask => "a receive task",
        BpmnElementType::ManualTask | BpmnElementType::Task => "a task",
        BpmnElementType::CallActivity => "a call activity",
        BpmnElementType::SubProcess => "a sub-process",
        BpmnElementType::AdHocSubProcess => "an ad-hoc sub-process",
        BpmnElementType::IntermediateThrowEvent => "an intermediate throw event",
        BpmnElementType::IntermediateCatchEvent => "an intermediate catch event",
        _ => "an element",
    }
}
