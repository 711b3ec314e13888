//! Replay that checks: a model call is answered by a recorded call only if the request still
//! matches what was recorded (after normalisation and redaction on both sides).

use serde_json::Value;

use super::diff::Difference;
use super::format::{RecordedRequest, Recording};
use super::normalize::Normalizer;
use super::redact::Redactor;
use crate::agent::turn::Turn;

/// Which recorded call answers a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchMode {
    /// Call N is answered by recorded call N, if the requests match (the default).
    #[default]
    InOrder,
    /// Each call takes the first unused recorded call with an equal request: for parallel
    /// multi-instance agents and tools that finish in another order.
    ByRequest,
    /// Turns in order, requests not checked (format 1's behaviour).
    TurnsOnly,
}

impl MatchMode {
    /// `"in-order"`, `"by-request"`, `"turns-only"`.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchMode::InOrder => "in-order",
            MatchMode::ByRequest => "by-request",
            MatchMode::TurnsOnly => "turns-only",
        }
    }

    /// Reads [`MatchMode::as_str`]'s names.
    pub fn parse(text: &str) -> Option<MatchMode> {
        [
            MatchMode::InOrder,
            MatchMode::ByRequest,
            MatchMode::TurnsOnly,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == text)
    }
}

/// Why a model call gets no recorded turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Mismatch {
    /// The request differs from the recorded call `entry` (0-based) that would answer it.
    Differs {
        call: u32,
        entry: usize,
        difference: Box<Difference>,
        /// The actual request, normalised as the recorded one is.
        actual: Box<RecordedRequest>,
    },
    /// Every recorded call has been played.
    Exhausted { call: u32, recorded: usize },
}

/// The replay of one recording.
#[derive(Debug, Clone)]
pub struct Replayer {
    recording: Recording,
    mode: MatchMode,
    normalizer: Normalizer,
    redactor: Redactor,
    /// The recorded requests normalised with this replay's rules (a test may add rules after
    /// recording).
    recorded: Vec<Option<RecordedRequest>>,
    used: Vec<bool>,
    calls: u32,
}

/// A recorded call chosen to answer a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The recorded call (0-based).
    pub entry: usize,
    /// Whether its request was compared (and matched).
    pub checked: bool,
}

impl Replayer {
    pub fn new(
        recording: Recording,
        mode: MatchMode,
        normalizer: Normalizer,
        redactor: Redactor,
    ) -> Replayer {
        let recorded = recording
            .calls
            .iter()
            .map(|call| {
                call.request
                    .as_ref()
                    .map(|request| prepare(&request.to_json(), &normalizer, &redactor))
            })
            .collect();
        let used = vec![false; recording.calls.len()];
        Replayer {
            recording,
            mode,
            normalizer,
            redactor,
            recorded,
            used,
            calls: 0,
        }
    }

    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    pub fn mode(&self) -> MatchMode {
        self.mode
    }

    /// Model calls answered or refused so far.
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// A request as recordings store it: redacted, then normalised.
    pub fn prepare(&self, request: &Value) -> RecordedRequest {
        prepare(request, &self.normalizer, &self.redactor)
    }

    /// Picks the recorded call that answers the next model call, whose request is `request`
    /// (as the model sees it: [`crate::agent::recording::request_json`]).
    pub fn answer(&mut self, request: &Value) -> Result<Played, Mismatch> {
        self.calls += 1;
        let call = self.calls;
        let exhausted = Mismatch::Exhausted {
            call,
            recorded: self.recording.calls.len(),
        };
        let checked = self.mode != MatchMode::TurnsOnly;
        let played = match self.mode {
            MatchMode::InOrder | MatchMode::TurnsOnly => {
                let entry = self.used.iter().position(|u| !u).ok_or(exhausted)?;
                if checked && let Some(recorded) = &self.recorded[entry] {
                    let actual = self.prepare(request);
                    if let Some(difference) = recorded.first_difference(&actual) {
                        return Err(Mismatch::Differs {
                            call,
                            entry,
                            difference: Box::new(difference),
                            actual: Box::new(actual),
                        });
                    }
                }
                Played {
                    entry,
                    checked: checked && self.recorded[entry].is_some(),
                }
            }
            MatchMode::ByRequest => {
                let first_unused = self.used.iter().position(|u| !u).ok_or(exhausted)?;
                let actual = self.prepare(request);
                let found = (first_unused..self.used.len())
                    .filter(|&i| !self.used[i])
                    .find(|&i| {
                        self.recorded[i]
                            .as_ref()
                            .is_none_or(|r| r.first_difference(&actual).is_none())
                    });
                match found {
                    Some(entry) => Played {
                        entry,
                        checked: self.recorded[entry].is_some(),
                    },
                    None => {
                        let difference = self.recorded[first_unused]
                            .as_ref()
                            .and_then(|r| r.first_difference(&actual))
                            .expect("an unmatched entry has a request that differs");
                        return Err(Mismatch::Differs {
                            call,
                            entry: first_unused,
                            difference: Box::new(difference),
                            actual: Box::new(actual),
                        });
                    }
                }
            }
        };
        self.used[played.entry] = true;
        Ok(played)
    }

