//! The coverage data model, as written to and read from coverage files (serde).
//!
//! One file per test: [`CoverageFile`] says which test wrote it and, per process, everything
//! needed to report without the BPMN at hand: the source file, every element id with its kind,
//! every sequence flow, the tools, and what was covered. Files from separate test processes
//! (cargo-nextest) and CI shards merge by process id and model hash ([`merge`]).

use serde::{Deserialize, Serialize};

/// The `format` field of every coverage file.
pub const COVERAGE_FORMAT: &str = "baton-coverage";
/// The version of the file format this library writes and reads.
pub const COVERAGE_VERSION: u32 = 1;

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
}

/// The coverage of one deployed process model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProcessCoverageData {
    /// The BPMN process id.
    pub process_id: String,
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
    /// Sequence flows taken at least once, in model order.
    pub taken_flows: Vec<String>,
    /// The process's picture from its BPMN DI, for the HTML report; absent when the BPMN has
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<super::diagram::Diagram>,
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
        }
    }

    /// Parses a coverage file, checking its format and version.
    pub fn from_json(text: &str) -> Result<CoverageFile, String> {
        let file: CoverageFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if file.format != COVERAGE_FORMAT {
            return Err(format!(
                "format is \"{}\", expected \"{COVERAGE_FORMAT}\"",
                file.format
            ));
        }
        if file.version != COVERAGE_VERSION {
            return Err(format!(
                "version {} is not supported (this baton reads version {COVERAGE_VERSION})",
                file.version
            ));
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
    for file in files {
        for t in &file.tests {
            if !tests.contains(t) {
                tests.push(t.clone());
            }
        }
        for p in &file.processes {
            merge_process(&mut processes, p);
        }
    }
    processes.sort_by(|a, b| {
        a.process_id
            .cmp(&b.process_id)
            .then(a.model_hash.cmp(&b.model_hash))
    });
    CoverageFile {
        format: COVERAGE_FORMAT.to_owned(),
        version: COVERAGE_VERSION,
        tests,
        processes,
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
            q.taken_flows = in_model_order(
                q.flows.iter().map(|f| &f.id),
                &q.taken_flows,
                &p.taken_flows,
            );
            if q.diagram.is_none() {
                q.diagram.clone_from(&p.diagram);
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
