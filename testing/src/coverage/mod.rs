//! Coverage: which elements were entered, which sequence flows were taken (recorded from the
//! engine's log, not inferred: also the flow an event-based gateway took, which CPT has to
//! infer) and which AI-agent tools were called, per process; which rules of each DMN decision
//! table matched.
//!
//! - [`data`] — the serde model of coverage files and [`data::merge`].
//! - [`diagram`] — the picture of a process (its BPMN DI) that a coverage file carries.
//! - [`decisions`] — DMN rule coverage.
//! - [`svg`] — a picture drawn with coverage marked; [`html`] — the report page.
//! - [`cpt_json`] — the coverage as CPT's coverage report JSON, for Camunda's viewer.
//! - this module — collecting from a test, the counts ([`CoverageReport`]), the text report in
//!   the seed's format, writing one file per test and merging a folder of them.

pub mod cpt_json;
pub mod data;
pub mod decisions;
pub mod diagram;
pub mod html;
pub mod svg;

use std::fmt;
use std::path::{Path, PathBuf};

use baton_engine::runtime::{Engine, ExecutableProcess};

use crate::history::History;
pub use data::{
    COVERAGE_FORMAT, COVERAGE_VERSION, CoverageFile, CoverageFileError, DecisionCoverageData,
    ElementInfo, FlowInfo, ProcessCoverageData, RuleInfo, merge,
};
pub use decisions::DecisionCoverage;

/// Covered out of total, with the ids not covered.
#[derive(Debug, Clone, PartialEq)]
pub struct CoverageCount {
    pub total: usize,
    pub covered: usize,
    /// Covered / total × 100, one decimal; 100 when total is 0.
    pub percent: f64,
    /// Ids not covered, in model order.
    pub uncovered: Vec<String>,
}

impl CoverageCount {
    fn of(all: &[&str], covered: &[String]) -> CoverageCount {
        let uncovered: Vec<String> = all
            .iter()
            .filter(|id| !covered.iter().any(|c| c == *id))
            .map(|id| id.to_string())
            .collect();
        CoverageCount::from_counts(all.len(), all.len() - uncovered.len(), uncovered)
    }

    fn from_counts(total: usize, covered: usize, uncovered: Vec<String>) -> CoverageCount {
        let percent = if total == 0 {
            100.0
        } else {
            (covered as f64 * 1000.0 / total as f64).round() / 10.0
        };
        CoverageCount {
            total,
            covered,
            percent,
            uncovered,
        }
    }

    /// The counts of several processes added up; `uncovered` lists every process's ids, in
    /// process order.
    fn sum<'a>(counts: impl Iterator<Item = &'a CoverageCount>) -> CoverageCount {
        let (mut total, mut covered, mut uncovered) = (0, 0, Vec::new());
        for c in counts {
            total += c.total;
            covered += c.covered;
            uncovered.extend(c.uncovered.iter().cloned());
        }
        CoverageCount::from_counts(total, covered, uncovered)
    }
}

impl fmt::Display for CoverageCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} ({:.1}%)", self.covered, self.total, self.percent)
    }
}

/// The coverage of one process.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessCoverage {
    pub process_id: String,
    /// The resource it was deployed from.
    pub source: String,
    pub elements: CoverageCount,
    pub flows: CoverageCount,
    pub tools: CoverageCount,
}

/// Coverage per process and decision table, and in total. `Display` is the text report:
///
/// ```text
/// BPMN coverage
///   ai-agent-tool-loop  elements 7/13 (53.8%)  flows 4/8 (50.0%)  tools 2/3 (66.7%)
///     elements not reached: create-ticket, agent-failed, queue-for-human
///     flows not taken: Flow_3, Flow_7
///     tools never called: create-ticket
/// DMN coverage
///   discount  rules 2/4 (50.0%)
///     rules never matched: #3 gold-rule, #4
/// ```
///
/// The `tools` column appears for processes with tools; a `total` line when there are several
/// processes; the DMN part when decision tables were deployed.
#[derive(Debug, Clone, PartialEq)]
pub struct CoverageReport {
    pub processes: Vec<ProcessCoverage>,
    /// The sums over the processes (`uncovered`: every process's ids, in process order).
    pub elements: CoverageCount,
    pub flows: CoverageCount,
    pub tools: CoverageCount,
    /// Per decision table.
    pub decisions: Vec<DecisionCoverage>,
    /// The sum over the decision tables.
    pub rules: CoverageCount,
}

