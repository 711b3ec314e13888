//! Coverage files merged by `baton coverage report`.

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::coverage::CoverageFile;

/// A fresh folder under the target directory, named after the test.
fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("coverage-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn baton_coverage_report_merges_a_folder() {
    let dir = out_dir("cli");
    for (name, job) in [("cli::a", "payment"), ("cli::b", "shipping")] {
        let t = ProcessTest::from_file("../tests/it/bpmn/order.bpmn")
            .unwrap()
            .named(name)
            .coverage_dir(&dir);
        t.mock_job(job).complete();
        let mut request = baton_testing::CreateInstance::new("order");
        if job == "shipping" {
            request.start_instructions = vec!["ship".into()];
        }
        t.try_start(request).unwrap();
    }
    let merged = dir.join("merged.json.out");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["coverage", "report", "--input"])
        .arg(&dir)
        .arg("--json")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    insta::assert_snapshot!(String::from_utf8(output.stdout).unwrap(), @r"
    BPMN coverage
      order  elements 4/4 (100.0%)  flows 3/3 (100.0%)
    (2 tests merged)
    ");
    let file = CoverageFile::from_json(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    assert_eq!(file.tests, ["cli::a", "cli::b"]);

    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["coverage", "report", "--input", "no/such/dir"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(
        String::from_utf8(missing.stderr)
            .unwrap()
            .contains("no/such/dir: ")
    );
}
