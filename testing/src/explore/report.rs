//! The report of a search: how much was explored, each invariant's outcome with its shrunk
//! counterexample (the trajectory, its trace, a cassette per agent and a CPT test case that
//! replays it), goals reached, run errors, and the coverage over every explored run (elements,
//! flows and tools no choice of the model reaches).

use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::fork::{Fork, RecordedModelCall, ToolAnswer};
use super::invariant::{EndState, Invariant};
use super::plan::{MockAnswers, Plan};
use super::search::{self, Outcome, Stop, replay, shrink};
use super::space::{Search, Shard, Space};
use super::tally::{Found, Tally};
use std::cell::RefCell;

use crate::agent::recording::session::{agent_definition_hash, agent_process};
use crate::agent::recording::{
    Normalizer, RecordedProcess, Recorder, Recording, Redactor, request_json,
};
use crate::mocks::Answer;
use crate::trace::{TraceEvent, TraceReader};

/// One invariant's (or goal's) outcome.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub invariant: Invariant,
    /// Runs that broke the invariant (for a goal: runs that reached it).
    pub count: u64,
    /// The simplest trajectory that broke it (for a goal: that reached it), shrunk.
    pub counterexample: Option<Counterexample>,
}

impl CheckReport {
    /// Whether the invariant held on every explored run (a goal: some run reached it).
    pub fn holds(&self) -> bool {
        if self.invariant.is_goal() {
            self.count > 0
        } else {
            self.count == 0
        }
    }
}

/// A trajectory that shows a violation (or reaches a goal), shrunk: what the model and the tools
/// did, the run's trace, a cassette per agent, and a CPT test case that replays it.
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// What broke, in words.
    pub message: String,
    /// The choices up to the violation, in order, in words.
    pub steps: Vec<String>,
    /// The simplest choices after it, to the end of the run (what the replay does next).
    pub continuation: Vec<String>,
    /// The choice indices (what [`Report`] replays).
    pub choices: Vec<u32>,
    /// Model calls and tool calls of the trajectory.
    pub model_calls: usize,
    pub tool_calls: usize,
    /// The run's trace.
    pub trace: Vec<TraceEvent>,
    /// Per agent, its model calls: what the model saw, the turn, what happened until the next
    /// call (cassettes of format 2).
    pub cassettes: Vec<Recording>,
    /// A CPT test case that replays it and fails the same way; `Err`: why the trajectory
    /// cannot be written as one.
    pub case: Result<Value, CaseError>,
}

/// Why a counterexample's trajectory cannot be written as a CPT test case (an answer or an
/// invariant the JSON format has no instruction for).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct CaseError {
    pub reason: String,
}

/// Why [`Counterexample::write_to`] wrote nothing, or not everything.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    NoCase(#[from] CaseError),
    #[error(transparent)]
    Cassette(#[from] crate::agent::recording::RecordingError),
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What [`Report::check`] found: the invariants that failed and goals not reached, and the runs
/// that had a run error; shown as the whole report.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{report}")]
pub struct NotHeld {
    pub failed: Vec<Invariant>,
    pub run_errors: u64,
    /// The report's text.
    pub report: String,
}

/// What [`Counterexample::write_to`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub test_file: PathBuf,
    pub cassettes: Vec<PathBuf>,
}

impl Counterexample {
    /// Writes the CPT test file `<stem>.test.json` and a cassette per agent
    /// (`<stem>.<agent>.cassette.json`) into `dir`, beside the BPMN it tests.
    pub fn write_to(&self, dir: &Path, stem: &str) -> Result<Written, WriteError> {
        let case = self.case.clone()?;
        let mut cassettes = Vec::new();
        for cassette in &self.cassettes {
            let agent = cassette.agent.clone().unwrap_or_default();
            let path = dir.join(cassette_file(stem, &agent));
            cassette.write(&path)?;
            cassettes.push(path);
        }
        let test_file = dir.join(format!("{stem}.test.json"));
        let file = json!({ "testCases": [case_with_files(&case, stem)] });
        let text = serde_json::to_string_pretty(&file).expect("JSON") + "\n";
        std::fs::write(&test_file, text).map_err(|source| WriteError::Io {
            path: test_file.clone(),
            source,
        })?;
        Ok(Written {
            test_file,
            cassettes,
        })
    }

    fn render(&self, out: &mut String, indent: &str) {
        let _ = writeln!(out, "{indent}{}", self.message);
        let _ = writeln!(
            out,
            "{indent}trajectory ({} model call{}, {} tool call{}):",
            self.model_calls,
            plural(self.model_calls),
            self.tool_calls,
            plural(self.tool_calls)
        );
        for (i, step) in self.steps.iter().enumerate() {
            let _ = writeln!(out, "{indent}  {}. {step}", i + 1);
        }
        if !self.continuation.is_empty() {
            let _ = writeln!(out, "{indent}then, to the end of the run:");
            for step in &self.continuation {
                let _ = writeln!(out, "{indent}  - {step}");
            }
        }
    }
}

fn cassette_file(stem: &str, agent: &str) -> String {
    format!("{stem}.{agent}.cassette.json")
}

/// The case with its `MOCK_AI_AGENT` instructions pointing at the cassette files.
fn case_with_files(case: &Value, stem: &str) -> Value {
    let mut case = case.clone();
    if let Some(instructions) = case.get_mut("instructions").and_then(Value::as_array_mut) {
        for instruction in instructions {
            if instruction.get("type").and_then(Value::as_str) == Some("MOCK_AI_AGENT")
                && let Some(object) = instruction.as_object_mut()
            {
                let agent = object
                    .get("elementId")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                object.shift_remove("turns");
                object.insert("cassette".into(), cassette_file(stem, &agent).into());
            }
        }
    }
    case
}

