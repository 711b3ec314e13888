//! What a run of test files produced: one [`CaseResult`] per test case, and the [`Report`] of
//! them all with the merged coverage.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use baton_testing::coverage::{CoverageFile, CoverageReport};

/// How a test case ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum Outcome {
    Passed,
    Failed(CaseFailure),
    /// Not (fully) checked: the reason says what was not run.
    Skipped {
        reason: String,
    },
}

/// Why a test case failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseFailure {
    /// The 1-based instruction that failed and its type (`None`: the file or its deployment).
    pub instruction: Option<usize>,
    #[serde(rename = "type")]
    pub instruction_type: Option<String>,
    /// What went wrong, in one or a few lines.
    pub message: String,
    /// The run explained (state, waiting points, incidents, variables, path, errors).
    pub explanation: String,
}

/// The result of one test case.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseResult {
    /// The test file.
    pub file: PathBuf,
    /// The test case's name (empty when the file itself could not be read).
    pub name: String,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Notes that did not decide the outcome (a swallowed conditional-behaviour failure, a
    /// replaced mock, an instruction newer than `$schema`, a resource not deployed).
    pub warnings: Vec<String>,
    /// Per agent with a cassette: what it recorded; with `--drift`, how the run left it (or
    /// that it did not).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cassettes: Vec<String>,
    /// Wall time of the case (not in the text output, which stays deterministic).
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1_000_000.0).round() / 1000.0)
}

impl CaseResult {
    /// `<file> › <name>`: how the case is named in output and in coverage files.
    pub fn title(&self) -> String {
        if self.name.is_empty() {
            self.file.display().to_string()
        } else {
            format!("{} › {}", self.file.display(), self.name)
        }
    }

    pub fn passed(&self) -> bool {
        self.outcome == Outcome::Passed
    }

    pub fn failed(&self) -> bool {
        matches!(self.outcome, Outcome::Failed(_))
    }

    pub fn skipped(&self) -> bool {
        matches!(self.outcome, Outcome::Skipped { .. })
    }
}

/// A folder of test files and what was deployed for it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteInfo {
    pub dir: PathBuf,
    /// The resources deployed (or tried).
    pub resources: Vec<PathBuf>,
    /// What was not deployed, and instructions newer than a file's `$schema`.
    pub notes: Vec<String>,
}

/// Every case of a run, in run order, and the coverage of them all.
#[derive(Debug, Clone)]
pub struct Report {
    pub suites: Vec<SuiteInfo>,
    pub cases: Vec<CaseResult>,
    /// The coverage of every test case, merged.
    pub coverage: CoverageFile,
    /// The coverage of each test case, in run order (the runs of CPT's coverage report, see
    /// `coverage::cpt_json`).
    pub case_coverage: Vec<CoverageFile>,
    /// Cases left out by the filter.
    pub filtered_out: usize,
    pub duration: Duration,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.passed()).count()
    }

    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|c| c.failed()).count()
    }

    pub fn skipped(&self) -> usize {
        self.cases.iter().filter(|c| c.skipped()).count()
    }

    /// True when no case failed.
    pub fn success(&self) -> bool {
        self.failed() == 0
    }

    /// `N passed, M failed` and `, K skipped` when some were skipped: the last line `baton test`
    /// prints.
    pub fn summary(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed(), self.failed());
        if self.skipped() > 0 {
            s.push_str(&format!(", {} skipped", self.skipped()));
        }
        s
    }

    /// The merged coverage as counts (what the text report prints).
    pub fn coverage_report(&self) -> CoverageReport {
        CoverageReport::from_file(&self.coverage)
    }

    /// Panics with every failure unless every case passed or was skipped: the one-liner for a
    /// `cargo test` that runs JSON test files.
    #[track_caller]
    pub fn assert_success(&self) {
        if !self.success() {
            let failures: Vec<String> = self
                .cases
                .iter()
                .filter(|c| c.failed())
                .map(super::text::case_text)
                .collect();
            panic!("{}\n\n{}", failures.join("\n"), self.summary());
        }
    }
}
