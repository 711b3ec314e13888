//! The judge of ASSERT_VARIABLE through a fake provider: the prompt reaches the model, the
//! answer is scored against the threshold; similarity through a fake embeddings API.

use baton_providers::judge::{self, JudgeError};
use serde_json::json;

use crate::fake::{Credentials, Fake, Format, Reply, in_order};
use crate::requests::client;

fn credentials(key: &str) -> Credentials {
    Credentials {
        key: key.to_string(),
        secret: String::new(),
    }
}

#[test]
fn the_judge_scores_a_variable_through_the_model() {
    let fake = Fake::start(
        Format::Anthropic,
        credentials("sk-ant-test-key-0123456789"),
        in_order(vec![
            Reply::Text(
                "```json\n{\"reasoning\": \"It confirms a ticket.\", \"score\": 0.8}\n```".into(),
            ),
            Reply::Text("{\"reasoning\": \"No ticket is named.\", \"score\": 0.25}".into()),
            Reply::Text("The answer looks fine to me.".into()),
        ]),
    );
    let client = client(Some("anthropic:claude-haiku-4-5"), &fake.url);
    let target = client.target(None).unwrap();
    let expectation = "confirms that a ticket was opened";
    let actual = json!({"answer": "Ticket T-77 is open.", "resolved": true}).to_string();
    let good = client.judge(&target, expectation, &actual, None).unwrap();
    assert!(good.passed(judge::DEFAULT_THRESHOLD));
    let bad = client
        .judge(&target, expectation, "\"Hello\"", None)
        .unwrap();
    assert!(!bad.passed(judge::DEFAULT_THRESHOLD));
    let seen = fake.seen();
    let prompt = seen[0].json()["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(prompt, judge::prompt(expectation, &actual, None));
    let unreadable = client
        .judge(&target, expectation, "\"Hello\"", None)
        .unwrap_err();
    insta::assert_snapshot!(
        format!(
            "{}\n{}",
            judge::failure("agent", expectation, "\"Hello\"", 0.5, &bad),
            unreadable
        ),
        @r#"
        variable 'agent' did not satisfy the judge's expectation
          Expectation: confirms that a ticket was opened
          Actual value: "Hello"
          Score: 0.25 (threshold: 0.50)
          Reasoning: No ticket is named.
        the judge model returned an answer that does not read as {"reasoning", "score"}: expected value at line 1 column 1; its answer: The answer looks fine to me.
        "#
    );
}

#[test]
fn similarity_compares_embeddings() {
    let fake = Fake::start(
        Format::Embeddings,
        credentials("sk-test-key-0123456789abcdef"),
        in_order(vec![]),
    );
    let embedder = client(Some("openai:text-embedding-3-small"), &fake.url);
    let target = embedder.target(None).unwrap();
    let same = embedder
        .similarity(&target, "Ticket T-77 is open", "ticket t-77 is OPEN")
        .unwrap();
    let other = embedder
        .similarity(&target, "Ticket T-77 is open", "zzz")
        .unwrap();
    assert!((same - 1.0).abs() < 1e-9, "{same}");
    assert!(other < 0.2, "{other}");
    let anthropic = client(Some("anthropic:claude-haiku-4-5"), &fake.url);
    let error = anthropic
        .similarity(&anthropic.target(None).unwrap(), "a", "b")
        .unwrap_err();
    assert!(matches!(error, JudgeError::Invalid(_)), "{error}");
}
