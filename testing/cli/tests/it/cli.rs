//! The `baton` command, run as a user runs it.

use std::path::Path;
use std::process::Command;

/// Runs `baton` from the workspace root; returns the exit code and what it printed.
fn baton(args: &[&str]) -> (i32, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
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
fn validate_reports_hostile_feel_in_an_input_mapping() {
    let dir = std::env::temp_dir().join(format!("baton-cli-feel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("deep.bpmn");
    let deep = format!("{}x", "- ".repeat(100_000));
    std::fs::write(
        &file,
        format!(
            r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d"><bpmn:process id="p" isExecutable="true"><bpmn:startEvent id="s"/><bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="a"/><zeebe:ioMapping><zeebe:input source="={deep}" target="v"/></zeebe:ioMapping></bpmn:extensionElements></bpmn:serviceTask><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="t"/></bpmn:process></bpmn:definitions>"#
        ),
    )
    .unwrap();
    let file_arg = file.display().to_string();
    let (code, output) = baton(&["validate", &file_arg]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{output}");
    let output = output
        .replace(&file_arg, "[deep.bpmn]")
        .replace(&deep, "<expression>");
    insta::assert_snapshot!(output);
}

#[test]
fn validate_needs_a_file() {
    let (code, output) = baton(&["validate"]);
    assert_eq!(code, 2, "{output}");
    assert!(output.contains("<FILE>"), "{output}");
}

#[test]
fn test_prints_each_failure_with_the_run_explained() {
    let (code, output) = baton(&["test", "fixtures/cpt/failing"]);
    assert_eq!(code, 1, "{output}");
    assert!(
        output.ends_with("0 passed, 11 failed, 1 skipped\n"),
        "{output}"
    );
    insta::assert_snapshot!(output);
}

#[test]
fn test_runs_the_template_and_prints_the_coverage() {
    let (code, output) = baton(&["test", "templates/ai-agent-tool-loop"]);
    assert_eq!(code, 0, "{output}");
    insta::assert_snapshot!(output);
}

/// `baton test` runs the CPT 8.10 file with ASSERT_INCIDENT on the v11 AI Agent template.
#[test]
fn test_runs_the_8_10_agent_fixture() {
    let (code, output) = baton(&["test", "fixtures/cpt/v810-agent", "--no-coverage"]);
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("2 passed, 0 failed"), "{output}");
}

#[test]
fn test_writes_junit_xml() {
    let dir = crate::support::temp_dir("junit");
    let file = dir.join("junit.xml");
    let file_arg = file.display().to_string();
    let (code, output) = baton(&[
        "test",
        "fixtures/cpt/failing",
        "--filter",
        "not",
        "--junit",
        &file_arg,
        "--no-coverage",
    ]);
    assert_eq!(code, 1, "{output}");
    let xml = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    insta::with_settings!({filters => vec![(r#"time="[0-9.]+""#, r#"time="[t]""#)]}, {
        insta::assert_snapshot!(xml);
    });
}

#[test]
fn test_prints_json() {
    let (code, output) = baton(&["test", "fixtures/cpt/features", "--json"]);
    assert_eq!(code, 0, "{output}");
    let json: serde_json::Value = serde_json::from_str(&output).unwrap();
    assert_eq!(
        (&json["passed"], &json["failed"], &json["skipped"]),
        (&4.into(), &0.into(), &1.into())
    );
    assert_eq!(json["cases"][4]["outcome"], "skipped");
    assert_eq!(json["coverage"][3]["processId"], "routing");
    assert_eq!(json["coverage"][3]["elements"]["uncovered"][0], "automatic");
}

#[test]
fn test_without_test_files_says_so() {
    let (code, output) = baton(&["test", "fixtures/bpmn/accept"]);
    assert_eq!(code, 1, "{output}");
    insta::assert_snapshot!(output, @"baton test: no test file (*.test.json, or *.json with a `testCases` array) in fixtures/bpmn/accept");
}

#[test]
fn template_list_and_use() {
    let (code, output) = baton(&["template", "list"]);
    assert_eq!(code, 0, "{output}");
    insta::assert_snapshot!(output);

    let dir = crate::support::temp_dir("template");
    let dir_arg = dir.display().to_string();
    let (code, output) = baton(&["template", "use", "ai-agent-tool-loop", &dir_arg]);
    assert_eq!(code, 0, "{output}");
    let bpmn = dir.join("ai-agent-tool-loop.bpmn");
    assert_eq!(
        std::fs::read_to_string(&bpmn).unwrap(),
        include_str!("../../../../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn")
    );
    // Its tests pass where it was written.
    let (code, output) = baton(&["test", &dir_arg]);
    assert_eq!(code, 0, "{output}");
    // A second time, nothing is overwritten without --force.
    std::fs::write(&bpmn, "mine").unwrap();
    let (code, output) = baton(&["template", "use", "ai-agent-tool-loop", &dir_arg]);
    assert_eq!(code, 1, "{output}");
    assert!(
        output.contains("already exist; nothing was written (use --force to overwrite)"),
        "{output}"
    );
    assert_eq!(std::fs::read_to_string(&bpmn).unwrap(), "mine");
    let (code, output) = baton(&["template", "use", "ai-agent-tool-loop", &dir_arg, "--force"]);
    assert_eq!(code, 0, "{output}");
    assert_ne!(std::fs::read_to_string(&bpmn).unwrap(), "mine");
    // The faults template's cases pass where it was written, also restored at every wait
    // point.
    let faults = dir.join("faults");
    let faults_arg = faults.display().to_string();
    let (code, output) = baton(&["template", "use", "ai-agent-faults", &faults_arg]);
    assert_eq!(code, 0, "{output}");
    let (code, output) = baton(&["test", &faults_arg, "--check-restore"]);
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("6 passed, 0 failed"), "{output}");
    let (code, output) = baton(&["template", "use", "nope", &dir_arg]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{output}");
    insta::assert_snapshot!(output, @r#"baton template use: no template "nope"; templates: ai-agent-tool-loop, ai-agent-faults, ai-agent-task-tool-loop, ai-agent-tool-loop-v2"#);
}

/// Every folder of templates/ is a template `baton template use` writes whole (its README as
/// `<name>.README.md`), and its test file passes where it was written.
#[test]
fn every_template_is_listed_and_written_whole() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../templates");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let (_, listed) = baton(&["template", "list"]);
    for name in &names {
        assert!(
            listed.lines().any(|l| l.starts_with(&format!("{name} "))),
            "{name} is not listed:\n{listed}"
        );
        let dir = crate::support::temp_dir(&format!("template-{name}"));
        let dir_arg = dir.display().to_string();
        let (code, output) = baton(&["template", "use", name, &dir_arg]);
        assert_eq!(code, 0, "{output}");
        let mut written: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        written.sort();
        let mut expected: Vec<String> = std::fs::read_dir(root.join(name))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .map(|f| {
                if f == "README.md" {
                    format!("{name}.README.md")
                } else {
                    f
                }
            })
            .collect();
        expected.sort();
        assert_eq!(written, expected, "{name}");
        let (code, output) = baton(&["test", &dir_arg]);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(code, 0, "{name}: {output}");
    }
}

#[test]
fn coverage_report_merges_the_files_of_test_runs() {
    let dir = crate::support::temp_dir("coverage");
    let cov = dir.join("coverage");
    let cov_arg = cov.display().to_string();
    for filter in ["incident", "message"] {
        let (code, output) = baton(&[
            "test",
            "fixtures/cpt/features",
            "--filter",
            filter,
            "--coverage-dir",
            &cov_arg,
        ]);
        assert_eq!(code, 0, "{output}");
    }
    let merged = dir.join("merged.json");
    let merged_arg = merged.display().to_string();
    let (code, output) = baton(&[
        "coverage",
        "report",
        "--input",
        &cov_arg,
        "--json",
        &merged_arg,
    ]);
    assert_eq!(code, 0, "{output}");
    let file = baton_testing::coverage::CoverageFile::from_json(
        &std::fs::read_to_string(&merged).unwrap(),
    )
    .unwrap();
    assert_eq!(file.tests.len(), 3);
    let html_dir = dir.join("html");
    let html_arg = html_dir.display().to_string();
    let (code, html_output) = baton(&[
        "coverage", "report", "--input", &cov_arg, "--html", &html_arg,
    ]);
    assert_eq!(code, 0, "{html_output}");
    assert!(
        html_output.ends_with(&format!("HTML report: {html_arg}/index.html\n")),
        "{html_output}"
    );
    let page = std::fs::read_to_string(html_dir.join("index.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_eq!(
        page.matches("<section class=\"process\"").count(),
        file.processes.len()
    );
    // An HTML folder that cannot be made is an error that names it.
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, "a file, not a folder").unwrap();
    let blocked_arg = blocked.join("html").display().to_string();
    let (code, error) = baton(&[
        "coverage",
        "report",
        "--input",
        &cov_arg,
        "--html",
        &blocked_arg,
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{error}");
    assert!(
        error.contains(&format!(
            "baton coverage report: cannot write the HTML report: {blocked_arg}: "
        )),
        "{error}"
    );
    insta::assert_snapshot!(output);
}

/// `baton test --commands-dir`: one command log per test case, each a JSON array of commands
/// that starts with the deployment.
#[test]
fn test_writes_each_cases_commands() {
    let dir = std::env::temp_dir().join(format!("baton-cli-commands-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_arg = dir.display().to_string();
    let (code, output) = baton(&[
        "test",
        "templates/ai-agent-tool-loop",
        "--no-coverage",
        "--commands-dir",
        &dir_arg,
    ]);
    assert_eq!(code, 0, "{output}");
    let mut logs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    assert_eq!(logs.len(), 3, "{logs:?}");
    for log in &logs {
        let commands =
            baton_engine::runtime::read_commands(&std::fs::read_to_string(log).unwrap()).unwrap();
        let kinds: Vec<String> = commands
            .iter()
            .map(|c| serde_json::to_value(c).unwrap()["command"].to_string())
            .collect();
        assert_eq!(kinds[0], r#""deploy""#, "{}", log.display());
        assert!(
            kinds.contains(&r#""createInstance""#.to_owned()),
            "{kinds:?}"
        );
        assert!(kinds.contains(&r#""completeJob""#.to_owned()), "{kinds:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--cpt-json FILE` on `baton test` and on `baton coverage report`: CPT's coverage report
/// document, from the runs or from their coverage files.
#[test]
fn test_and_coverage_report_write_cpts_coverage_report() {
    let dir = crate::support::temp_dir("cpt-json");
    let from_test = dir.join("target/process-test-coverage/report.json");
    let cov = dir.join("coverage");
    let (code, output) = baton(&[
        "test",
        "fixtures/cpt/coverage",
        "--cpt-json",
        &from_test.display().to_string(),
        "--coverage-dir",
        &cov.display().to_string(),
    ]);
    assert_eq!(code, 0, "{output}");
    assert!(
        output.contains("DMN coverage\n  customerLevel  rules 3/3 (100.0%)\n"),
        "{output}"
    );
    let from_files = dir.join("from-files.json");
    let (code, output) = baton(&[
        "coverage",
        "report",
        "--input",
        &cov.display().to_string(),
        "--cpt-json",
        &from_files.display().to_string(),
    ]);
    assert_eq!(code, 0, "{output}");
    let read = |p: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (a, b) = (read(&from_test), read(&from_files));
    let _ = std::fs::remove_dir_all(&dir);
    for data in [&a, &b] {
        assert_eq!(data["suites"][0]["runs"].as_array().unwrap().len(), 4);
        assert_eq!(data["processModels"][0]["totalElementCount"], 13);
    }
    assert_eq!(a["decisionModels"], b["decisionModels"]);
}

/// `baton explore`: the template's exploration file, with fewer model calls to stay quick.
#[test]
fn explore_reports_each_invariant_and_writes_counterexamples_that_fail_under_baton_test() {
    let dir = crate::support::temp_dir("explore-cli");
    let out = dir.join("counterexamples");
    let out_arg = out.display().to_string();
    let (code, output) = baton(&[
        "explore",
        "templates/ai-agent-tool-loop/ai-agent-tool-loop.explore.json",
        "--max-model-calls",
        "2",
        "--counterexamples",
        &out_arg,
    ]);
    assert_eq!(code, 1, "{output}");
    let output: String = output
        .lines()
        .filter(|l| !l.starts_with("time: "))
        .map(|l| l.replace(&out_arg, "[out]") + "\n")
        .collect();
    insta::assert_snapshot!(output);
    // The counterexample is a CPT test beside a copy of the BPMN: it fails where the invariant broke.
    std::fs::copy(
        "../../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn",
        out.join("ai-agent-tool-loop.bpmn"),
    )
    .unwrap();
    let first = out
        .join("ai-agent-tool-loop-1.test.json")
        .display()
        .to_string();
    let (code, output) = baton(&["test", &first, "--no-coverage"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{output}");
    assert!(
        output
            .contains("expected process \"ai-agent-tool-loop\" to have completed \"lookup-order\""),
        "{output}"
    );
}

/// `baton explore --shard K/N --json FILE` and `baton explore merge`.
#[test]
fn explore_shards_merge_into_the_whole_report() {
    let dir = crate::support::temp_dir("explore-shards");
    let file = "templates/ai-agent-tool-loop/ai-agent-tool-loop.explore.json";
    let (_, whole) = baton(&["explore", file, "--max-model-calls", "2"]);
    let mut reports = Vec::new();
    for shard in ["1/2", "2/2"] {
        let report = dir.join(format!("shard-{}.json", &shard[..1]));
        let report_arg = report.display().to_string();
        let (code, output) = baton(&[
            "explore",
            file,
            "--max-model-calls",
            "2",
            "--shard",
            shard,
            "--json",
            &report_arg,
        ]);
        assert_ne!(code, 2, "{output}");
        reports.push(report_arg);
    }
    let mut args = vec!["explore", "merge"];
    args.extend(reports.iter().map(String::as_str));
    let (code, merged) = baton(&args);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{merged}");
    let counts = |text: &str| text.lines().next().unwrap_or_default().to_string();
    assert_eq!(counts(&merged), counts(&whole));
    let (code, output) = baton(&["explore", file, "--shard", "3/2"]);
    assert_eq!(code, 2, "{output}");
    assert!(output.contains("shard 3/2 is out of range"), "{output}");
}

/// `baton explore --coverage-dir DIR --html DIR`: the coverage of every explored run, as a file
/// `baton coverage report` merges and as the HTML report.
#[test]
fn explore_writes_the_coverage_of_every_explored_run() {
    let dir = crate::support::temp_dir("explore-coverage");
    let cov = dir.join("coverage").display().to_string();
    let html = dir.join("html").display().to_string();
    let (code, output) = baton(&[
        "explore",
        "templates/ai-agent-tool-loop/ai-agent-tool-loop.explore.json",
        "--max-model-calls",
        "2",
        "--coverage-dir",
        &cov,
        "--html",
        &html,
    ]);
    assert_eq!(code, 1, "{output}");
    let page = std::fs::read_to_string(dir.join("html/index.html")).unwrap();
    assert!(page.contains("ai-agent-tool-loop"), "{page}");
    let (code, report) = baton(&["coverage", "report", "--input", &cov]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0, "{report}");
    assert!(report.contains("ai-agent-tool-loop"), "{report}");
    assert!(
        report.contains("queued"),
        "the element no choice reaches is listed: {report}"
    );
}

/// `baton explore` on the AI Agent Task template: a tool's BPMN error in the tools' ad-hoc
/// sub-process has no boundary to catch it, and each counterexample fails under `baton test`.
#[test]
fn explore_an_ai_agent_task_and_replay_every_counterexample() {
    let dir = crate::support::temp_dir("explore-task-cli");
    let out = dir.join("counterexamples");
    let out_arg = out.display().to_string();
    let (code, output) = baton(&[
        "explore",
        "templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.explore.json",
        "--max-model-calls",
        "2",
        "--counterexamples",
        &out_arg,
    ]);
    assert_eq!(code, 1, "{output}");
    assert!(output.contains("no incident: VIOLATED"), "{output}");
    assert!(output.contains("UNHANDLED_ERROR_EVENT"), "{output}");
    std::fs::copy(
        "../../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn",
        out.join("ai-agent-task-tool-loop.bpmn"),
    )
    .unwrap();
    let mut failed = Vec::new();
    for i in 1..=3 {
        let case = out
            .join(format!("ai-agent-task-tool-loop-{i}.test.json"))
            .display()
            .to_string();
        let (code, output) = baton(&["test", &case, "--no-coverage"]);
        failed.push((code, output));
    }
    let _ = std::fs::remove_dir_all(&dir);
    for (code, output) in &failed {
        assert_eq!(*code, 1, "{output}");
    }
    assert!(
        failed[0].1.contains(
            "expected process \"ai-agent-task-tool-loop\" to have completed \"lookup-order\""
        ),
        "{}",
        failed[0].1
    );
    assert!(
        failed[1].1.contains("to have no active incident"),
        "{}",
        failed[1].1
    );
}

/// A reader that went away (`baton explore FILE | head -1`) ends the command quietly with exit
/// code 141, as a closed pipe ends other tools: no panic about a broken pipe.
#[test]
fn a_closed_standard_output_ends_the_command_without_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let commands: [&[&str]; 3] = [
        &["validate", "fixtures/bpmn/accept"],
        &["template", "list"],
        &[
            "explore",
            "templates/ai-agent-tool-loop/ai-agent-tool-loop.explore.json",
            "--max-model-calls",
            "1",
        ],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = Command::new(env!("CARGO_BIN_EXE_baton"))
            .args(args)
            .current_dir(&root)
            .stdout(writer)
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(141), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

/// `baton explore` and `baton explore merge` on a file that never ends: refused at once.
#[cfg(unix)]
#[test]
fn explore_refuses_an_endless_file() {
    let (code, output) = baton(&["explore", "/dev/zero"]);
    assert_eq!(code, 2, "{output}");
    insta::assert_snapshot!(output, @"baton explore: /dev/zero: the file has more than the 16777216 bytes a test file may have");
    let (code, output) = baton(&["explore", "merge", "/dev/zero"]);
    assert_eq!(code, 2, "{output}");
    insta::assert_snapshot!(output, @"baton explore merge: /dev/zero: not JSON: expected value at line 1 column 1");
}