/// The report of a search. See the module documentation.
#[derive(Debug, Clone)]
pub struct Report {
    pub search: Search,
    /// Trajectories explored to their end (or to the model-call bound).
    pub trajectories: u64,
    /// Of those, cut at the model-call bound.
    pub cut_at_bound: u64,
    pub distinct_states: u64,
    /// Branches not explored because their state was seen before.
    pub pruned: u64,
    /// Wall time (not deterministic, unlike everything else).
    pub elapsed: Duration,
    /// Why the search stopped before the end, and where (`None`: the space was exhausted).
    pub cut_off: Option<String>,
    pub checks: Vec<CheckReport>,
    /// Runs with a run error (a mock that could not answer, an answer the engine rejected).
    pub run_errors: u64,
    pub run_error: Option<Counterexample>,
    pub coverage: ExploredCoverage,
    /// The same coverage as a coverage file (what `baton coverage report` merges with test runs
    /// and draws as HTML); empty for a report read back from JSON.
    pub coverage_file: crate::coverage::CoverageFile,
    /// The part of the space this report covers (`None`: all of it).
    pub shard: Option<Shard>,
    /// The fingerprints of the states a shard saw, sorted (what merging counts distinct
    /// states from); empty unless sharded.
    pub(crate) state_fingerprints: Vec<u64>,
}

/// Coverage over every explored run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExploredCoverage {
    /// Per process: `(process id, elements never entered, flows never taken, tools never called)`.
    pub processes: Vec<ProcessReach>,
}

/// What no explored run of one process reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessReach {
    pub process_id: String,
    pub elements: usize,
    pub elements_entered: usize,
    pub flows: usize,
    pub flows_taken: usize,
    /// Elements never entered, in model order.
    pub dead_elements: Vec<String>,
    /// Sequence flows never taken.
    pub dead_flows: Vec<String>,
    /// Tools (of AI agents) never called.
    pub dead_tools: Vec<String>,
}

impl Report {
    /// Trajectories per second (wall time).
    pub fn trajectories_per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.trajectories as f64 / s
        } else {
            0.0
        }
    }

    /// Every invariant that broke with its counterexample (goals are left out), in the order
    /// the invariants were given.
    pub fn counterexamples(&self) -> impl Iterator<Item = (&Invariant, &Counterexample)> {
        self.checks
            .iter()
            .filter(|c| !c.invariant.is_goal())
            .filter_map(|c| Some((&c.invariant, c.counterexample.as_ref()?)))
    }

    /// The counterexample of check `i` (in the order the invariants were given).
    pub fn counterexample(&self, i: usize) -> Option<&Counterexample> {
        self.checks.get(i)?.counterexample.as_ref()
    }

    /// `Err` with the report of every invariant that failed (and goal not reached).
    pub fn check(&self) -> Result<(), NotHeld> {
        let failed: Vec<Invariant> = self
            .checks
            .iter()
            .filter(|c| !c.holds())
            .map(|c| c.invariant.clone())
            .collect();
        if failed.is_empty() && self.run_errors == 0 {
            return Ok(());
        }
        Err(NotHeld {
            failed,
            run_errors: self.run_errors,
            report: self.to_string(),
        })
    }

    /// Panics with the report unless every invariant held, every goal was reached and no run
    /// had a run error.
    #[track_caller]
    pub fn assert_holds(&self) -> &Self {
        if let Err(message) = self.check() {
            panic!("{message}");
        }
        self
    }

    /// The counts only (what stays the same on every machine), as one line.
    pub fn counts(&self) -> String {
        format!(
            "{} trajector{} ({} cut at the model-call bound), {} distinct state{}, {} pruned{}",
            self.trajectories,
            if self.trajectories == 1 { "y" } else { "ies" },
            self.cut_at_bound,
            self.distinct_states,
            if self.distinct_states == 1 { "" } else { "s" },
            self.pruned,
            match &self.cut_off {
                Some(why) => format!("; cut off: {why}"),
                None => String::new(),
            }
        )
    }

    /// The report as JSON (keys in a fixed order).
    pub fn to_json(&self) -> Value {
        let checks: Vec<Value> = self
            .checks
            .iter()
            .map(|c| {
                let mut o = Map::new();
                o.insert("invariant".into(), c.invariant.to_string().into());
                o.insert(
                    "definition".into(),
                    super::file::invariant_to_json(&c.invariant),
                );
                o.insert(
                    "kind".into(),
                    if c.invariant.is_goal() {
                        "goal"
                    } else {
                        "invariant"
                    }
                    .into(),
                );
                o.insert("holds".into(), c.holds().into());
                o.insert("count".into(), c.count.into());
                if let Some(cx) = &c.counterexample {
                    o.insert("counterexample".into(), counterexample_json(cx));
                }
                Value::Object(o)
            })
            .collect();
        let coverage: Vec<Value> = self
            .coverage
            .processes
            .iter()
            .map(|p| {
                json!({
                    "processId": p.process_id,
                    "elements": p.elements,
                    "elementsEntered": p.elements_entered,
                    "flows": p.flows,
                    "flowsTaken": p.flows_taken,
                    "deadElements": p.dead_elements,
                    "deadFlows": p.dead_flows,
                    "deadTools": p.dead_tools,
                })
            })
            .collect();
        let mut o = Map::new();
        o.insert(
            "search".into(),
            match self.search {
                Search::Exhaustive => json!({"mode": "exhaustive"}),
                Search::Sample { seed, runs } => {
                    json!({"mode": "sample", "seed": seed, "runs": runs})
                }
            },
        );
        o.insert("trajectories".into(), self.trajectories.into());
        o.insert("cutAtBound".into(), self.cut_at_bound.into());
        o.insert("distinctStates".into(), self.distinct_states.into());
        o.insert("pruned".into(), self.pruned.into());
        o.insert("complete".into(), self.cut_off.is_none().into());
        if let Some(why) = &self.cut_off {
            o.insert("cutOff".into(), why.clone().into());
        }
        o.insert("checks".into(), Value::Array(checks));
        o.insert("runErrors".into(), self.run_errors.into());
        if let Some(cx) = &self.run_error {
            o.insert("runError".into(), counterexample_json(cx));
        }
        o.insert("coverage".into(), Value::Array(coverage));
        if let Some(shard) = self.shard {
            o.insert(
                "shard".into(),
                json!({"index": shard.index, "count": shard.count}),
            );
            let mut bytes = Vec::with_capacity(self.state_fingerprints.len() * 8);
            for f in &self.state_fingerprints {
                bytes.extend_from_slice(&f.to_le_bytes());
            }
            use base64::Engine as _;
            o.insert(
                "stateFingerprints".into(),
                base64::engine::general_purpose::STANDARD
                    .encode(bytes)
                    .into(),
            );
        }
        o.insert("seconds".into(), json!(self.elapsed.as_secs_f64()));
        o.insert(
            "trajectoriesPerSecond".into(),
            json!(self.trajectories_per_second().round()),
        );
        Value::Object(o)
    }
}

