//! Fuzzing of the CPT test files baton-cpt reads, on the stable toolchain: `fuzz_cpt_json`
//! runs mutated CPT test files (the fixtures, the templates and the shared corpus) beside their
//! resources, twice with the same report.
//!
//! It fails on a panic or stack overflow, on two runs that disagree, and (in a long run) on an
//! input that takes more than a second. How to run it, reproduce a seed and keep a regression:
//! baton-testing's `tests/README.md` (the driver is its `tests/it/fuzz_driver.rs`). Minimized
//! inputs live in `tests/fuzz-regressions/cpt/`, which every run checks first.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbitrary::{Result, Unstructured};
use baton_cpt::{self as cpt, Options};
use serde_json::Value;

use crate::fuzz_driver::{TempDir, files, fuzz, mutated_json, regressions, within};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

// ---- CPT JSON ----

const CPT_TOKENS: &[&str] = &[
    "type",
    "name",
    "instructions",
    "testCases",
    "processDefinitionSelector",
    "processDefinitionId",
    "processInstanceSelector",
    "elementSelector",
    "elementSelectors",
    "elementId",
    "jobType",
    "jobSelector",
    "variables",
    "variableName",
    "satisfiesExpression",
    "duration",
    "time",
    "state",
    "IS_ACTIVE",
    "IS_COMPLETED",
    "IS_TERMINATED",
    "INCREASE_TIME",
    "SET_TIME",
    "CREATE_PROCESS_INSTANCE",
    "MOCK_JOB_WORKER_COMPLETE_JOB",
    "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
    "COMPLETE_JOB",
    "COMPLETE_USER_TASK",
    "PUBLISH_MESSAGE",
    "CORRELATE_MESSAGE",
    "BROADCAST_SIGNAL",
    "ASSERT_PROCESS_INSTANCE",
    "ASSERT_ELEMENT_INSTANCES",
    "ASSERT_VARIABLES",
    "CONDITIONAL_BEHAVIOR",
    "MOCK_AI_AGENT",
    "P1D",
    "PT1H",
    "P36500D",
    "P7000000D",
    "PT-1S",
    "2026-01-01T00:00:00Z",
    "9999-12-30T22:00:00Z",
    "x",
    "= x",
    "for i in 1..1000000 return i",
    "",
];

/// The CPT suites: each test file with the folder its resources are in.
fn cpt_corpus() -> Vec<(PathBuf, Value)> {
    let mut paths = Vec::new();
    files(&root().join("fixtures/cpt"), ".test.json", &mut paths);
    files(&root().join("templates"), ".test.json", &mut paths);
    if let Some(shared) = crate::support::shared_corpus() {
        files(&shared.join("cpt/cases"), ".test.json", &mut paths);
    }
    paths
        .into_iter()
        .filter_map(|p| {
            let value = serde_json::from_str(&std::fs::read_to_string(&p).ok()?).ok()?;
            Some((p.parent().unwrap().to_path_buf(), value))
        })
        .collect()
}

/// The resources beside each corpus test file (its folder's files, the test files left out).
fn cpt_resources(corpus: &[(PathBuf, Value)]) -> Vec<Vec<PathBuf>> {
    corpus
        .iter()
        .map(|(source, _)| {
            let mut paths: Vec<PathBuf> = std::fs::read_dir(source)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .filter(|path| path.is_file() && !path.to_string_lossy().ends_with(".json"))
                .collect();
            paths.sort();
            paths
        })
        .collect()
}

/// A fresh folder holding copies of `resources`, where one run of a test file happens. A test
/// file may write files (a snapshot), also beside its folder (`../../../target/…`): the folder
/// lies three levels inside `temp`'s `case` folder, which every run starts by removing, so that
/// nothing a run writes reaches another run or leaves `temp`.
fn fresh_folder(temp: &Path, resources: &[PathBuf]) -> PathBuf {
    let case = temp.join("case");
    let _ = std::fs::remove_dir_all(&case);
    let dir = case.join("a/b/c");
    std::fs::create_dir_all(&dir).unwrap();
    for path in resources {
        std::fs::copy(path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// What running a test file comes to: the read error, or each case's text.
fn cpt_outcome(file: &Path) -> String {
    match cpt::run(&[file], &Options::default()) {
        Err(e) => format!("not run: {e}"),
        Ok(report) => {
            let mut out: Vec<String> = report.cases.iter().map(cpt::text::case_text).collect();
            out.push(report.summary());
            out.join("\n")
        }
    }
}

fn check_cpt(temp: &Path, resources: &[PathBuf], text: &str, limit: Option<Duration>) {
    let run = || {
        let file = fresh_folder(temp, resources).join("fuzz.test.json");
        std::fs::write(&file, text).unwrap();
        cpt_outcome(&file)
    };
    let start = Instant::now();
    let first = run();
    within(limit, start, || text.to_owned());
    let second = run();
    assert_eq!(first, second, "not deterministic: {text}");
}

fn cpt_input(u: &mut Unstructured, corpus: &[(PathBuf, Value)]) -> Result<(usize, String)> {
    let i = u.choose_index(corpus.len())?;
    Ok((i, mutated_json(u, &corpus[i].1, CPT_TOKENS)?))
}

#[test]
fn fuzz_cpt_json_regressions_still_hold() {
    let temp = TempDir::new("cpt-regressions");
    let resources = [root().join("fixtures/bpmn/accept/start-events.bpmn")];
    for (_, text) in regressions("cpt") {
        check_cpt(&temp.0, &resources, &text, None);
    }
}

#[test]
fn fuzz_cpt_json() {
    let corpus = cpt_corpus();
    let resources = cpt_resources(&corpus);
    let temp = TempDir::new("cpt");
    fuzz(
        "cpt",
        120,
        |u| Ok(cpt_input(u, &corpus)?.1),
        |u, limit| {
            let (i, text) = cpt_input(u, &corpus)?;
            check_cpt(&temp.0, &resources[i], &text, limit);
            Ok(())
        },
    );
}