impl CoverageReport {
    /// The counts of a coverage file (a test's, or merged files'): processes and decisions.
    pub fn from_file(file: &CoverageFile) -> CoverageReport {
        CoverageReport::from_data(&file.processes).with_decisions(&file.decisions)
    }

    fn with_decisions(mut self, decisions: &[DecisionCoverageData]) -> CoverageReport {
        self.decisions = decisions.iter().map(DecisionCoverage::of).collect();
        self.rules = CoverageCount::sum(self.decisions.iter().map(|d| &d.rules));
        self
    }

    /// The counts of processes' coverage data (a test's, or merged files').
    pub fn from_data(data: &[ProcessCoverageData]) -> CoverageReport {
        let processes: Vec<ProcessCoverage> = data
            .iter()
            .map(|p| {
                let elements: Vec<&str> = p.elements.iter().map(|e| e.id.as_str()).collect();
                let flows: Vec<&str> = p.flows.iter().map(|f| f.id.as_str()).collect();
                let tools: Vec<&str> = p.tools.iter().map(String::as_str).collect();
                ProcessCoverage {
                    process_id: p.process_id.clone(),
                    source: p.source.clone(),
                    elements: CoverageCount::of(&elements, &p.covered_elements),
                    flows: CoverageCount::of(&flows, &p.taken_flows),
                    tools: CoverageCount::of(&tools, &p.covered_elements),
                }
            })
            .collect();
        CoverageReport {
            elements: CoverageCount::sum(processes.iter().map(|p| &p.elements)),
            flows: CoverageCount::sum(processes.iter().map(|p| &p.flows)),
            tools: CoverageCount::sum(processes.iter().map(|p| &p.tools)),
            processes,
            decisions: Vec::new(),
            rules: CoverageCount::from_counts(0, 0, Vec::new()),
        }
    }

    /// The coverage of one process id.
    pub fn process(&self, process_id: &str) -> Option<&ProcessCoverage> {
        self.processes.iter().find(|p| p.process_id == process_id)
    }

    /// The coverage of one decision id.
    pub fn decision(&self, decision_id: &str) -> Option<&DecisionCoverage> {
        self.decisions.iter().find(|d| d.decision_id == decision_id)
    }
}

impl fmt::Display for CoverageReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "BPMN coverage")?;
        for p in &self.processes {
            write!(
                f,
                "  {}  elements {}  flows {}",
                p.process_id, p.elements, p.flows
            )?;
            if p.tools.total > 0 {
                write!(f, "  tools {}", p.tools)?;
            }
            writeln!(f)?;
            if !p.elements.uncovered.is_empty() {
                writeln!(
                    f,
                    "    elements not reached: {}",
                    p.elements.uncovered.join(", ")
                )?;
            }
            if !p.flows.uncovered.is_empty() {
                writeln!(f, "    flows not taken: {}", p.flows.uncovered.join(", "))?;
            }
            if !p.tools.uncovered.is_empty() {
                writeln!(
                    f,
                    "    tools never called: {}",
                    p.tools.uncovered.join(", ")
                )?;
            }
        }
        if self.processes.len() > 1 {
            write!(
                f,
                "  total  elements {}  flows {}",
                self.elements, self.flows
            )?;
            if self.tools.total > 0 {
                write!(f, "  tools {}", self.tools)?;
            }
            writeln!(f)?;
        }
        if !self.decisions.is_empty() {
            writeln!(f, "DMN coverage")?;
            for d in &self.decisions {
                writeln!(f, "  {}  rules {}", d.decision_id, d.rules)?;
                if !d.rules.uncovered.is_empty() {
                    writeln!(
                        f,
                        "    rules never matched: {}",
                        d.rules.uncovered.join(", ")
                    )?;
                }
            }
            if self.decisions.len() > 1 {
                writeln!(f, "  total  rules {}", self.rules)?;
            }
        }
        Ok(())
    }
}

