//! Coverage: elements, flows (as taken) and tools per process; the text report; files per test
//! and merging them.

use std::cell::Cell;
use std::path::PathBuf;

use baton_engine::runtime::{AdHocJobResult, SharedJson};
use baton_testing::coverage::{CoverageFile, merge, merge_dir};
use baton_testing::{Answer, CoverageReport, ProcessTest, TestJob};
use serde_json::json;

use crate::support::bpmn;

/// A fresh folder under the target directory, named after the test.
fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("coverage-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn template() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn")
}

#[test]
fn a_partial_run_reports_what_it_missed() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    test.mock_job("payment").complete();
    test.start("order", ());
    let report = test.coverage();
    let order = report.process("order").unwrap();
    assert_eq!((order.elements.covered, order.elements.total), (3, 4));
    assert_eq!(order.elements.percent, 75.0);
    assert_eq!(order.flows.uncovered, ["to-done"]);
    assert_eq!(order.tools.total, 0);
    assert_eq!(order.tools.percent, 100.0);
    insta::assert_snapshot!(report.to_string(), @r"
    BPMN coverage
      order  elements 3/4 (75.0%)  flows 2/3 (66.7%)
        elements not reached: done
        flows not taken: to-done
    ");
}

#[test]
fn flows_are_the_ones_taken_not_inferred() {
    // The boundary timer path enters cancel-order by f4; f2 (to confirm) is never taken even
    // though await-payment was left (terminated).
    let test = ProcessTest::from_file(bpmn("payment.bpmn")).unwrap();
    test.mock_job("cancel").complete();
    test.start("payment", json!({"orderId": "1"}));
    test.advance_time("PT1H");
    let report = test.coverage();
    let p = report.process("payment").unwrap();
    assert_eq!(p.flows.uncovered, ["f2", "f3"]);
    assert_eq!(p.elements.uncovered, ["confirm", "confirmed"]);
}

#[test]
fn several_processes_get_a_total_line() {
    let test = ProcessTest::new();
    test.deploy_file(bpmn("order.bpmn")).unwrap();
    test.deploy_file(bpmn("payment.bpmn")).unwrap();
    test.mock_job("payment").complete();
    test.mock_job("shipping").complete();
    test.start("order", ());
    insta::assert_snapshot!(test.coverage().to_string(), @r"
    BPMN coverage
      order  elements 4/4 (100.0%)  flows 3/3 (100.0%)
      payment  elements 0/7 (0.0%)  flows 0/5 (0.0%)
        elements not reached: start, await-payment, payment-timeout, confirm, confirmed, cancel-order, cancelled
        flows not taken: f1, f2, f3, f4, f5
      total  elements 4/11 (36.4%)  flows 3/8 (37.5%)
    ");
}

/// Plays the agent: first call activates one tool, the second ends the agent.
fn scripted_agent() -> impl FnMut(&TestJob) -> Answer {
    let calls = Cell::new(0);
    move |_job: &TestJob| {
        calls.set(calls.get() + 1);
        if calls.get() == 1 {
            Answer::complete_ad_hoc(
                (),
                AdHocJobResult {
                    activate_elements: vec![(
                        "lookup-order".into(),
                        [(
                            "toolCall".to_owned(),
                            SharedJson::new(
                                json!({"orderId": "1042", "_meta": {"id": "call_1", "name": "lookup-order"}}),
                            ),
                        )]
                        .into_iter()
                        .collect(),
                    )],
                    ..Default::default()
                },
            )
        } else {
            Answer::complete_ad_hoc(
                json!({"agent": {"responseJson": {"resolved": true}}}),
                AdHocJobResult {
                    completion_condition_fulfilled: true,
                    ..Default::default()
                },
            )
        }
    }
}

#[test]
fn tools_are_the_elements_an_agent_can_call() {
    let test = ProcessTest::from_file(template()).unwrap();
    test.answer_jobs_of_element("support-agent", "scripted agent", scripted_agent());
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    test.mock_job("email-send").complete();
    let run = test.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "Where is 1042?"}),
    );
    run.assert_completed().assert_passed_in_order([
        "lookup-order",
        "support-agent",
        "send-answer",
        "answered",
    ]);
    let report = test.coverage();
    let tools = &report.process("ai-agent-tool-loop").unwrap().tools;
    assert_eq!((tools.covered, tools.total, tools.percent), (1, 3, 33.3));
    assert_eq!(tools.uncovered, ["search-kb", "create-ticket"]);
    insta::assert_snapshot!(report.to_string());
}

