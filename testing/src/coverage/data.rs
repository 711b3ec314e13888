//! The coverage data model, as written to and read from coverage files (serde).
//!
//! One file per test: [`CoverageFile`] says which test wrote it and, per process, everything
//! needed to report without the BPMN at hand: the source file, every element id with its kind,
//! every sequence flow, the tools, what was covered, and the BPMN itself (for Camunda's coverage
//! viewer); per DMN decision table, its rules and which of them matched. Files from separate
//! test processes (cargo-nextest) and CI shards merge by process (decision) id and model hash
//! ([`merge`]).

use serde::{Deserialize, Serialize};

/// The `format` field of every coverage file.
pub const COVERAGE_FORMAT: &str = "baton-coverage";
/// The version of the file format this library writes. Version 1 files (no decisions, no
/// completed elements, no BPMN text) are read too.
pub const COVERAGE_VERSION: u32 = 2;

/// Why a text is no coverage file this baton reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoverageFileError {
    /// Not JSON of the file's shape (serde's message, with line and column).
    #[error("{0}")]
    Json(String),
    #[error("format is \"{found}\", expected \"{COVERAGE_FORMAT}\"")]
    Format { found: String },
    #[error("version {found} is not supported (this baton reads versions 1 to {COVERAGE_VERSION})")]
    Version { found: u32 },
}

/// One coverage file: what one test covered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CoverageFile {
    /// Always [`COVERAGE_FORMAT`].
    pub format: String,
    /// [`COVERAGE_VERSION`].
    pub version: u32,
    /// The tests whose coverage this is (one for a test's own file; several once merged).
    pub tests: Vec<String>,
    pub processes: Vec<ProcessCoverageData>,
    /// Every deployed DMN decision table (version 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<DecisionCoverageData>,
}

/// The coverage of one deployed process model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProcessCoverageData {
    /// The BPMN process id.
    pub process_id: String,
    /// The process's name, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The deployed version (of the first test that covered this model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// 16 hex digits identifying the model (ids, kinds and flows); two versions of a process
    /// are reported apart.
    pub model_hash: String,
    /// The resource the process was deployed from (usually its path).
    pub source: String,
    /// Every flow node, nested ones included, in model order.
    pub elements: Vec<ElementInfo>,
    /// Every sequence flow, in model order.
    pub flows: Vec<FlowInfo>,
    /// The elements an AI agent (a job-worker ad-hoc sub-process) can activate.
    pub tools: Vec<String>,
    /// Elements entered at least once, in model order.
    pub covered_elements: Vec<String>,
    /// Elements completed at least once, in model order: CPT's `completedElements` (an
    /// element still active, or terminated, is entered but not completed).
    #[serde(default)]
    pub completed_elements: Vec<String>,
    /// Sequence flows taken at least once, in model order.
    pub taken_flows: Vec<String>,
    /// The text of the BPMN resource, for viewers that draw it themselves (CPT's coverage
    /// report); absent for models built in code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xml: Option<String>,
    /// The process's picture from its BPMN DI, for the HTML report; absent when the BPMN has
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<super::diagram::Diagram>,
}

/// The coverage of one deployed DMN decision table: a rule is covered when it matched, in a
/// business rule task's evaluation, a standalone one, or as a decision another one required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecisionCoverageData {
    /// The decision id.
    pub decision_id: String,
    /// The decision's name (empty when it has none).
    pub name: String,
    /// The deployed version (of the first test that covered this model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// 16 hex digits identifying the table (columns and rules).
    pub model_hash: String,
    /// The resource the decision was deployed from.
    pub source: String,
    /// The hit policy as DMN writes it (`UNIQUE`, `FIRST`, `RULE ORDER`, `COLLECT SUM`, ...).
    pub hit_policy: String,
    /// The input columns: their labels, else their expressions.
    pub inputs: Vec<String>,
    /// The output columns: their labels, else their names.
    pub outputs: Vec<String>,
    /// Every rule, in table order.
    pub rules: Vec<RuleInfo>,
    /// Whether a test evaluated it (CPT reports the decisions evaluated).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evaluated: bool,
    /// The rules that matched at least once: 1-based positions, in table order.
    pub matched_rules: Vec<u32>,
    /// The text of the DMN resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xml: Option<String>,
}

/// A rule of a decision table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuleInfo {
    /// The rule's id as Zeebe reports it (a `ZB_SYNTH_RULE_ID_...` surrogate when the DMN has
    /// none).
    pub id: String,
    /// The input entries' text (`-` for an empty one).
    pub inputs: Vec<String>,
    /// The output entries' text.
    pub outputs: Vec<String>,
}

/// A flow node of the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElementInfo {
    pub id: String,
    /// Zeebe's element type, e.g. `SERVICE_TASK`.
    pub kind: String,
}