    /// Takes the next unused recorded call without checking (drift mode goes on after a
    /// mismatch with the turn the recording has).
    pub fn take_next(&mut self) -> Option<usize> {
        let entry = self.used.iter().position(|u| !u)?;
        self.used[entry] = true;
        Some(entry)
    }

    /// A recorded call's request, normalised with this replay's rules.
    pub fn recorded_request(&self, entry: usize) -> Option<&RecordedRequest> {
        self.recorded.get(entry).and_then(Option::as_ref)
    }

    /// The turn of a recorded call.
    pub fn turn(&self, entry: usize) -> &Turn {
        &self.recording.calls[entry].turn
    }

    /// The recorded calls not played, in order (0-based).
    pub fn unplayed(&self) -> Vec<usize> {
        (0..self.used.len()).filter(|&i| !self.used[i]).collect()
    }
}

/// Redacts, then normalises, and keeps the request fields.
pub(crate) fn prepare(
    request: &Value,
    normalizer: &Normalizer,
    redactor: &Redactor,
) -> RecordedRequest {
    let mut value = request.clone();
    redactor.redact(&mut value);
    normalizer.normalize(&mut value);
    RecordedRequest::new(&value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::recording::format::RecordedCall;
    use serde_json::json;

    fn recording(prompts: &[&str]) -> Recording {
        let mut recording = Recording::new("agent", None);
        for prompt in prompts {
            recording.calls.push(RecordedCall {
                request: Some(RecordedRequest::new(&json!({"userPrompt": prompt}))),
                turn: Turn::respond_text(*prompt),
                trajectory: Vec::new(),
            });
        }
        recording
    }

    fn replayer(prompts: &[&str], mode: MatchMode) -> Replayer {
        Replayer::new(
            recording(prompts),
            mode,
            Normalizer::standard(),
            Redactor::standard(),
        )
    }

    #[test]
    fn in_order_checks_call_n_against_entry_n() {
        let mut r = replayer(&["a", "b"], MatchMode::InOrder);
        assert_eq!(r.answer(&json!({"userPrompt": "a"})).unwrap().entry, 0);
        let Err(Mismatch::Differs {
            call,
            entry,
            difference,
            ..
        }) = r.answer(&json!({"userPrompt": "a"}))
        else {
            panic!("a mismatch")
        };
        assert_eq!(
            (call, entry, difference.path.as_str()),
            (2, 1, "request.userPrompt")
        );
    }

    #[test]
    fn by_request_takes_the_first_unused_equal_entry() {
        let mut r = replayer(&["a", "b", "a"], MatchMode::ByRequest);
        assert_eq!(r.answer(&json!({"userPrompt": "b"})).unwrap().entry, 1);
        assert_eq!(r.answer(&json!({"userPrompt": "a"})).unwrap().entry, 0);
        assert_eq!(r.answer(&json!({"userPrompt": "a"})).unwrap().entry, 2);
        assert_eq!(
            r.answer(&json!({"userPrompt": "a"})),
            Err(Mismatch::Exhausted {
                call: 4,
                recorded: 3
            })
        );
    }

    #[test]
    fn turns_only_and_format_1_calls_are_not_checked() {
        let mut r = replayer(&["a"], MatchMode::TurnsOnly);
        assert_eq!(
            r.answer(&json!({"userPrompt": "z"})),
            Ok(Played {
                entry: 0,
                checked: false
            })
        );
        let mut format1 = Recording::from(crate::agent::Cassette::new(
            "agent",
            vec![Turn::respond_text("x")],
        ));
        format1.calls[0].trajectory.clear();
        let mut r = Replayer::new(
            format1,
            MatchMode::InOrder,
            Normalizer::standard(),
            Redactor::standard(),
        );
        assert_eq!(
            r.answer(&json!({"userPrompt": "z"})),
            Ok(Played {
                entry: 0,
                checked: false
            })
        );
    }

    #[test]
    fn volatile_values_and_secrets_do_not_break_matching() {
        let mut recorded = recording(&[]);
        recorded.calls.push(RecordedCall {
            request: Some(RecordedRequest::new(
                &json!({"userPrompt": "at <timestamp> with [REDACTED]"}),
            )),
            turn: Turn::respond_text("ok"),
            trajectory: Vec::new(),
        });
        let mut r = Replayer::new(
            recorded,
            MatchMode::InOrder,
            Normalizer::standard(),
            Redactor::standard(),
        );
        assert!(
            r.answer(
                &json!({"userPrompt": "at 2031-05-06T07:08:09Z with sk-ant-0123456789abcdefghij"})
            )
            .is_ok()
        );
    }
}
