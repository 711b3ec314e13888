//! The ai-agent-tool-loop template explored: counts pinned, the same report for any number of
//! threads, seeded sampling.

use baton_testing::explore::{AgentSpace, EndState, Invariant, Space};
use baton_testing::{Answer, ProcessTest};
use serde_json::json;

const TEMPLATE: &str =
    include_str!("../../../../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn");

pub fn template() -> ProcessTest {
    let test = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", TEMPLATE).unwrap();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns"]}));
    test.mock_job("email-send").complete();
    test.mock_job("support-alert").complete();
    test
}

/// The space of the issue, with model calls up to `calls`: up to 2 tools per turn in every
/// order, both answers of the response schema, success and a BPMN error for the ticket tool.
pub fn space(calls: u32) -> Space {
    space_of("ai-agent-tool-loop", calls)
}

fn space_of(process_id: &str, calls: u32) -> Space {
    Space::start(
        process_id,
        json!({"customerMessage": "My order 1042 arrived broken."}),
    )
    .agent(
        AgentSpace::new("support-agent")
            .max_tools_per_turn(2)
            .values("create-ticket", "priority", [json!("high")]),
    )
    .outcomes(
        "ticket-create",
        [
            Answer::complete(json!({"ticketId": "T-1"})),
            Answer::throw_error("TICKET_FAILED", "the ticket system is down"),
        ],
    )
    .max_model_calls(calls)
}

pub fn invariants() -> Vec<Invariant> {
    vec![
        Invariant::never_before("create-ticket", "lookup-order"),
        Invariant::no_incident(),
        Invariant::ends_in([
            EndState::Completed,
            EndState::WaitingAt("queue-for-human".into()),
        ]),
        Invariant::reaches("alert-support"),
    ]
}

#[test]
fn the_template_is_searched_to_the_end_with_its_counts_pinned() {
    let report = template().explore(&space(2), invariants()).unwrap();
    assert_eq!(
        report.counts(),
        "1076 trajectories (576 cut at the model-call bound), 445 distinct states, 0 pruned"
    );
    let verdicts: Vec<(String, bool, u64)> = report
        .checks
        .iter()
        .map(|c| (c.invariant.to_string(), c.holds(), c.count))
        .collect();
    insta::assert_debug_snapshot!(verdicts);
    let ticket_first = report.counterexample(0).unwrap();
    assert_eq!((ticket_first.model_calls, ticket_first.tool_calls), (1, 1));
    let broken: Vec<String> = report
        .counterexamples()
        .map(|(invariant, _)| invariant.to_string())
        .collect();
    assert_eq!(
        broken,
        ["\"create-ticket\" never before \"lookup-order\" completed"]
    );
    assert!(report.check().is_err());
    insta::assert_snapshot!(without_time(&report.to_string()));
}

/// The report's text without its wall-time line.
pub fn without_time(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("time: "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The report as JSON without its wall-time figures.
fn json_without_time(report: &baton_testing::explore::Report) -> serde_json::Value {
    let mut json = report.to_json();
    let object = json.as_object_mut().unwrap();
    object.remove("seconds");
    object.remove("trajectoriesPerSecond");
    json
}

/// Up to 3 model calls searched to the end, in every `cargo test`. The whole space of the guide
/// (4 model calls, 228 116 trajectories: a minute in a debug build) is pinned in the benchmark
/// suite, which runs it in release (`benches/benches/explore.rs`).
#[test]
fn the_template_with_three_model_calls_is_searched_to_the_end() {
    let report = template().explore(&space(3), invariants()).unwrap();
    assert_eq!(
        report.counts(),
        "16244 trajectories (8544 cut at the model-call bound), 6269 distinct states, 2880 pruned"
    );
    assert!(report.cut_off.is_none());
    let ticket_first = report.counterexample(0).unwrap();
    assert_eq!((ticket_first.model_calls, ticket_first.tool_calls), (1, 1));
    assert!(report.checks[1..3].iter().all(|c| c.holds()));
}

#[test]
fn the_report_is_the_same_for_any_number_of_threads() {
    let one = template()
        .explore(&space(2).threads(1), invariants())
        .unwrap();
    let two = template()
        .explore(&space(2).threads(2), invariants())
        .unwrap();
    assert_eq!(json_without_time(&one), json_without_time(&two));
}

#[test]
fn replaying_prefixes_instead_of_forking_gives_the_same_report() {
    let forked = template().explore(&space(2), invariants()).unwrap();
    let replayed = template()
        .explore(&space(2).replaying_prefixes(), invariants())
        .unwrap();
    assert_eq!(json_without_time(&forked), json_without_time(&replayed));
}

#[test]
fn sampling_is_seeded() {
    let sampled = |seed| {
        let report = template()
            .explore(&space(3).sample(seed, 200), invariants())
            .unwrap();
        (report.counts(), report.checks[0].count)
    };
    assert_eq!(sampled(7), sampled(7));
    assert_ne!(sampled(7), sampled(8));
    assert!(sampled(7).0.starts_with("200 trajectories"));
}

/// The template on the v2 AI Agent Sub-process connector (aiagent:subprocess:2): the same
/// choices, so the same counts and verdicts as on v1.
#[test]
fn the_v2_connector_template_is_explored_like_v1() {
    const V2: &str =
        include_str!("../../../../templates/ai-agent-tool-loop-v2/ai-agent-tool-loop-v2.bpmn");
    let test = ProcessTest::from_xml("ai-agent-tool-loop-v2.bpmn", V2).unwrap();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns"]}));
    test.mock_job("email-send").complete();
    test.mock_job("support-alert").complete();
    let v2 = test
        .explore(&space_of("ai-agent-tool-loop-v2", 2), invariants())
        .unwrap();
    let v1 = template().explore(&space(2), invariants()).unwrap();
    assert_eq!(v2.counts(), v1.counts());
    let verdicts = |r: &baton_testing::explore::Report| -> Vec<(bool, u64)> {
        r.checks.iter().map(|c| (c.holds(), c.count)).collect()
    };
    assert_eq!(verdicts(&v2), verdicts(&v1));
}