/// The tools of a process: the activatable children of every job-worker ad-hoc sub-process.
pub fn tools_of(p: &ExecutableProcess) -> Vec<String> {
    p.ad_hoc_tools()
        .map(|t| p.element_id(t).to_string())
        .collect()
}

/// A stable hash of a process model's structure: ids, kinds, flows.
fn model_hash(p: &ExecutableProcess) -> String {
    let mut text = String::new();
    text.push_str(p.bpmn_process_id());
    for (id, element_type) in p.element_types() {
        text.push('\n');
        text.push_str(id);
        text.push(' ');
        text.push_str(element_type.as_str());
    }
    for f in &p.model().flows {
        text.push('\n');
        text.push_str(&f.id);
        text.push(' ');
        text.push_str(&p.model().element(f.source).id);
        text.push(' ');
        text.push_str(&p.model().element(f.target).id);
    }
    format!("{:016x}", data::fnv1a(text.as_bytes()))
}

/// Coverage of every deployed process (except baton's generated stand-ins) from the history.
pub(crate) fn collect(engine: &Engine, history: &History) -> Vec<ProcessCoverageData> {
    let mut out: Vec<ProcessCoverageData> = Vec::new();
    for (i, p) in engine.deployed_processes().enumerate() {
        if p.resource_name()
            .starts_with(crate::GENERATED_RESOURCE_PREFIX)
        {
            continue;
        }
        let hits = history.hits.get(i);
        let covered_elements = p
            .model()
            .elements
            .iter()
            .enumerate()
            .filter(|(j, _)| hits.is_some_and(|h| h.elements.get(*j) == Some(&true)))
            .map(|(_, e)| e.id.to_string())
            .collect();
        let completed_elements = p
            .model()
            .elements
            .iter()
            .enumerate()
            .filter(|(j, _)| hits.is_some_and(|h| h.completed.get(*j) == Some(&true)))
            .map(|(_, e)| e.id.to_string())
            .collect();
        let taken_flows = p
            .model()
            .flows
            .iter()
            .enumerate()
            .filter(|(j, _)| hits.is_some_and(|h| h.flows.get(*j) == Some(&true)))
            .map(|(_, f)| f.id.to_string())
            .collect();
        let data = ProcessCoverageData {
            process_id: p.bpmn_process_id().to_string(),
            name: p
                .model()
                .name
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned),
            version: Some(p.version()),
            model_hash: model_hash(p),
            source: p.resource_name().to_string(),
            elements: p
                .element_types()
                .map(|(id, element_type)| ElementInfo {
                    id: id.to_string(),
                    kind: element_type.as_str().to_owned(),
                })
                .collect(),
            flows: p
                .model()
                .flows
                .iter()
                .map(|f| FlowInfo {
                    id: f.id.to_string(),
                    source: p.model().element(f.source).id.to_string(),
                    target: p.model().element(f.target).id.to_string(),
                })
                .collect(),
            tools: tools_of(p),
            covered_elements,
            completed_elements,
            taken_flows,
            xml: resource_text(
                engine,
                p.resource_name(),
                &format!("\"{}\"", p.bpmn_process_id()),
            ),
            diagram: diagram::of_process(p),
        };
        data::merge_process(&mut out, &data);
    }
    out
}

/// The text of the last resource deployed under `name` that mentions `mark` (the model's id in
/// quotes: a resource of the same name that failed to deploy is passed over).
pub(crate) fn resource_text(engine: &Engine, name: &str, mark: &str) -> Option<String> {
    engine
        .deployed_resources()
        .filter(|r| r.name == name)
        .filter_map(|r| std::str::from_utf8(r.content()).ok())
        .filter(|text| text.contains(mark))
        .last()
        .map(str::to_owned)
}

/// Why coverage files could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoverageError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a baton coverage file: {problem}")]
    Invalid {
        path: PathBuf,
        problem: data::CoverageFileError,
    },
    #[error("no coverage file (*.json) in {0}")]
    Empty(PathBuf),
}