/// A sequence flow of the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowInfo {
    pub id: String,
    pub source: String,
    pub target: String,
}

impl CoverageFile {
    /// A file for one test.
    pub fn new(test: impl Into<String>, processes: Vec<ProcessCoverageData>) -> Self {
        CoverageFile {
            format: COVERAGE_FORMAT.to_owned(),
            version: COVERAGE_VERSION,
            tests: vec![test.into()],
            processes,
            decisions: Vec::new(),
        }
    }

    /// The file with the decision tables' coverage too.
    pub fn with_decisions(mut self, decisions: Vec<DecisionCoverageData>) -> Self {
        self.decisions = decisions;
        self
    }

    /// Parses a coverage file, checking its format and version.
    pub fn from_json(text: &str) -> Result<CoverageFile, CoverageFileError> {
        let file: CoverageFile =
            serde_json::from_str(text).map_err(|e| CoverageFileError::Json(e.to_string()))?;
        if file.format != COVERAGE_FORMAT {
            return Err(CoverageFileError::Format { found: file.format });
        }
        if !(1..=COVERAGE_VERSION).contains(&file.version) {
            return Err(CoverageFileError::Version {
                found: file.version,
            });
        }
        Ok(file)
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("coverage serializes");
        s.push('\n');
        s
    }
}

/// Unions coverage: per process id and model hash, an element is covered (a flow taken) when
/// any input covered it. Processes are sorted by id, then hash; tests are listed in order,
/// without repeats.
pub fn merge<'a>(files: impl IntoIterator<Item = &'a CoverageFile>) -> CoverageFile {
    let mut tests: Vec<String> = Vec::new();
    let mut processes: Vec<ProcessCoverageData> = Vec::new();
    let mut decisions: Vec<DecisionCoverageData> = Vec::new();
    for file in files {
        for t in &file.tests {
            if !tests.contains(t) {
                tests.push(t.clone());
            }
        }
        for p in &file.processes {
            merge_process(&mut processes, p);
        }
        for d in &file.decisions {
            merge_decision(&mut decisions, d);
        }
    }
    processes.sort_by(|a, b| {
        a.process_id
            .cmp(&b.process_id)
            .then(a.model_hash.cmp(&b.model_hash))
    });
    decisions.sort_by(|a, b| {
        a.decision_id
            .cmp(&b.decision_id)
            .then(a.model_hash.cmp(&b.model_hash))
    });
    CoverageFile {
        format: COVERAGE_FORMAT.to_owned(),
        version: COVERAGE_VERSION,
        tests,
        processes,
        decisions,
    }
}

pub(crate) fn merge_decision(into: &mut Vec<DecisionCoverageData>, d: &DecisionCoverageData) {
    match into
        .iter_mut()
        .find(|q| q.decision_id == d.decision_id && q.model_hash == d.model_hash)
    {
        Some(q) => {
            let mut matched = q.matched_rules.clone();
            matched.extend(
                d.matched_rules
                    .iter()
                    .filter(|r| !q.matched_rules.contains(r)),
            );
            matched.sort_unstable();
            q.matched_rules = matched;
            q.evaluated |= d.evaluated;
            if q.xml.is_none() {
                q.xml.clone_from(&d.xml);
            }
        }
        None => into.push(d.clone()),
    }
}

pub(crate) fn merge_process(into: &mut Vec<ProcessCoverageData>, p: &ProcessCoverageData) {
    match into
        .iter_mut()
        .find(|q| q.process_id == p.process_id && q.model_hash == p.model_hash)
    {
        Some(q) => {
            q.covered_elements = in_model_order(
                q.elements.iter().map(|e| &e.id),
                &q.covered_elements,
                &p.covered_elements,
            );
            q.completed_elements = in_model_order(
                q.elements.iter().map(|e| &e.id),
                &q.completed_elements,
                &p.completed_elements,
            );
            q.taken_flows = in_model_order(
                q.flows.iter().map(|f| &f.id),
                &q.taken_flows,
                &p.taken_flows,
            );
            if q.diagram.is_none() {
                q.diagram.clone_from(&p.diagram);
            }
            if q.xml.is_none() {
                q.xml.clone_from(&p.xml);
            }
            if q.name.is_none() {
                q.name.clone_from(&p.name);
            }
            if q.version.is_none() {
                q.version = p.version;
            }
        }
        None => into.push(p.clone()),
    }
}

fn in_model_order<'a>(
    order: impl Iterator<Item = &'a String>,
    a: &[String],
    b: &[String],
) -> Vec<String> {
    order
        .filter(|id| a.contains(id) || b.contains(id))
        .cloned()
        .collect()
}

/// 64-bit FNV-1a: a stable hash (same input, same value, on every machine and version).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
