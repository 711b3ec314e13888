//! DMN: the fixtures of fixtures/dmn (accept fixtures carry their evaluation cases in their
//! header, reject fixtures the diagnostics they must produce), business rule tasks in the engine
//! (binding types, incidents, records, mocks, standalone evaluation, queries), and the DMN files
//! of the CPT corpus evaluated with the outputs their tests expect.

use std::fmt::Write as _;
use std::path::Path;

use baton_engine::deploy::{Resource, check};
use baton_engine::dmn::{self, Drg};
use baton_engine::runtime::*;
use baton_feel::Env;
use serde_json::{Value as Json, json};

use crate::fixtures::{diagnostic_ids, expected_diagnostics, fixture_resource};
use crate::xml::{definitions, doc, process};

/// A file as a resource named by its path under `fixtures/dmn` (or as given, for corpus files).
fn resource(path: &Path) -> Resource {
    fixture_resource("dmn", path)
}

/// Numbers compare by value (`10` equals `10.0`), everything else structurally.
fn json_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// One `case:` line of an accept fixture:
/// `case: <decision> <variables JSON> -> <output JSON> matched [<rule indexes>]` or `-> fail`.
struct Case {
    decision: String,
    variables: Json,
    expected: Option<(Json, Vec<u32>)>,
}

fn cases(header: &str) -> Vec<Case> {
    header
        .lines()
        .take_while(|line| !line.trim_start().starts_with("-->"))
        .filter_map(|line| line.trim().strip_prefix("case:"))
        .map(|case| {
            let (left, right) = case.split_once(" -> ").expect("case: ... -> ...");
            let (decision, variables) = left.trim().split_once(' ').expect("decision and JSON");
            let variables: Json = serde_json::from_str(variables).expect("variables JSON");
            let right = right.trim();
            let expected = if right == "fail" {
                None
            } else {
                let (output, matched) = right.split_once(" matched ").expect("matched [...]");
                Some((
                    serde_json::from_str(output).expect("output JSON"),
                    serde_json::from_str(matched).expect("matched rule list"),
                ))
            };
            Case {
                decision: decision.to_owned(),
                variables,
                expected,
            }
        })
        .collect()
}

/// An evaluation as text: result, then every evaluated decision with inputs and matched rules.
fn describe(evaluation: &dmn::Evaluation) -> String {
    let mut out = String::new();
    match &evaluation.result {
        Ok(_) => writeln!(out, "  output {}", evaluation.output_json()).unwrap(),
        Err(failure) => writeln!(
            out,
            "  failed ({}): {}",
            failure.failed_decision_id, failure.message
        )
        .unwrap(),
    }
    for d in &evaluation.evaluated_decisions {
        writeln!(
            out,
            "  - {} \"{}\" {} -> {}",
            d.decision_id, d.decision_name, d.decision_type, d.output
        )
        .unwrap();
        for input in &d.evaluated_inputs {
            writeln!(
                out,
                "      input {} \"{}\" = {}",
                input.input_id, input.input_name, input.input_value
            )
            .unwrap();
        }
        for rule in &d.matched_rules {
            let outputs: Vec<String> = rule
                .evaluated_outputs
                .iter()
                .map(|o| {
                    format!(
                        "{}({})={}",
                        o.output_id,
                        o.output_name.as_deref().unwrap_or("-"),
                        o.output_value
                    )
                })
                .collect();
            writeln!(
                out,
                "      rule {} \"{}\": {}",
                rule.rule_index,
                rule.rule_id,
                outputs.join(", ")
            )
            .unwrap();
        }
    }
    out
}

fn evaluate(drg: &Drg, decision: &str, variables: &Json) -> dmn::Evaluation {
    dmn::evaluate(
        drg,
        decision,
        variables.as_object().expect("variables object"),
        &Env::default(),
    )
}