/// A file name for a test's coverage: the test name made safe, plus a hash of the content (no
/// randomness: the same test with the same coverage writes the same file).
pub fn file_name(test: &str, content: &str) -> String {
    let mut safe: String = test
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.len() > 100 {
        safe.truncate(100);
    }
    if safe.is_empty() {
        safe.push_str("test");
    }
    format!("{safe}-{:016x}.json", data::fnv1a(content.as_bytes()))
}

/// Writes a coverage file into `dir` (created if missing) atomically: a temporary file, then a
/// rename. Returns the path.
pub fn write_file(dir: &Path, file: &CoverageFile) -> Result<PathBuf, CoverageError> {
    let json = file.to_json();
    let name = file_name(file.tests.first().map_or("test", |s| s.as_str()), &json);
    crate::files::write_atomically(dir, &name, &json)
        .map_err(|(path, source)| CoverageError::Io { path, source })
}

/// Reads every `*.json` coverage file of a folder (in name order) and merges them.
pub fn merge_dir(dir: &Path) -> Result<CoverageFile, CoverageError> {
    merge_dir_with(dir, |_, _| {})
}

/// [`merge_dir`], calling `on_file(read, total)` after each file read (for progress output).
pub fn merge_dir_with(
    dir: &Path,
    on_file: impl FnMut(usize, usize),
) -> Result<CoverageFile, CoverageError> {
    read_dir_with(dir, on_file).map(|files| merge(&files))
}

/// Reads every `*.json` coverage file of a folder, in name order, calling `on_file(read,
/// total)` after each.
pub fn read_dir_with(
    dir: &Path,
    mut on_file: impl FnMut(usize, usize),
) -> Result<Vec<CoverageFile>, CoverageError> {
    let io = |source| CoverageError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    paths.retain(|p| p.extension().is_some_and(|e| e == "json"));
    paths.sort();
    if paths.is_empty() {
        return Err(CoverageError::Empty(dir.to_path_buf()));
    }
    let total = paths.len();
    let mut files = Vec::with_capacity(total);
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(|source| CoverageError::Io {
            path: path.clone(),
            source,
        })?;
        let file = CoverageFile::from_json(&text)
            .map_err(|problem| CoverageError::Invalid { path, problem })?;
        files.push(file);
        on_file(files.len(), total);
    }
    Ok(files)
}

/// The report straight from the models and the history (what `coverage()` returns; the same
/// numbers as `CoverageReport::from_data(&collect(..))`, without building the file data).
fn report(engine: &Engine, history: &History) -> CoverageReport {
    let procs: Vec<(usize, &ExecutableProcess)> = engine
        .deployed_processes()
        .enumerate()
        .filter(|(_, p)| {
            !p.resource_name()
                .starts_with(crate::GENERATED_RESOURCE_PREFIX)
        })
        .collect();
    // Versions with the same model count as one, as coverage files merge them; the model hash
    // is computed only when a process id has several versions.
    let mut hashes: Vec<Option<String>> = vec![None; procs.len()];
    let hash = |k: usize, hashes: &mut Vec<Option<String>>| -> String {
        hashes[k]
            .get_or_insert_with(|| model_hash(procs[k].1))
            .clone()
    };
    let mut groups: Vec<(usize, Vec<bool>, Vec<bool>)> = Vec::new();
    for k in 0..procs.len() {
        let (i, p) = procs[k];
        let hits = history.hits.get(i);
        let elements = (0..p.model().elements.len())
            .map(|j| hits.is_some_and(|h| h.elements.get(j) == Some(&true)));
        let flows =
            (0..p.model().flows.len()).map(|j| hits.is_some_and(|h| h.flows.get(j) == Some(&true)));
        let mut group = None;
        for (g, (first, _, _)) in groups.iter().enumerate() {
            if procs[*first].1.bpmn_process_id() == p.bpmn_process_id()
                && hash(*first, &mut hashes) == hash(k, &mut hashes)
            {
                group = Some(g);
                break;
            }
        }
        match group {
            Some(g) => {
                let (_, e, f) = &mut groups[g];
                for (a, b) in e.iter_mut().zip(elements) {
                    *a |= b;
                }
                for (a, b) in f.iter_mut().zip(flows) {
                    *a |= b;
                }
            }
            None => groups.push((k, elements.collect(), flows.collect())),
        }
    }
    let processes: Vec<ProcessCoverage> = groups
        .iter()
        .map(|(k, e, f)| process_report(procs[*k].1, e, f))
        .collect();
    CoverageReport {
        elements: CoverageCount::sum(processes.iter().map(|p| &p.elements)),
        flows: CoverageCount::sum(processes.iter().map(|p| &p.flows)),
        tools: CoverageCount::sum(processes.iter().map(|p| &p.tools)),
        processes,
        decisions: Vec::new(),
        rules: CoverageCount::from_counts(0, 0, Vec::new()),
    }
    .with_decisions(&decisions::collect(
        engine,
        history,
        decisions::Detail::Counts,
    ))
}

