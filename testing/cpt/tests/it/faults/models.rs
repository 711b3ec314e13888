//! The `ai-agent-faults` template's setup, shared with baton-testing's model-fault tests
//! (`tests/it/faults/models.rs` there): a cassette recorded with or without a connector crash.

use baton_testing::ProcessTest;
use baton_testing::agent::Turn;
use baton_testing::agent::recording::{CassetteMode, CassetteScript};
use baton_testing::faults::ModelFault;
use serde_json::json;

pub fn template_file() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../templates/ai-agent-faults/ai-agent-faults.bpmn")
        .display()
        .to_string()
}

fn template() -> ProcessTest {
    let t = ProcessTest::from_file(template_file()).unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": false}}));
    t.mock_job("email-send").complete();
    t.mock_job("sla-alert").complete();
    t
}

fn answer() -> Turn {
    Turn::respond_json(json!({"answer": "Order 1042 was delivered yesterday.", "resolved": true}))
}

fn turns() -> Vec<Turn> {
    vec![
        Turn::call("lookup-order", json!({"orderId": "1042"})),
        answer(),
    ]
}

fn start(t: &ProcessTest) -> baton_testing::Run {
    t.start(
        "ai-agent-faults",
        json!({"customerMessage": "Where is order 1042?", "customerEmail": "kim@example.com"}),
    )
}

pub fn record_cassette(path: &std::path::Path, crash: bool) -> u32 {
    let t = template().time_skipping(true);
    let mut turns = turns().into_iter();
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let counted = asked.clone();
    let agent = t.mock_ai_agent(
        "support-agent",
        CassetteScript::new(path)
            .mode(CassetteMode::Record)
            .record_with(move |_| {
                counted.set(counted.get() + 1);
                turns.next().expect("a turn left")
            }),
    );
    if crash {
        agent.inject_fault(ModelFault::crash_after_answer().at_call(1));
    }
    start(&t).assert_completed();
    agent.check_all_turns_used().unwrap();
    asked.get()
}