#[test]
fn accept_fixtures_evaluate_as_their_cases_say() {
    insta::glob!("../../../fixtures/dmn/accept", "*.dmn", |path| {
        let resource = resource(path);
        let header = String::from_utf8_lossy(resource.content()).into_owned();
        let deployed = match check(&[resource]) {
            Ok(deployed) => deployed,
            Err(diagnostics) => panic!("{} must deploy:\n{diagnostics}", path.display()),
        };
        let drg = deployed[0].drg().expect("a DMN resource").clone();
        let cases = cases(&header);
        assert!(!cases.is_empty(), "{} has no case", path.display());
        let mut snapshot = String::new();
        for case in cases {
            let evaluation = evaluate(&drg, &case.decision, &case.variables);
            let label = format!("{} {}", case.decision, case.variables);
            match (&case.expected, &evaluation.result) {
                (Some((output, matched)), Ok(_)) => {
                    assert!(
                        json_equal(output, &evaluation.output_json()),
                        "{label}: expected {output}, got {}",
                        evaluation.output_json()
                    );
                    let got: Vec<u32> = evaluation
                        .evaluated_decisions
                        .iter()
                        .rev()
                        .find(|d| *d.decision_id == *case.decision)
                        .map(|d| d.matched_rules.iter().map(|r| r.rule_index).collect())
                        .unwrap_or_default();
                    assert_eq!(&got, matched, "{label}: matched rules");
                }
                (None, Err(_)) => {}
                (expected, _) => panic!(
                    "{label}: expected {}, got:\n{}",
                    expected
                        .as_ref()
                        .map_or("a failure".to_owned(), |(o, _)| o.to_string()),
                    describe(&evaluation)
                ),
            }
            writeln!(snapshot, "{label}\n{}", describe(&evaluation)).unwrap();
        }
        insta::assert_snapshot!(snapshot);
    });
}

#[test]
fn reject_fixtures_give_their_diagnostics() {
    insta::glob!("../../../fixtures/dmn/reject", "*.dmn", |path| {
        let resource = resource(path);
        let header = String::from_utf8_lossy(resource.content()).into_owned();
        let diagnostics = match check(&[resource]) {
            Ok(_) => panic!("{} must be rejected", path.display()),
            Err(diagnostics) => diagnostics,
        };
        assert_eq!(
            diagnostic_ids(&diagnostics),
            expected_diagnostics(&header),
            "{}: diagnostics differ from the header\n{diagnostics}",
            path.display()
        );
        insta::assert_snapshot!(diagnostics.to_string());
    });
}

// --- the engine ----------------------------------------------------------------------------

