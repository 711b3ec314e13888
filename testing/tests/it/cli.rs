//! The `baton` command, run as a user runs it.

use std::path::Path;
use std::process::Command;

/// Runs `baton` from the workspace root; returns the exit code and what it printed.
fn baton(args: &[&str]) -> (i32, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    (output.status.code().unwrap_or(-1), text)
}

#[test]
fn validate_accepts_every_accept_fixture() {
    let (code, output) = baton(&["validate", "fixtures/bpmn/accept"]);
    assert_eq!(code, 0, "{output}");
    insta::assert_snapshot!(output);
}

#[test]
fn validate_prints_diagnostics_and_fails() {
    let (code, output) = baton(&[
        "validate",
        "fixtures/bpmn/accept/tasks.bpmn",
        "fixtures/bpmn/reject/missing-job-type.bpmn",
        "fixtures/bpmn/reject/unknown-flow-ends.bpmn",
    ]);
    assert_eq!(code, 1, "{output}");
    insta::assert_snapshot!(output);
}

#[test]
fn validate_reports_unreadable_and_oversized_files() {
    let dir = std::env::temp_dir().join(format!("baton-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let huge = dir.join("huge.bpmn");
    // A sparse 50 MB file: `baton` must refuse it after reading 4 MiB at most.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(50 * 1024 * 1024)
        .unwrap();
    let huge_arg = huge.display().to_string();
    let (code, output) = baton(&["validate", &huge_arg, "does/not/exist.bpmn"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{output}");
    let output = output.replace(&huge_arg, "[huge.bpmn]");
    insta::assert_snapshot!(output, @r"
    [huge.bpmn]:1:1: error[resource-too-large] the resource has 52428800 bytes, more than the 4194304 bytes Zeebe accepts by default
    does/not/exist.bpmn: error: cannot read the file: No such file or directory (os error 2)
    ");
}

#[test]
fn validate_needs_a_file() {
    let (code, output) = baton(&["validate"]);
    assert_eq!(code, 2, "{output}");
    assert!(output.contains("<FILE>"), "{output}");
}
