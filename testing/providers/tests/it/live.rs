//! Live runs against a seeded stochastic fake: the model takes the good path (look up the order
//! and the knowledge base, open a ticket, a resolved answer) with probability 0.7, else looks up
//! the order only and hands over to a person (the case fails: it expects the e-mail); one first
//! call in ten is rate limited. The statistics must count what the fake chose.

use std::sync::{Arc, Mutex};

use baton_providers::live::{self, CaseStats, Outcome, Verdict};
use serde_json::{Value, json};

use crate::fake::{Credentials, Fake, Format, Reply};
use crate::requests::client;
use crate::support::{AGENT, MESSAGE, PROCESS, template};

/// splitmix64: a seeded stream of numbers in [0, 1).
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Good,
    Handover,
    RateLimited,
}

/// The fake's policy; `chosen` logs the path of every run (its first call).
fn stochastic(seed: u64, chosen: Arc<Mutex<Vec<Path>>>) -> crate::fake::Policy {
    let mut random = Seeded(seed);
    let mut path = Path::Good;
    Box::new(move |_, body: &Value| {
        // A run's first call carries no assistant message yet.
        let first = !body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|m| m["role"] == "assistant");
        let step = body["messages"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
        if first {
            let draw = random.next();
            path = if draw < 0.1 {
                Path::RateLimited
            } else if draw < 0.1 + 0.9 * 0.7 {
                Path::Good
            } else {
                Path::Handover
            };
            chosen.lock().unwrap().push(path);
        }
        match (path, step) {
            (Path::RateLimited, _) => Reply::Status(
                429,
                json!({"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}),
                vec![("retry-after", "1")],
            ),
            (Path::Good, 0) => Reply::Calls(vec![
                ("lookup-order", json!({"orderId": "1042"})),
                ("search-kb", json!({"query": "damaged"})),
            ]),
            (Path::Good, 1) => Reply::Calls(vec![("create-ticket", json!({"summary": "Damaged"}))]),
            (Path::Good, _) => {
                Reply::Text(r#"{"answer": "Ticket open.", "resolved": true}"#.into())
            }
            (Path::Handover, 0) => Reply::Calls(vec![("lookup-order", json!({"orderId": "1042"}))]),
            (Path::Handover, _) => {
                Reply::Text(r#"{"answer": "A colleague will help.", "resolved": false}"#.into())
            }
        }
    })
}

/// The case: the customer gets the answer by e-mail.
fn run_case(client: baton_providers::ModelClient) -> live::Run {
    let spent = client.spent_counter();
    let (script, errors) = client.into_script();
    let t = template();
    let agent = t.mock_ai_agent(AGENT, script);
    let run = t.start(
        PROCESS,
        json!({"customerMessage": MESSAGE, "customerEmail": "kim@example.com"}),
    );
    let test = if run.completed_elements().iter().any(|e| e == "answered") {
        Ok(())
    } else {
        Err("the customer got no e-mail".to_string())
    };
    let outcome = live::outcome(&errors.borrow(), test);
    live::Run {
        outcome,
        trajectory: live::trajectory(&agent),
        usage: spent.get(),
    }
}

#[test]
fn the_statistics_count_what_the_model_did() {
    let chosen = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake::start(
        Format::OpenAi,
        Credentials {
            key: "sk-test-key-0123456789abcdef".into(),
            secret: String::new(),
        },
        stochastic(7, chosen.clone()),
    );
    let (runs, stop) = live::repeat(40, None, |_| {
        run_case(client(Some("openai:gpt-4o"), &fake.url))
    });
    assert_eq!(stop, None);
    let chosen = chosen.lock().unwrap().clone();
    assert_eq!(chosen.len(), 40);
    let count = |p| chosen.iter().filter(|c| **c == p).count() as u64;
    let stats = CaseStats::of(&runs);
    assert_eq!(stats.passes, count(Path::Good));
    assert_eq!(stats.valid, count(Path::Good) + count(Path::Handover));
    assert_eq!(stats.infrastructure_errors, count(Path::RateLimited));
    assert_eq!(
        stats.wilson,
        live::wilson(stats.passes, stats.valid, live::Z95)
    );
    for (run, path) in runs.iter().zip(&chosen) {
        let expected = match path {
            Path::Good => Outcome::Passed,
            Path::Handover => Outcome::Failed("the customer got no e-mail".into()),
            Path::RateLimited => run.outcome.clone(),
        };
        assert_eq!(run.outcome, expected);
        if *path == Path::RateLimited {
            assert!(matches!(run.outcome, Outcome::Infrastructure(_)));
        }
    }
    assert_eq!(stats.verdict(Some(0.9)), Verdict::Failed);
    assert_eq!(stats.verdict(Some(0.4)), Verdict::Flaky);
    insta::assert_snapshot!(stats.describe());
}

#[test]
fn a_token_budget_stops_a_live_run() {
    let chosen = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake::start(
        Format::OpenAi,
        Credentials {
            key: "sk-test-key-0123456789abcdef".into(),
            secret: String::new(),
        },
        stochastic(7, chosen.clone()),
    );
    let (runs, stop) = live::repeat(40, Some(1000), |_| {
        run_case(client(Some("openai:gpt-4o"), &fake.url))
    });
    assert!(runs.len() < 40);
    assert!(matches!(
        stop,
        Some(live::Stop::TokenBudget { budget: 1000, .. })
    ));
}