const DISCOUNT_DMN: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="discounts" name="Discounts" namespace="http://baton.dev/dmn">
  <decision id="customerLevel" name="Customer level">
    <decisionTable id="level_table" hitPolicy="FIRST">
      <input id="orders_input" label="Orders"><inputExpression id="orders_e"><text>orders</text></inputExpression></input>
      <output id="level_output" name="level"/>
      <rule id="gold"><inputEntry id="g1"><text>&gt;= 10</text></inputEntry><outputEntry id="g2"><text>"gold"</text></outputEntry></rule>
      <rule id="basic"><inputEntry id="b1"><text>-</text></inputEntry><outputEntry id="b2"><text>"basic"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="discount" name="Discount">
    <extensionElements><zeebe:versionTag value="v1"/></extensionElements>
    <informationRequirement id="ir"><requiredDecision href="#customerLevel"/></informationRequirement>
    <decisionTable id="discount_table">
      <input id="level_input" label="Level"><inputExpression id="level_e"><text>customerLevel</text></inputExpression></input>
      <input id="total_input"><inputExpression id="total_e"><text>total</text></inputExpression></input>
      <output id="rate_output" label="Rate" name="rate"/>
      <output id="reason_output" name="reason"/>
      <rule id="gold_big"><inputEntry id="r1a"><text>"gold"</text></inputEntry><inputEntry id="r1b"><text>&gt; 100</text></inputEntry><outputEntry id="r1c"><text>15</text></outputEntry><outputEntry id="r1d"><text>"gold and big"</text></outputEntry></rule>
      <rule id="gold_small"><inputEntry id="r2a"><text>"gold"</text></inputEntry><inputEntry id="r2b"><text>&lt;= 100</text></inputEntry><outputEntry id="r2c"><text>10</text></outputEntry><outputEntry id="r2d"><text>"gold"</text></outputEntry></rule>
      <rule id="any_big"><inputEntry id="r3a"><text>"basic"</text></inputEntry><inputEntry id="r3b"><text>&gt; 100</text></inputEntry><outputEntry id="r3c"><text>5</text></outputEntry><outputEntry id="r3d"><text>"big"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="strict" name="Strict">
    <decisionTable id="strict_table">
      <input id="strict_input"><inputExpression id="strict_e"><text>total</text></inputExpression></input>
      <output id="strict_output" name="size"/>
      <rule id="s1"><inputEntry id="s1a"><text>&gt; 0</text></inputEntry><outputEntry id="s1b"><text>"positive"</text></outputEntry></rule>
      <rule id="s2"><inputEntry id="s2a"><text>&gt; 10</text></inputEntry><outputEntry id="s2b"><text>"big"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>"##;

/// A process whose business rule task calls `decision_id` (with extra attributes) into `result`.
fn rule_task_process(id: &str, decision_attributes: &str) -> String {
    definitions(&process(
        id,
        &format!(
            r#"<bpmn:startEvent id="start"/>
            <bpmn:businessRuleTask id="decide"><bpmn:extensionElements><zeebe:calledDecision {decision_attributes} resultVariable="result"/></bpmn:extensionElements></bpmn:businessRuleTask>
            <bpmn:endEvent id="end"/>
            {}"#,
            crate::xml::chain(&["start", "decide", "end"])
        ),
    ))
}

fn engine_with(resources: &[(&str, &str)]) -> Engine {
    let mut e = Engine::default();
    let resources: Vec<Resource> = resources
        .iter()
        .map(|(name, text)| Resource::new(*name, text.as_bytes().to_vec()))
        .collect();
    if let Err(r) = e.deploy(&resources) {
        panic!("deploy failed: {r}");
    }
    e
}

/// The last value a process instance's root scope held for a variable (from the log: ended
/// instances keep no state).
fn var(e: &Engine, pi: Key, name: &str) -> Option<Json> {
    e.records().iter().rev().find_map(|r| match &r.value {
        RecordValue::Variable(v) if v.scope_key == pi && &*v.name == name => {
            Some((*v.value).clone())
        }
        _ => None,
    })
}

fn start(e: &mut Engine, process_id: &str, variables: Json) -> Key {
    e.create_instance(CreateInstance::new(process_id).variables(doc(variables)))
        .expect("instance")
}