fn process_report(p: &ExecutableProcess, elements: &[bool], flows: &[bool]) -> ProcessCoverage {
    let count = |covered: &[bool], id: &dyn Fn(usize) -> String| {
        let uncovered: Vec<String> = covered
            .iter()
            .enumerate()
            .filter(|(_, c)| !**c)
            .map(|(j, _)| id(j))
            .collect();
        CoverageCount::from_counts(covered.len(), covered.len() - uncovered.len(), uncovered)
    };
    let tool_hits: Vec<(usize, bool)> = p
        .ad_hoc_tools()
        .map(|t| (t.0 as usize, elements[t.0 as usize]))
        .collect();
    let tools_covered: Vec<bool> = tool_hits.iter().map(|(_, c)| *c).collect();
    ProcessCoverage {
        process_id: p.bpmn_process_id().to_string(),
        source: p.resource_name().to_string(),
        elements: count(elements, &|j| p.model().elements[j].id.to_string()),
        flows: count(flows, &|j| p.model().flows[j].id.to_string()),
        tools: count(&tools_covered, &|j| {
            p.model().elements[tool_hits[j].0].id.to_string()
        }),
    }
}

impl crate::ProcessTest {
    /// What this test covered so far, per deployed process.
    pub fn coverage(&self) -> CoverageReport {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        report(&inner.engine, &inner.history)
    }

    /// The processes' coverage data.
    pub fn coverage_data(&self) -> Vec<ProcessCoverageData> {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        collect(&inner.engine, &inner.history)
    }

    /// The decision tables' coverage data.
    pub fn decision_coverage_data(&self) -> Vec<DecisionCoverageData> {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        decisions::collect(&inner.engine, &inner.history, decisions::Detail::File)
    }

    /// What this test's coverage file holds, named after the test.
    pub fn coverage_file(&self) -> CoverageFile {
        CoverageFile::new(self.test_name(), self.coverage_data())
            .with_decisions(self.decision_coverage_data())
    }

    /// Writes this test's coverage file into `dir` now; returns its path.
    pub fn write_coverage_to(&self, dir: &Path) -> Result<PathBuf, CoverageError> {
        write_file(dir, &self.coverage_file())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_has_one_decimal_and_is_100_when_empty() {
        assert_eq!(CoverageCount::from_counts(13, 7, vec![]).percent, 53.8);
        assert_eq!(CoverageCount::from_counts(3, 2, vec![]).percent, 66.7);
        assert_eq!(CoverageCount::from_counts(0, 0, vec![]).percent, 100.0);
        assert_eq!(
            CoverageCount::from_counts(8, 4, vec![]).to_string(),
            "4/8 (50.0%)"
        );
    }

    #[test]
    fn file_names_are_safe_and_content_addressed() {
        let a = file_name("orders::happy path", "{}");
        assert!(a.starts_with("orders__happy_path-"), "{a}");
        assert_eq!(a, file_name("orders::happy path", "{}"));
        assert_ne!(a, file_name("orders::happy path", "{ }"));
    }
}
