//! The report as JSON (keys in a fixed order), and read back (a shard's report file).

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::super::space::{Search, Shard};
use super::{CaseError, CheckReport, Counterexample, ExploredCoverage, ProcessReach, Report};

use crate::agent::recording::Recording;

impl Report {
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
                    crate::invariants::invariant_to_json(&c.invariant),
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
            let invariant = crate::invariants::invariant_from_json(definition)
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