fn counterexample_json(cx: &Counterexample) -> Value {
    let mut o = Map::new();
    o.insert("message".into(), cx.message.clone().into());
    o.insert("modelCalls".into(), cx.model_calls.into());
    o.insert("toolCalls".into(), cx.tool_calls.into());
    o.insert("steps".into(), json!(cx.steps));
    o.insert("continuation".into(), json!(cx.continuation));
    o.insert("choices".into(), json!(cx.choices));
    o.insert("trace".into(), crate::trace::events_to_json(&cx.trace));
    o.insert(
        "cassettes".into(),
        Value::Array(cx.cassettes.iter().map(Recording::to_json).collect()),
    );
    o.insert(
        "case".into(),
        match &cx.case {
            Ok(case) => case.clone(),
            Err(why) => json!({"notWritten": why.reason}),
        },
    );
    Value::Object(o)
}

/// Why a report file cannot be read back or merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    #[error("not an exploration report: {}{message}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
    Format { path: String, message: String },
    #[error("{0}")]
    Merge(String),
}

fn format_error(path: &str, message: impl Into<String>) -> ReportError {
    ReportError::Format {
        path: path.to_string(),
        message: message.into(),
    }
}

fn field<'v>(o: &'v Map<String, Value>, key: &str) -> Result<&'v Value, ReportError> {
    o.get(key)
        .ok_or_else(|| format_error(key, "the field is missing"))
}

fn u64_field(o: &Map<String, Value>, key: &str) -> Result<u64, ReportError> {
    field(o, key)?
        .as_u64()
        .ok_or_else(|| format_error(key, "must be a whole number"))
}

fn strings(value: &Value, path: &str) -> Result<Vec<String>, ReportError> {
    value
        .as_array()
        .ok_or_else(|| format_error(path, "must be a list of strings"))?
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format_error(path, "must be a list of strings"))
        })
        .collect()
}