#[test]
fn a_business_rule_task_evaluates_the_latest_decision_and_writes_the_result_variable() {
    let bpmn = rule_task_process("order", r#"decisionId="discount""#);
    let mut e = engine_with(&[("order.bpmn", &bpmn), ("discounts.dmn", DISCOUNT_DMN)]);
    let pi = start(&mut e, "order", json!({"orders": 12, "total": 150}));
    assert_eq!(crate::xml::state_of(&e, pi), State::Completed);
    assert_eq!(
        var(&e, pi, "result").as_ref(),
        Some(&json!({"rate": 15, "reason": "gold and big"}))
    );
    // One DECISION_EVALUATION record, the required decision first.
    let instances = e.decision_instances_of(pi);
    let summary: Vec<(String, &str, Vec<u32>, String)> = instances
        .iter()
        .map(|d| {
            (
                d.key.clone(),
                d.decision_id,
                d.matched_rules.iter().map(|r| r.rule_index).collect(),
                d.output.to_string(),
            )
        })
        .collect();
    let key = instances[0].evaluation_key;
    assert_eq!(
        summary,
        vec![
            (
                format!("{key}-1"),
                "customerLevel",
                vec![1],
                "\"gold\"".to_owned()
            ),
            (
                format!("{key}-2"),
                "discount",
                vec![1],
                r#"{"rate":15,"reason":"gold and big"}"#.to_owned()
            ),
        ]
    );
    assert_eq!(instances[1].element_id, Some("decide"));
    assert_eq!(instances[1].decision_version, Some(1));
    let record = e
        .records()
        .iter()
        .find(|r| r.value_type == ValueType::DecisionEvaluation)
        .expect("a DECISION_EVALUATION record");
    insta::assert_json_snapshot!(
        "business_rule_task_decision_evaluation_record",
        e.record_json(record)
    );
    let log: Vec<String> = e
        .records()
        .iter()
        .filter(|r| {
            matches!(
                r.value_type,
                ValueType::Deployment
                    | ValueType::Process
                    | ValueType::DecisionRequirements
                    | ValueType::Decision
                    | ValueType::DecisionEvaluation
            )
        })
        .map(|r| e.render_record(r))
        .collect();
    insta::assert_snapshot!("business_rule_task_log", log.join("\n"));
}

#[test]
fn a_failing_evaluation_is_a_decision_evaluation_error_incident_and_resolving_retries_it() {
    let bpmn = rule_task_process("sizes", r#"decisionId="strict""#);
    let mut e = engine_with(&[("sizes.bpmn", &bpmn), ("discounts.dmn", DISCOUNT_DMN)]);
    let pi = start(&mut e, "sizes", json!({"total": 50}));
    let incidents = e.incidents();
    assert_eq!(incidents.len(), 1, "{incidents:?}");
    assert_eq!(incidents[0].error_type, ErrorType::DecisionEvaluationError);
    insta::assert_snapshot!(incidents[0].error_message.to_string(), @r#"Expected to evaluate decision 'strict', but multiple values aren't allowed for UNIQUE hit policy. found: 'List(Map(size -> "positive"), Map(size -> "big"))'"#);
    let failed = e
        .records()
        .iter()
        .find(|r| r.value_type == ValueType::DecisionEvaluation)
        .expect("a DECISION_EVALUATION record");
    assert_eq!(failed.intent, Intent::Other(OtherIntent::Failed));
    let json = e.record_json(failed);
    assert_eq!(json["value"]["failedDecisionId"], "strict");
    assert_eq!(
        json["value"]["evaluatedDecisions"][0]["matchedRules"][1]["ruleIndex"],
        2
    );
    let instances = e.find_decision_instances(Some("strict"), None);
    assert!(instances[0].failed);

    // Fix the variable and resolve: the decision is evaluated again.
    e.set_variables(pi, doc(json!({"total": 5})), false)
        .unwrap();
    e.resolve_incident(incidents[0].key).unwrap();
    assert_eq!(crate::xml::state_of(&e, pi), State::Completed);
    assert_eq!(var(&e, pi, "result").as_ref(), Some(&json!("positive")));
    assert!(e.incidents().is_empty());
}

#[test]
fn a_missing_decision_is_a_called_decision_error_incident() {
    let bpmn = rule_task_process("missing", r#"decisionId="nowhere""#);
    let mut e = engine_with(&[("missing.bpmn", &bpmn)]);
    start(&mut e, "missing", json!({}));
    let incidents = e.incidents();
    assert_eq!(incidents[0].error_type, ErrorType::CalledDecisionError);
    assert_eq!(
        &*incidents[0].error_message,
        "Expected to evaluate decision 'nowhere', but no decision found for id 'nowhere'"
    );
}

#[test]
fn binding_types_pick_the_decision_version() {
    let v2 = DISCOUNT_DMN
        .replace(
            r#"<zeebe:versionTag value="v1"/>"#,
            r#"<zeebe:versionTag value="v2"/>"#,
        )
        .replace("<text>15</text>", "<text>20</text>");
    let latest = rule_task_process("latest", r#"decisionId="discount""#);
    let pinned = rule_task_process(
        "pinned",
        r#"decisionId="discount" bindingType="deployment""#,
    );
    let tagged = rule_task_process(
        "tagged",
        r#"decisionId="discount" bindingType="versionTag" versionTag="v1""#,
    );
    let missing_tag = rule_task_process(
        "missingTag",
        r#"decisionId="discount" bindingType="versionTag" versionTag="v9""#,
    );
    let mut e = engine_with(&[("pinned.bpmn", &pinned), ("discounts.dmn", DISCOUNT_DMN)]);
    let info = e
        .deploy(&[
            Resource::new("latest.bpmn", latest.into_bytes()),
            Resource::new("tagged.bpmn", tagged.into_bytes()),
            Resource::new("missingTag.bpmn", missing_tag.into_bytes()),
            Resource::new("discounts.dmn", v2.into_bytes()),
        ])
        .unwrap();
    assert_eq!(
        info.decisions
            .iter()
            .map(|(id, version, _)| (id.as_str(), *version))
            .collect::<Vec<_>>(),
        [("customerLevel", 2), ("discount", 2), ("strict", 2)]
    );
    let vars = json!({"orders": 12, "total": 150});
    let rate = |e: &Engine, pi| var(e, pi, "result").map(|r| r["rate"].clone());
    let pi = start(&mut e, "latest", vars.clone());
    assert_eq!(rate(&e, pi), Some(json!(20)));
    let pi = start(&mut e, "pinned", vars.clone());
    assert_eq!(rate(&e, pi), Some(json!(15)));
    let pi = start(&mut e, "tagged", vars.clone());
    assert_eq!(rate(&e, pi), Some(json!(15)));
    start(&mut e, "missingTag", vars);
    let incident = e.incidents().pop().expect("an incident");
    assert_eq!(incident.error_type, ErrorType::CalledDecisionError);
    assert_eq!(
        &*incident.error_message,
        "Expected to evaluate decision with id 'discount' and version tag 'v9', but no such decision found. To resolve this incident, deploy a decision with the given id and version tag."
    );
}

#[test]
fn an_unchanged_dmn_deployed_again_is_no_new_version() {
    let mut e = engine_with(&[("discounts.dmn", DISCOUNT_DMN)]);
    let again = e
        .deploy(&[Resource::new(
            "discounts.dmn",
            DISCOUNT_DMN.as_bytes().to_vec(),
        )])
        .unwrap();
    assert!(again.decisions.is_empty(), "{again:?}");
    assert_eq!(e.latest_decision("discount").unwrap().version, 1);
    let renamed = e
        .deploy(&[Resource::new(
            "renamed.dmn",
            DISCOUNT_DMN.as_bytes().to_vec(),
        )])
        .unwrap();
    assert_eq!(renamed.decisions.len(), 3);
    assert_eq!(e.latest_decision("discount").unwrap().version, 2);
}

#[test]
fn deployments_reject_duplicate_decisions_and_unbound_deployment_bindings() {
    let mut e = Engine::default();
    let other = DISCOUNT_DMN.replace(r#"id="discounts""#, r#"id="other""#);
    let pinned = rule_task_process(
        "pinned",
        r#"decisionId="elsewhere" bindingType="deployment""#,
    );
    let rejection = e
        .deploy(&[
            Resource::new("a.dmn", DISCOUNT_DMN.as_bytes().to_vec()),
            Resource::new("b.dmn", other.into_bytes()),
            Resource::new("c.dmn", DISCOUNT_DMN.as_bytes().to_vec()),
            Resource::new("pinned.bpmn", pinned.into_bytes()),
        ])
        .unwrap_err();
    insta::assert_snapshot!(rejection.message);
}

#[test]
fn standalone_evaluation_records_a_decision_instance_without_a_process() {
    let mut e = engine_with(&[("discounts.dmn", DISCOUNT_DMN)]);
    let outcome = e
        .evaluate_decision("discount", doc(json!({"orders": 1, "total": 500})))
        .unwrap();
    assert_eq!(outcome.output, json!({"rate": 5, "reason": "big"}));
    assert_eq!(outcome.matched_rules, [3]);
    assert_eq!(outcome.failure_message, None);
    let instances = e.find_decision_instances(Some("discount"), None);
    assert_eq!(instances.len(), 1);
    assert_eq!(instances[0].process_instance_key, None);
    let by_name = e.find_decision_instances(None, Some("Customer level"));
    assert_eq!(by_name[0].output, &json!("basic"));

    let failed = e
        .evaluate_decision("strict", doc(json!({"total": 50})))
        .unwrap();
    assert!(failed.failure_message.as_deref().is_some_and(|m| {
        m.starts_with("Expected to evaluate decision 'strict', but multiple values")
    }));
    let rejection = e.evaluate_decision("nowhere", doc(json!({}))).unwrap_err();
    assert_eq!(rejection.rejection_type, RejectionType::NotFound);
    assert_eq!(
        rejection.message,
        "Expected to evaluate decision 'nowhere', but no decision found for id 'nowhere'"
    );
}

#[test]
fn a_mocked_decision_returns_its_output_as_the_latest_version() {
    let bpmn = rule_task_process("order", r#"decisionId="discount""#);
    let mut e = engine_with(&[("order.bpmn", &bpmn), ("discounts.dmn", DISCOUNT_DMN)]);
    e.register_decision("discount", json!({"discount": 15}));
    let mocked = e.latest_decision("discount").unwrap();
    assert_eq!(mocked.version, 2);
    let pi = start(&mut e, "order", json!({"orders": 12, "total": 150}));
    assert_eq!(
        var(&e, pi, "result").as_ref(),
        Some(&json!({"discount": 15}))
    );
    let instance = &e.decision_instances_of(pi)[0];
    assert_eq!(instance.decision_type, dmn::DecisionType::LiteralExpression);
    assert!(instance.matched_rules.is_empty());
    // A decision nobody deployed can be mocked too.
    e.register_decision("invented", json!(42));
    let outcome = e.evaluate_decision("invented", doc(json!({}))).unwrap();
    assert_eq!(outcome.output, json!(42));
}

// --- the CPT corpus --------------------------------------------------------------------------

/// The DRG of a corpus DMN file, or `None` (with a message) when ../shared is absent.
fn corpus_drg(relative: &str) -> Option<std::sync::Arc<Drg>> {
    let Some(shared) = crate::corpus::shared() else {
        eprintln!("skipped: ../shared is absent");
        return None;
    };
    let path = shared.join("corpus/cpt/cases").join(relative);
    let deployed = check(&[resource(&path)]).unwrap_or_else(|d| panic!("{relative}: {d}"));
    Some(deployed[0].drg().expect("DMN").clone())
}

/// Every EVALUATE_DECISION / ASSERT_DECISION pair of ccon26-discount-decision, through the
/// engine's standalone evaluation.
#[test]
fn the_discount_decision_gives_the_outputs_its_cpt_tests_assert() {
    let Some(shared) = crate::corpus::shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let dir = shared.join("corpus/cpt/cases/ccon26-discount-decision");
    let dmn = std::fs::read(dir.join("calculate-discount.dmn")).unwrap();
    let tests: Json =
        serde_json::from_slice(&std::fs::read(dir.join("discount-decision-test.json")).unwrap())
            .unwrap();
    let mut e = Engine::default();
    e.deploy(&[Resource::new("calculate-discount.dmn", dmn)])
        .unwrap();
    let mut checked = 0;
    for case in tests["testCases"].as_array().unwrap() {
        let mut last: Option<DecisionOutcome> = None;
        for instruction in case["instructions"].as_array().unwrap() {
            match instruction["type"].as_str().unwrap() {
                "EVALUATE_DECISION" => {
                    let id = instruction["decisionDefinitionSelector"]["decisionDefinitionId"]
                        .as_str()
                        .unwrap();
                    last = Some(
                        e.evaluate_decision(id, doc(instruction["variables"].clone()))
                            .unwrap(),
                    );
                }
                "ASSERT_DECISION" => {
                    let outcome = last.as_ref().expect("evaluated first");
                    assert!(
                        json_equal(&instruction["output"], &outcome.output),
                        "{}: expected {}, got {}",
                        case["name"],
                        instruction["output"],
                        outcome.output
                    );
                    checked += 1;
                }
                other => panic!("unexpected instruction {other}"),
            }
        }
    }
    assert_eq!(checked, 15);
}

/// The other corpus DMN files, with the variables their CPT tests give and the outputs the tests
/// rely on (their descriptions say which branch the process takes).
#[test]
fn corpus_decisions_give_the_outputs_their_tests_rely_on() {
    let cases: &[(&str, &str, Json, Json)] = &[
        // tut-bank-complaint-dispute: the output mappings take the mean of each column: case 1
        // "isRefund=false, isHighFraudRatingConfidence=true", case 2 "confidence false", case 3
        // "both true".
        (
            "tut-bank-complaint-dispute/determine_fraud_rating_confidence.dmn",
            "determine-fraud-rating-1dmmwcu",
            json!({"customer_claim_frequency": 2, "vendor_claim_frequency": 3, "disputeDetails": {"disputeAmount": {"amount": 500}}}),
            json!([
                {"fraud_rating_score": -3, "fraud_rating_confidence_score": 10},
                {"fraud_rating_score": -10, "fraud_rating_confidence_score": 7},
                {"fraud_rating_score": 8, "fraud_rating_confidence_score": -10}
            ]),
        ),
        (
            "tut-bank-complaint-dispute/determine_fraud_rating_confidence.dmn",
            "determine-fraud-rating-1dmmwcu",
            json!({"customer_claim_frequency": 8, "vendor_claim_frequency": 25, "disputeDetails": {"disputeAmount": {"amount": 200}}}),
            json!([
                {"fraud_rating_score": 8, "fraud_rating_confidence_score": -5},
                {"fraud_rating_score": 10, "fraud_rating_confidence_score": 5},
                {"fraud_rating_score": 8, "fraud_rating_confidence_score": -10}
            ]),
        ),
        (
            "tut-bank-complaint-dispute/determine_fraud_rating_confidence.dmn",
            "determine-fraud-rating-1dmmwcu",
            json!({"customer_claim_frequency": 8, "vendor_claim_frequency": 25, "disputeDetails": {"disputeAmount": {"amount": 5}}}),
            json!([
                {"fraud_rating_score": 8, "fraud_rating_confidence_score": -5},
                {"fraud_rating_score": 10, "fraud_rating_confidence_score": 5},
                {"fraud_rating_score": -5, "fraud_rating_confidence_score": 5}
            ]),
        ),
        // tut-capital-market-exception: case 1 is accepted (99.5 for a limit of 100), case 2
        // rejected (120).
        (
            "tut-capital-market-exception/Price_Comparison.dmn",
            "Decision_12lb3gf",
            json!({"orderType": "BUY_LIMIT", "limitPricePerStock": {"price": 100.0}, "marketPrice": {"price": 99.5}}),
            json!(true),
        ),
        (
            "tut-capital-market-exception/Price_Comparison.dmn",
            "Decision_12lb3gf",
            json!({"orderType": "BUY_LIMIT", "limitPricePerStock": {"price": 100.0}, "marketPrice": {"price": 120.0}}),
            json!(false),
        ),
        // tut-absence-request: the line manager of each department its tests use.
        (
            "tut-absence-request/DepartmentLineManager.dmn",
            "department_line_manager",
            json!({"department": "sales"}),
            json!("John"),
        ),
        (
            "tut-absence-request/DepartmentLineManager.dmn",
            "department_line_manager",
            json!({"department": "it"}),
            json!("Ringo"),
        ),
        (
            "tut-absence-request/DepartmentLineManager.dmn",
            "department_line_manager",
            json!({"department": "finance"}),
            json!("George"),
        ),
        // ccon26-agent-*: the tool call of "Should calculate discount" (2 robots bought, 1 in
        // the order) against the real table.
        (
            "ccon26-agent-tool-calls/calculate-discount.dmn",
            "discount",
            json!({"numberOfPreviouslyPurchasedRobots": 2, "numberOfRobotsInOrder": 1, "numberOfUpgradesInOrder": 0}),
            json!(15),
        ),
    ];
    for (file, decision, variables, expected) in cases {
        let Some(drg) = corpus_drg(file) else { return };
        let evaluation = evaluate(&drg, decision, variables);
        assert!(
            json_equal(expected, &evaluation.output_json()),
            "{file} {variables}: expected {expected}, got\n{}",
            describe(&evaluation)
        );
    }
}

/// The bank dispute process end to end: the business rule task, its output mappings over the
/// COLLECT list, and the gateway after it.
#[test]
fn the_bank_dispute_decision_drives_its_process_as_the_cpt_test_describes() {
    let Some(drg) = corpus_drg("tut-bank-complaint-dispute/determine_fraud_rating_confidence.dmn")
    else {
        return;
    };
    let bpmn = definitions(&process(
        "fraud",
        &format!(
            r#"<bpmn:startEvent id="start"/>
            <bpmn:businessRuleTask id="rate">
              <bpmn:extensionElements>
                <zeebe:calledDecision decisionId="determine-fraud-rating-1dmmwcu" resultVariable="fraud_score_result"/>
                <zeebe:ioMapping>
                  <zeebe:output source="=mean(fraud_score_result.fraud_rating_score) &gt; 0" target="isRefund"/>
                  <zeebe:output source="=mean(fraud_score_result.fraud_rating_confidence_score) &gt; 0" target="isHighFraudRatingConfidence"/>
                </zeebe:ioMapping>
              </bpmn:extensionElements>
            </bpmn:businessRuleTask>
            <bpmn:endEvent id="end"/>
            {}"#,
            crate::xml::chain(&["start", "rate", "end"])
        ),
    ));
    let mut e = Engine::default();
    e.deploy_xml("fraud.bpmn", &bpmn).unwrap();
    let text =
        std::fs::read_to_string(crate::corpus::shared().unwrap().join(
            "corpus/cpt/cases/tut-bank-complaint-dispute/determine_fraud_rating_confidence.dmn",
        ))
        .unwrap();
    assert_eq!(drg.decisions.len(), 1);
    e.deploy(&[Resource::new(
        "determine_fraud_rating_confidence.dmn",
        text.into_bytes(),
    )])
    .unwrap();
    for (customer, vendor, amount, refund, confident) in [
        (2, 3, 500, false, true),
        (8, 25, 200, true, false),
        (8, 25, 5, true, true),
    ] {
        let pi = start(
            &mut e,
            "fraud",
            json!({"customer_claim_frequency": customer, "vendor_claim_frequency": vendor, "disputeDetails": {"disputeAmount": {"amount": amount}}}),
        );
        assert_eq!(var(&e, pi, "isRefund").as_ref(), Some(&json!(refund)));
        assert_eq!(
            var(&e, pi, "isHighFraudRatingConfidence").as_ref(),
            Some(&json!(confident))
        );
    }
}