#[test]
fn each_test_writes_a_file_and_the_files_merge() {
    let dir = out_dir("merge");
    {
        let a = ProcessTest::from_file(bpmn("order.bpmn"))
            .unwrap()
            .named("orders::charge only")
            .coverage_dir(&dir);
        a.mock_job("payment").complete();
        a.start("order", ());
    }
    // A path relative to the crate (the test's working directory), as users write them: the
    // file records it as the process's source.
    let b = ProcessTest::from_file("tests/it/bpmn/order.bpmn")
        .unwrap()
        .named("orders::ship only");
    b.mock_job("shipping").complete();
    let mut request = baton_testing::CreateInstance::new("order");
    request.start_instructions = vec!["ship".into()];
    b.try_start(request).unwrap();
    let written = b.write_coverage_to(&dir).unwrap();
    assert!(
        written
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("orders__ship_only-")
    );
    drop(b);

    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".json") && !n.starts_with('.'))
    );

    let merged = merge_dir(&dir).unwrap();
    assert_eq!(merged.tests, ["orders::charge only", "orders::ship only"]);
    let report = CoverageReport::from_data(&merged.processes);
    insta::assert_snapshot!(report.to_string(), @r"
    BPMN coverage
      order  elements 4/4 (100.0%)  flows 3/3 (100.0%)
    ");
    // The file format, as the CLI and the HTML report read it.
    let one = std::fs::read_to_string(dir.join(&names[1])).unwrap();
    insta::assert_snapshot!("coverage_file", one);
    assert_eq!(
        CoverageFile::from_json(&one).unwrap().tests,
        ["orders::ship only"]
    );
}

#[test]
fn different_models_of_one_process_stay_apart() {
    let v1 = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let v2 = ProcessTest::from_xml(
        "order-v2.bpmn",
        &std::fs::read_to_string(bpmn("order.bpmn"))
            .unwrap()
            .replace("\"done\"", "\"finished\""),
    )
    .unwrap();
    let a = CoverageFile::new("a", v1.coverage_data());
    let b = CoverageFile::new("b", v2.coverage_data());
    let merged = merge([&a, &b]);
    assert_eq!(merged.processes.len(), 2);
    assert_ne!(
        merged.processes[0].model_hash,
        merged.processes[1].model_hash
    );
}

#[test]
fn bad_files_are_named_in_the_error() {
    let dir = out_dir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("x.json"),
        r#"{"format": "other", "version": 1, "tests": [], "processes": []}"#,
    )
    .unwrap();
    let err = merge_dir(&dir).unwrap_err().to_string();
    assert!(
        err.ends_with(
            "x.json: not a baton coverage file: format is \"other\", expected \"baton-coverage\""
        ),
        "{err}"
    );
    let empty = out_dir("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(
        merge_dir(&empty)
            .unwrap_err()
            .to_string()
            .starts_with("no coverage file")
    );
}

#[test]
fn the_report_level_counts_name_what_was_missed_in_every_process() {
    // The seed's `t.coverage().tools` names the tools never called, as each process does.
    let test = ProcessTest::from_file(template()).unwrap();
    test.answer_jobs_of_element("support-agent", "scripted agent", scripted_agent());
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    test.mock_job("email-send").complete();
    test.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "Where is 1042?"}),
    );
    let report = test.coverage();
    assert_eq!(report.tools.uncovered, ["search-kb", "create-ticket"]);
    assert_eq!(report.tools.uncovered, report.processes[0].tools.uncovered);

    // Several processes: every process's ids, in process order.
    let test = ProcessTest::new();
    test.deploy_file(bpmn("order.bpmn")).unwrap();
    test.deploy_file(bpmn("payment.bpmn")).unwrap();
    test.mock_job("payment").complete();
    test.start("order", ());
    let report = test.coverage();
    assert_eq!(
        report.elements.uncovered,
        [
            "done",
            "start",
            "await-payment",
            "payment-timeout",
            "confirm",
            "confirmed",
            "cancel-order",
            "cancelled"
        ]
    );
    assert_eq!(
        report.flows.uncovered.len(),
        report.flows.total - report.flows.covered
    );
}

#[test]
fn the_report_equals_the_report_of_the_file_data() {
    let test = ProcessTest::from_file(template()).unwrap();
    test.deploy_file(template()).unwrap(); // a second version with the same model
    test.deploy_file(bpmn("order.bpmn")).unwrap();
    test.deploy_xml(
        "order-v2.bpmn",
        &std::fs::read_to_string(bpmn("order.bpmn"))
            .unwrap()
            .replace("\"done\"", "\"finished\""),
    )
    .unwrap();
    test.answer_jobs_of_element("support-agent", "scripted agent", scripted_agent());
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {}}));
    test.mock_job("payment").complete();
    test.start("ai-agent-tool-loop", ());
    test.start("order", ());
    let direct = test.coverage();
    let from_data = CoverageReport::from_data(&test.coverage_data());
    assert_eq!(direct, from_data);
    assert_eq!(direct.processes.len(), 3);
}