fn counterexample_from_json(value: &Value, path: &str) -> Result<Counterexample, ReportError> {
    let o = value
        .as_object()
        .ok_or_else(|| format_error(path, "must be an object"))?;
    let at = |k: &str| format!("{path}.{k}");
    let get = |k: &str| {
        o.get(k)
            .ok_or_else(|| format_error(&at(k), "the field is missing"))
    };
    let mut problems = crate::agent::problems::Problems::default();
    let trace = crate::trace::events_from_json(get("trace")?, &at("trace"), &mut problems)
        .ok_or_else(|| format_error(&at("trace"), problems.to_string()))?;
    let cassettes = get("cassettes")?
        .as_array()
        .ok_or_else(|| format_error(&at("cassettes"), "must be a list"))?
        .iter()
        .map(|c| {
            Recording::from_json(c, &at("cassettes"))
                .map_err(|e| format_error(&at("cassettes"), e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let case = get("case")?;
    let case = match case.get("notWritten").and_then(Value::as_str) {
        Some(why) => Err(CaseError {
            reason: why.to_string(),
        }),
        None => Ok(case.clone()),
    };
    Ok(Counterexample {
        message: get("message")?
            .as_str()
            .ok_or_else(|| format_error(&at("message"), "must be a string"))?
            .to_string(),
        steps: strings(get("steps")?, &at("steps"))?,
        continuation: strings(get("continuation")?, &at("continuation"))?,
        choices: get("choices")?
            .as_array()
            .ok_or_else(|| format_error(&at("choices"), "must be a list"))?
            .iter()
            .map(|c| {
                c.as_u64()
                    .map(|c| c as u32)
                    .ok_or_else(|| format_error(&at("choices"), "must be whole numbers"))
            })
            .collect::<Result<Vec<_>, _>>()?,
        model_calls: get("modelCalls")?.as_u64().unwrap_or(0) as usize,
        tool_calls: get("toolCalls")?.as_u64().unwrap_or(0) as usize,
        trace,
        cassettes,
        case,
    })
}

/// The order counterexamples of several reports are chosen by: simplest first.
fn simpler(a: &Counterexample, b: &Counterexample) -> bool {
    (a.model_calls, a.tool_calls, &a.choices) < (b.model_calls, b.tool_calls, &b.choices)
}

impl Report {
    /// Reads a report written by [`Report::to_json`] (a shard's report file).
    pub fn from_json(value: &Value) -> Result<Report, ReportError> {
        let o = value
            .as_object()
            .ok_or_else(|| format_error("", "must be an object"))?;
        let search = match field(o, "search")?.get("mode").and_then(Value::as_str) {
            Some("exhaustive") => Search::Exhaustive,
            Some("sample") => {
                let s = field(o, "search")?;
                Search::Sample {
                    seed: s.get("seed").and_then(Value::as_u64).unwrap_or(0),
                    runs: s.get("runs").and_then(Value::as_u64).unwrap_or(0),
                }
            }
            _ => return Err(format_error("search.mode", "must be exhaustive or sample")),
        };
        let mut checks = Vec::new();
        for (i, c) in field(o, "checks")?
            .as_array()
            .ok_or_else(|| format_error("checks", "must be a list"))?
            .iter()
            .enumerate()
        {
            let path = format!("checks[{i}]");
            let definition = c.get("definition").ok_or_else(|| {
                format_error(&format!("{path}.definition"), "the field is missing")
            })?;
            let invariant = super::file::invariant_from_json(definition)
                .map_err(|m| format_error(&format!("{path}.definition"), m))?;
            let counterexample = match c.get("counterexample") {
                Some(cx) => Some(counterexample_from_json(
                    cx,
                    &format!("{path}.counterexample"),
                )?),
                None => None,
            };
            checks.push(CheckReport {
                invariant,
                count: c.get("count").and_then(Value::as_u64).unwrap_or(0),
                counterexample,
            });
        }
        let run_error = match o.get("runError") {
            Some(cx) => Some(counterexample_from_json(cx, "runError")?),
            None => None,
        };
        let mut processes = Vec::new();
        for (i, p) in field(o, "coverage")?
            .as_array()
            .ok_or_else(|| format_error("coverage", "must be a list"))?
            .iter()
            .enumerate()
        {
            let path = format!("coverage[{i}]");
            let p = p
                .as_object()
                .ok_or_else(|| format_error(&path, "must be an object"))?;
            let list = |k: &str| -> Result<Vec<String>, ReportError> {
                strings(field(p, k)?, &format!("{path}.{k}"))
            };
            processes.push(ProcessReach {
                process_id: field(p, "processId")?
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                elements: u64_field(p, "elements")? as usize,
                elements_entered: u64_field(p, "elementsEntered")? as usize,
                flows: u64_field(p, "flows")? as usize,
                flows_taken: u64_field(p, "flowsTaken")? as usize,
                dead_elements: list("deadElements")?,
                dead_flows: list("deadFlows")?,
                dead_tools: list("deadTools")?,
            });
        }
        let shard = o.get("shard").map(|s| Shard {
            index: s.get("index").and_then(Value::as_u64).unwrap_or(0) as usize,
            count: s.get("count").and_then(Value::as_u64).unwrap_or(0) as usize,
        });
        let state_fingerprints = match o.get("stateFingerprints").and_then(Value::as_str) {
            Some(text) => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| format_error("stateFingerprints", e.to_string()))?;
                bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect()
            }
            None => Vec::new(),
        };
        Ok(Report {
            search,
            trajectories: u64_field(o, "trajectories")?,
            cut_at_bound: u64_field(o, "cutAtBound")?,
            distinct_states: u64_field(o, "distinctStates")?,
            pruned: u64_field(o, "pruned")?,
            elapsed: Duration::from_secs_f64(
                o.get("seconds")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0)
                    .max(0.0),
            ),
            cut_off: o.get("cutOff").and_then(Value::as_str).map(str::to_string),
            checks,
            run_errors: u64_field(o, "runErrors")?,
            run_error,
            coverage: ExploredCoverage { processes },
            coverage_file: crate::coverage::CoverageFile::new("exploration", Vec::new()),
            shard,
            state_fingerprints,
        })
    }

    /// Merges the reports of every shard of one exploration into the report of the whole: the
    /// counts added up, distinct states counted once, each invariant's simplest counterexample,
    /// coverage united. Refuses reports that are not the shards 1..N of one space.
    pub fn merge(reports: Vec<Report>) -> Result<Report, ReportError> {
        let Some(first) = reports.first() else {
            return Err(ReportError::Merge("no report to merge".into()));
        };
        let count = first.shard.map_or(0, |s| s.count);
        if count == 0 {
            return Err(ReportError::Merge(
                "the reports were not written by shards (baton explore --shard K/N --json FILE)"
                    .into(),
            ));
        }
        let mut seen = vec![false; count];
        for r in &reports {
            let Some(shard) = r
                .shard
                .filter(|s| s.count == count && s.index >= 1 && s.index <= count)
            else {
                return Err(ReportError::Merge(format!(
                    "the reports are not the shards of one split into {count}"
                )));
            };
            if std::mem::replace(&mut seen[shard.index - 1], true) {
                return Err(ReportError::Merge(format!(
                    "shard {}/{count} is given twice",
                    shard.index
                )));
            }
            if r.checks.len() != first.checks.len()
                || r.checks
                    .iter()
                    .zip(&first.checks)
                    .any(|(a, b)| a.invariant != b.invariant)
                || r.search != first.search
            {
                return Err(ReportError::Merge(
                    "the reports are of different explorations (their invariants or search differ)"
                        .into(),
                ));
            }
        }
        if let Some(missing) = seen.iter().position(|s| !s) {
            return Err(ReportError::Merge(format!(
                "shard {}/{count} is missing",
                missing + 1
            )));
        }
        let mut reports = reports;
        reports.sort_by_key(|r| r.shard.map_or(0, |s| s.index));
        let mut states: Vec<u64> = reports
            .iter()
            .flat_map(|r| r.state_fingerprints.iter().copied())
            .collect();
        states.sort_unstable();
        states.dedup();
        let mut merged = reports[0].clone();
        merged.shard = None;
        merged.state_fingerprints = Vec::new();
        merged.distinct_states = states.len() as u64;
        for r in reports.into_iter().skip(1) {
            merged.trajectories += r.trajectories;
            merged.cut_at_bound += r.cut_at_bound;
            merged.pruned += r.pruned;
            merged.elapsed = merged.elapsed.max(r.elapsed);
            if merged.cut_off.is_none() {
                merged.cut_off = r.cut_off;
            }
            for (mine, theirs) in merged.checks.iter_mut().zip(r.checks) {
                mine.count += theirs.count;
                mine.counterexample = match (mine.counterexample.take(), theirs.counterexample) {
                    (Some(a), Some(b)) => Some(if simpler(&b, &a) { b } else { a }),
                    (a, b) => a.or(b),
                };
            }
            merged.coverage_file =
                crate::coverage::merge([&merged.coverage_file, &r.coverage_file]);
            merged.run_errors += r.run_errors;
            merged.run_error = match (merged.run_error.take(), r.run_error) {
                (Some(a), Some(b)) => Some(if simpler(&b, &a) { b } else { a }),
                (a, b) => a.or(b),
            };
            for theirs in r.coverage.processes {
                match merged
                    .coverage
                    .processes
                    .iter_mut()
                    .find(|p| p.process_id == theirs.process_id)
                {
                    Some(mine) => {
                        mine.dead_elements
                            .retain(|e| theirs.dead_elements.contains(e));
                        mine.dead_flows.retain(|f| theirs.dead_flows.contains(f));
                        mine.dead_tools.retain(|t| theirs.dead_tools.contains(t));
                        mine.elements_entered = mine.elements - mine.dead_elements.len();
                        mine.flows_taken = mine.flows - mine.dead_flows.len();
                    }
                    None => merged.coverage.processes.push(theirs),
                }
            }
        }
        Ok(merged)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let mode = match self.search {
            Search::Exhaustive => "exhaustive".to_string(),
            Search::Sample { seed, runs } => {
                format!("{runs} sampled run{}, seed {seed}", plural(runs as usize))
            }
        };
        let _ = writeln!(out, "exploration ({mode}): {}", self.counts());
        let _ = writeln!(
            out,
            "time: {:.2} s, {:.0} trajectories/s",
            self.elapsed.as_secs_f64(),
            self.trajectories_per_second()
        );
        for c in &self.checks {
            let verdict = match (c.invariant.is_goal(), c.holds()) {
                (true, true) => format!(
                    "reached on {} explored path{}",
                    c.count,
                    plural(c.count as usize)
                ),
                (true, false) => "NOT REACHED by any explored run".to_string(),
                (false, true) => "holds".to_string(),
                (false, false) => {
                    format!(
                        "VIOLATED on {} explored path{}",
                        c.count,
                        plural(c.count as usize)
                    )
                }
            };
            let _ = writeln!(out, "\n{}: {verdict}", c.invariant);
            if let Some(cx) = &c.counterexample
                && (!c.holds() || c.invariant.is_goal())
            {
                cx.render(&mut out, "  ");
            }
        }
        if self.run_errors > 0 {
            let _ = writeln!(
                out,
                "\nrun errors in {} run{}",
                self.run_errors,
                plural(self.run_errors as usize)
            );
            if let Some(cx) = &self.run_error {
                cx.render(&mut out, "  ");
            }
        }
        for p in &self.coverage.processes {
            let _ = writeln!(
                out,
                "\ncoverage of \"{}\" over every explored run: {}/{} elements, {}/{} flows",
                p.process_id, p.elements_entered, p.elements, p.flows_taken, p.flows
            );
            if !p.dead_tools.is_empty() {
                let _ = writeln!(
                    out,
                    "  tools no choice reaches: {}",
                    p.dead_tools.join(", ")
                );
            }
            if !p.dead_elements.is_empty() {
                let _ = writeln!(
                    out,
                    "  elements no choice reaches: {}",
                    p.dead_elements.join(", ")
                );
            }
            if !p.dead_flows.is_empty() {
                let _ = writeln!(out, "  flows no choice takes: {}", p.dead_flows.join(", "));
            }
        }
        f.write_str(out.trim_end())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The report of a search's outcome; counterexamples shrunk and replayed from `pristine`.
pub(crate) fn build(pristine: &Fork, outcome: Outcome, space: &Space, elapsed: Duration) -> Report {
    let Outcome { tally, stopped } = outcome;
    let plan = pristine.plan.clone();
    let cut_off = stopped.map(|stop| {
        let why = match stop {
            Stop::Trajectories => format!(
                "the bound of {} trajector{} was reached",
                space.bounds.trajectories,
                if space.bounds.trajectories == 1 {
                    "y"
                } else {
                    "ies"
                }
            ),
            Stop::Time => "the time limit was reached".to_string(),
            Stop::Fatal(e) => e.to_string(),
        };
        match &tally.cut {
            Some(at) if !at.is_empty() => {
                let mut steps = describe(pristine, &at.iter().map(|c| c.index).collect::<Vec<_>>());
                steps.truncate(at.len());
                format!(
                    "{why}; the first part left unexplored begins after: {}",
                    steps.join("; ")
                )
            }
            _ => why,
        }
    });
    let checks = plan
        .checks
        .iter()
        .enumerate()
        .map(|(i, check)| {
            let violations = &tally.checks[i];
            let counterexample = violations.best.as_ref().map(|found| {
                let shrunk = shrink(pristine, found, |t| t.checks[i].best.clone());
                counterexample(pristine, &plan, &shrunk, Some(&check.invariant))
            });
            CheckReport {
                invariant: check.invariant.clone(),
                count: violations.count,
                counterexample,
            }
        })
        .collect();
    let run_error = tally.run_errors.best.as_ref().map(|found| {
        let shrunk = shrink(pristine, found, |t| t.run_errors.best.clone());
        counterexample(pristine, &plan, &shrunk, None)
    });
    Report {
        search: space.search,
        trajectories: tally.trajectories,
        cut_at_bound: tally.cut_at_bound,
        distinct_states: tally.states.len() as u64,
        pruned: tally.pruned,
        elapsed,
        cut_off,
        checks,
        run_errors: tally.run_errors.count,
        run_error,
        coverage: coverage(pristine, &tally),
        coverage_file: coverage_file(pristine, &tally, space),
        shard: space.shard,
        state_fingerprints: if space.shard.is_some() {
            let mut states: Vec<u64> = tally.states.iter().copied().collect();
            states.sort_unstable();
            states
        } else {
            Vec::new()
        },
    }
}

/// The steps of a trajectory, in words.
fn describe(pristine: &Fork, choices: &[u32]) -> Vec<String> {
    let mut steps = Vec::new();
    replay(
        pristine,
        choices,
        &mut |fork, i| {
            if !fork.is_forced() {
                steps.push(fork.describe(i));
            }
        },
        &mut |_| {},
    );
    steps
}

/// Replays a found trajectory with everything recorded and writes it up.
fn counterexample(
    pristine: &Fork,
    plan: &Plan,
    found: &Found,
    invariant: Option<&Invariant>,
) -> Counterexample {
    let choices: Vec<u32> = found.choices.iter().map(|c| c.index).collect();
    let mut recording = pristine.clone();
    recording.recorder = Some(Box::default());
    let mut reader = TraceReader::from_now(&recording.engine);
    // The trace with the model calls in their places: a call is answered at the choice, before
    // the step that follows it.
    let timeline: RefCell<Vec<Moment>> = RefCell::new(Vec::new());
    let mut steps = Vec::new();
    let (end, _) = replay(
        &recording,
        &choices,
        &mut |fork, i| {
            if !fork.is_forced() {
                steps.push(fork.describe(i));
            }
            if let Some(agent) = fork.asking_agent() {
                timeline.borrow_mut().push(Moment::Call(agent));
            }
        },
        &mut |engine| {
            let events = reader.read(engine);
            timeline
                .borrow_mut()
                .extend(events.into_iter().map(|e| Moment::Event(Box::new(e))));
        },
    );
    let timeline = timeline.into_inner();
    let trace: Vec<TraceEvent> = timeline
        .iter()
        .filter_map(|m| match m {
            Moment::Event(e) => Some((**e).clone()),
            Moment::Call(_) => None,
        })
        .collect();
    let recorder = end.recorder.clone().unwrap_or_default();
    let continuation = steps.split_off(found.choices.len().min(steps.len()));
    let (model_calls, tool_calls, _, _) = search::simplicity(&found.choices);
    let cassettes = recordings(pristine, plan, &timeline, &recorder.calls);
    let at_answer = violation_point(pristine, &choices, found, invariant);
    let case = cpt_case(
        plan,
        &recorder.answers,
        &recorder.calls,
        invariant,
        at_answer,
        &found.message,
    )
    .map_err(|reason| CaseError { reason });
    Counterexample {
        message: found.message.clone(),
        steps,
        continuation,
        choices,
        model_calls,
        tool_calls,
        trace,
        cassettes,
        case,
    }
}

/// A moment of a replayed run: a trace event, or a model call of an agent (by index).
enum Moment {
    Event(Box<TraceEvent>),
    Call(usize),
}

/// A cassette (format 2) per agent that made model calls: each call's request, its turn, and
/// the trace until the agent's next call.
fn recordings(
    pristine: &Fork,
    plan: &Plan,
    timeline: &[Moment],
    calls: &[RecordedModelCall],
) -> Vec<Recording> {
    let engine = &pristine.engine;
    let mut out = Vec::new();
    for (a, agent) in plan.agents.iter().enumerate() {
        if !calls.iter().any(|c| c.agent == a) {
            continue;
        }
        let id = &agent.element_id;
        let process = agent_process(engine, id).map(|process_id| RecordedProcess {
            id: process_id,
            definition_hash: agent_definition_hash(engine, id),
        });
        let mut recorder = Recorder::new(
            id,
            process,
            None,
            Normalizer::standard(),
            Redactor::standard(),
        );
        let mut mine = calls.iter().filter(|c| c.agent == a);
        let mut started = false;
        for moment in timeline {
            match moment {
                Moment::Call(who) if *who == a => {
                    if let Some(call) = mine.next() {
                        // In memory: nothing is written, nothing can fail.
                        let _ = recorder.record_call(&request_json(&call.request), &call.turn);
                        started = true;
                    }
                }
                Moment::Call(_) => {}
                Moment::Event(event) if started => {
                    let _ = recorder.extend_trajectory([(**event).clone()]);
                }
                Moment::Event(_) => {}
            }
        }
        let mut recording = recorder.recording().clone();
        recording.baton = Some(env!("CARGO_PKG_VERSION").to_string());
        out.push(recording);
    }
    out
}

/// After how many tool answers the violation shows (the step a CPT case asserts after).
fn violation_point(
    pristine: &Fork,
    choices: &[u32],
    found: &Found,
    invariant: Option<&Invariant>,
) -> usize {
    let mut recording = pristine.clone();
    recording.recorder = Some(Box::default());
    let mut fork = recording;
    let mut report = super::fork::StepReport::default();
    fork.start(&mut |_| {}, &mut report);
    let mut k = 0;
    let matches = |report: &super::fork::StepReport, fork: &Fork| {
        report.broken.iter().any(|b| {
            invariant.is_none_or(|inv| fork.plan.checks[b.invariant].invariant == *inv)
                && b.message == found.message
        }) || (invariant.is_none() && fork.errors.contains(&found.message))
    };
    loop {
        if matches(&report, &fork) {
            break;
        }
        report.broken.clear();
        let super::fork::Status::Choice(n) = fork.status() else {
            break;
        };
        let i = if fork.is_forced() {
            0
        } else {
            let i = choices.get(k).copied().filter(|&i| i < n).unwrap_or(0);
            k += 1;
            i
        };
        fork.decide(i, &mut |_| {}, &mut report);
    }
    fork.recorder.map_or(0, |r| r.answers.len())
}

/// A CPT test case that replays the trajectory: the fixed mocks as mocks, the agents by their
/// turns, the tool jobs completed (or failed with a BPMN error) one by one in the order they
/// finished, and after the step that broke the invariant, an assertion that fails for it.
fn cpt_case(
    plan: &Plan,
    answers: &[ToolAnswer],
    calls: &[RecordedModelCall],
    invariant: Option<&Invariant>,
    at_answer: usize,
    message: &str,
) -> Result<Value, String> {
    let mut instructions: Vec<Value> = Vec::new();
    let explicit: Vec<&str> = answers.iter().map(|a| a.job_type.as_str()).collect();
    for mock in &plan.mocks {
        let explicit_type = plan.tool_job_types.iter().any(|t| **t == *mock.job_type)
            || explicit.contains(&mock.job_type.as_str());
        match &mock.answers {
            _ if explicit_type => {}
            MockAnswers::Outcomes(_) => {}
            MockAnswers::Fixed(answer) => {
                instructions.push(mock_instruction(&mock.job_type, answer)?)
            }
            MockAnswers::Sequence { .. } => {
                return Err(format!(
                    "the mock of job type \"{}\" answers in a sequence, which a CPT mock cannot",
                    mock.job_type
                ));
            }
        }
    }
    for (a, agent) in plan.agents.iter().enumerate() {
        let turns: Vec<Value> = calls
            .iter()
            .filter(|c| c.agent == a)
            .map(|c| c.turn.to_json())
            .collect();
        if turns.is_empty() {
            continue;
        }
        instructions
            .push(json!({"type": "MOCK_AI_AGENT", "elementId": agent.element_id, "turns": turns}));
    }
    let variables: Map<String, Value> = plan.variables.clone().into_iter().collect();
    instructions.push(json!({
        "type": "CREATE_PROCESS_INSTANCE",
        "processDefinitionSelector": {"processDefinitionId": plan.process_id},
        "variables": variables,
    }));
    let assertion = invariant.map(|inv| assertion(plan, inv)).transpose()?;
    for (i, answer) in answers.iter().enumerate() {
        if i == at_answer
            && let Some(assertion) = &assertion
        {
            instructions.push(assertion.clone());
        }
        instructions.push(answer_instruction(answer)?);
    }
    if at_answer >= answers.len()
        && let Some(assertion) = assertion
    {
        instructions.push(assertion);
    }
    let name = match invariant {
        Some(inv) if inv.is_goal() => format!("explored: {inv}"),
        Some(inv) => format!("explored: {inv} (counterexample)"),
        None => "explored: a run error".to_string(),
    };
    Ok(json!({
        "name": name,
        "description": format!("Found by baton explore: {message}"),
        "instructions": instructions,
    }))
}

fn mock_instruction(job_type: &str, answer: &Answer) -> Result<Value, String> {
    match answer {
        Answer::Complete(vars) => Ok(json!({
            "type": "MOCK_JOB_WORKER_COMPLETE_JOB",
            "jobType": job_type,
            "variables": Value::Object(vars.clone().into_iter().collect()),
        })),
        Answer::CompleteWithExampleData => Ok(json!({
            "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": job_type, "useExampleData": true,
        })),
        Answer::ThrowError {
            code,
            message,
            variables,
        } => Ok(json!({
            "type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
            "jobType": job_type,
            "errorCode": code,
            "errorMessage": message,
            "variables": Value::Object(variables.clone().into_iter().collect()),
        })),
        other => Err(format!(
            "the mock of job type \"{job_type}\" answers \"{}\", which a CPT mock cannot",
            other.describe()
        )),
    }
}

fn answer_instruction(answer: &ToolAnswer) -> Result<Value, String> {
    let selector = json!({"elementId": answer.element_id});
    match &answer.answer {
        Answer::Complete(vars) => Ok(json!({
            "type": "COMPLETE_JOB",
            "jobSelector": selector,
            "variables": Value::Object(vars.clone().into_iter().collect()),
        })),
        Answer::CompleteWithExampleData => Ok(json!({
            "type": "COMPLETE_JOB", "jobSelector": selector, "useExampleData": true,
        })),
        Answer::ThrowError {
            code,
            message,
            variables,
        } => Ok(json!({
            "type": "THROW_BPMN_ERROR_FROM_JOB",
            "jobSelector": selector,
            "errorCode": code,
            "errorMessage": message,
            "variables": Value::Object(variables.clone().into_iter().collect()),
        })),
        other => Err(format!(
            "the job at \"{}\" answers \"{}\", which no CPT instruction does",
            answer.element_id,
            other.describe()
        )),
    }
}

/// The CPT assertion that holds exactly while the invariant does, at the point it broke.
fn assertion(plan: &Plan, invariant: &Invariant) -> Result<Value, String> {
    let selector = json!({"processDefinitionId": plan.process_id});
    Ok(match invariant {
        Invariant::NeverBefore { before, .. } => json!({
            "type": "ASSERT_ELEMENT_INSTANCES",
            "processInstanceSelector": selector,
            "elementSelectors": [{"elementId": before}],
            "state": "IS_COMPLETED",
        }),
        Invariant::NoIncident | Invariant::NoIncidentAt { .. } => json!({
            "type": "ASSERT_PROCESS_INSTANCE",
            "processInstanceSelector": selector,
            "hasActiveIncidents": false,
        }),
        Invariant::AtMostOncePerKey { job_type } => {
            return Err(format!(
                "a CPT case records side effects of \"{job_type}\" for a mock worker's completions only, and its replay completes the tool jobs itself (COMPLETE_JOB, in the order they finished): the report shows the trajectory"
            ));
        }
        Invariant::Condition { expression } => {
            let variables = baton_feel::Expression::parse(expression)
                .map(|e| e.referenced_variables())
                .unwrap_or_default();
            let [variable] = variables.as_slice() else {
                return Err(format!(
                    "the condition {expression} reads {} variables; a CPT assertion (ASSERT_VARIABLE) reads one",
                    variables.len()
                ));
            };
            json!({
                "type": "ASSERT_VARIABLE",
                "processInstanceSelector": selector,
                "variableName": variable,
                "satisfiesExpression": expression,
            })
        }
        Invariant::EndsIn(states) => match states.first() {
            Some(EndState::Completed) => json!({
                "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": selector, "state": "IS_COMPLETED",
            }),
            Some(EndState::Terminated) => json!({
                "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": selector, "state": "IS_TERMINATED",
            }),
            Some(EndState::WaitingAt(element)) => json!({
                "type": "ASSERT_ELEMENT_INSTANCES",
                "processInstanceSelector": selector,
                "elementSelectors": [{"elementId": element}],
                "state": "IS_ACTIVE",
            }),
            Some(EndState::Incident) => json!({
                "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": selector, "hasActiveIncidents": true,
            }),
            None => return Err("the end states are empty".into()),
        },
        Invariant::Reaches { element } => json!({
            "type": "ASSERT_ELEMENT_INSTANCES",
            "processInstanceSelector": selector,
            "elementSelectors": [{"elementId": element}],
            "state": "IS_COMPLETED",
        }),
    })
}

/// The coverage of every explored run as a coverage file, named after the exploration.
fn coverage_file(pristine: &Fork, tally: &Tally, space: &Space) -> crate::coverage::CoverageFile {
    let mut history = crate::history::History::default();
    history.hits = tally.coverage.processes.clone();
    let name = match space.shard {
        Some(s) => format!(
            "explore {} (shard {}/{})",
            space.process_id, s.index, s.count
        ),
        None => format!("explore {}", space.process_id),
    };
    crate::coverage::CoverageFile::new(name, crate::coverage::collect(&pristine.engine, &history))
}

/// What no explored run reached, per process with an explored run.
fn coverage(pristine: &Fork, tally: &Tally) -> ExploredCoverage {
    let engine = &pristine.engine;
    let mut processes = Vec::new();
    for (index, process) in engine.deployed_processes().enumerate() {
        let Some(hits) = tally.coverage.processes.get(index) else {
            continue;
        };
        if hits.elements.is_empty() {
            continue;
        }
        let model = process.model();
        let mut reach = ProcessReach {
            process_id: process.bpmn_process_id().to_string(),
            elements: model.elements.len(),
            flows: model.flows.len(),
            ..ProcessReach::default()
        };
        let tools = crate::coverage::tools_of(process);
        for (i, element) in model.elements.iter().enumerate() {
            if hits.elements[i] {
                reach.elements_entered += 1;
            } else {
                let id = element.id.to_string();
                if tools.contains(&id) {
                    reach.dead_tools.push(id.clone());
                }
                reach.dead_elements.push(id);
            }
        }
        for (i, flow) in model.flows.iter().enumerate() {
            if hits.flows[i] {
                reach.flows_taken += 1;
            } else {
                reach.dead_flows.push(flow.id.to_string());
            }
        }
        processes.push(reach);
    }
    ExploredCoverage { processes }
}
