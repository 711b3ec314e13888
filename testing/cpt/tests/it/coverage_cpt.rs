//! Coverage like CPT 8.10's, and more: DMN rule coverage, completed elements, flows after an
//! event-based gateway as recorded, and the export in CPT's coverage report shape that Camunda's
//! coverage viewer reads. The fixture `fixtures/cpt/coverage` runs a business rule task (a DRG:
//! `discount` requires `customerLevel`), an event-based gateway (a message or a timer) and a
//! standalone evaluation.

use std::path::{Path, PathBuf};

use baton_cpt::{self as cpt, Options};
use baton_testing::coverage::{CoverageFile, cpt_json, read_dir_with};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture() -> cpt::Report {
    let report = cpt::run(&[root().join("fixtures/cpt/coverage")], &Options::default()).unwrap();
    report.assert_success();
    report
}

/// The coverage file of one case of the fixture, by case name.
fn run_of<'a>(report: &'a cpt::Report, case: &str) -> &'a CoverageFile {
    report
        .case_coverage
        .iter()
        .find(|f| f.tests[0].ends_with(&format!(" › {case}")))
        .unwrap_or_else(|| panic!("no case {case}"))
}

/// A rule is covered when it matched (CPT 8.10 `DecisionCoverageCreator`: `matchedRules` of
/// every DECISION_TABLE decision instance, camunda/camunda#52600), in a business rule task, in a
/// standalone evaluation and as a decision another one required (each its own decision
/// instance); a rule without an id is reported with Zeebe's surrogate id.
#[test]
fn a_rule_is_covered_when_it_matched() {
    let report = fixture();
    insta::assert_snapshot!(report.coverage_report().to_string(), @r"
    BPMN coverage
      offer  elements 7/7 (100.0%)  flows 6/6 (100.0%)
    DMN coverage
      customerLevel  rules 3/3 (100.0%)
      discount  rules 3/4 (75.0%)
        rules never matched: #3 discount-big-order
      total  rules 6/7 (85.7%)
    ");
    let discount = report
        .coverage
        .decisions
        .iter()
        .find(|d| d.decision_id == "discount")
        .unwrap();
    assert_eq!(discount.matched_rules, [1, 2, 4]);
    assert_eq!(discount.hit_policy, "FIRST");
    assert_eq!(discount.inputs, ["Customer level", "total"]);
    assert_eq!(discount.rules[3].id, "ZB_SYNTH_RULE_ID_discount_v1_r4");
    assert_eq!(discount.rules[0].inputs, ["\"gold\"", "-"]);
    // The required decision matched in the business rule task's evaluation; the standalone
    // evaluation alone matched the bronze rule of it.
    let level = |case: &str| -> Vec<u32> {
        run_of(&report, case)
            .decisions
            .iter()
            .find(|d| d.decision_id == "customerLevel")
            .unwrap()
            .matched_rules
            .clone()
    };
    assert_eq!(level("a gold customer confirms"), [1]);
    assert_eq!(level("a new customer's level, evaluated on its own"), [3]);
    let standalone = run_of(&report, "a new customer's level, evaluated on its own");
    let discount_there = standalone
        .decisions
        .iter()
        .find(|d| d.decision_id == "discount")
        .unwrap();
    assert!(!discount_there.evaluated && discount_there.matched_rules.is_empty());
}

/// CPT counts an element when an instance of it COMPLETED (`CoverageCreator.createCoverage`);
/// baton's own report counts it when it was entered. And the flow an event-based gateway took
/// is recorded as the engine took it, where CPT infers it from the next completed element
/// (`enhanceSequenceFlowsByEventBasedGateway`).
#[test]
fn completed_elements_and_the_flow_an_event_based_gateway_took() {
    let report = fixture();
    let offer = |case: &str| {
        run_of(&report, case)
            .processes
            .iter()
            .find(|p| p.process_id == "offer")
            .unwrap()
            .clone()
    };
    let waiting = offer("an offer waits for its answer");
    assert_eq!(waiting.covered_elements, ["start", "calc", "wait"]);
    assert_eq!(waiting.completed_elements, ["start", "calc"]);
    assert_eq!(waiting.taken_flows, ["f1", "f2"]);
    let confirmed = offer("a gold customer confirms");
    assert_eq!(confirmed.taken_flows, ["f1", "f2", "f3", "f5"]);
    let expired = offer("a silver customer lets the offer expire");
    assert_eq!(expired.taken_flows, ["f1", "f2", "f4", "f6"]);
}

fn keys(value: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    k.sort_unstable();
    k
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_else(|| panic!("not a string: {v}")))
        .collect()
}

/// A coverage entry of the earlier viewer's data model (camunda/camunda
/// testing/camunda-process-test-coverage-frontend/src/data/coverageData.js: `{processDefinitionId,
/// completedElements[], takenSequenceFlows[], coverage}`; ProcessView marks each completed
/// element and looks up each taken flow in the diagram), checked against the model's XML.
fn check_process_coverage(entry: &Value, definitions: &Value) {
    assert_eq!(
        keys(entry),
        [
            "completedElements",
            "coverage",
            "processDefinitionId",
            "takenSequenceFlows"
        ]
    );
    let id = entry["processDefinitionId"].as_str().unwrap();
    let xml = definitions[id]
        .as_str()
        .unwrap_or_else(|| panic!("no XML of {id}"));
    for element in strings(&entry["completedElements"]) {
        assert!(
            xml.contains(&format!("id=\"{element}\"")),
            "{element} of {id}"
        );
    }
    for flow in strings(&entry["takenSequenceFlows"]) {
        assert!(
            xml.contains(&format!("<bpmn:sequenceFlow id=\"{flow}\"")),
            "{flow} of {id}"
        );
    }
    let coverage = entry["coverage"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&coverage), "{entry}");
}

/// The export in CPT's own shape, key by key: the earlier viewer's `coverageData.js` model
/// (suites with runs of `coverages`, suite `models` with `totalElementCount` and a string
/// `version`, top-level `coverages` and `definitions` by process id) and the 8.10 viewer's
/// (`CoverageReport`: `suites`, `processModels`, `decisionModels`, `processCoverages`,
/// `decisionCoverages`; `CoverageRunReport`: `name`, `displayName`, `testParameters`;
/// `DecisionCoverage`: `matchedRuleIds`, `matchedRuleIndices`, `coverage`; the 8.10 frontend's
/// views/process.js and views/decision.js read `processModels[].xml`, `decisionModels[].xml`).
/// The numbers are CPT's: coverage = (completed elements + taken flows) / (flow nodes + flows).
#[test]
fn the_export_has_the_shape_of_cpts_coverage_report() {
    let report = cpt::run(
        &[
            root().join("fixtures/cpt/coverage"),
            root().join("templates/ai-agent-tool-loop"),
        ],
        &Options::default(),
    )
    .unwrap();
    report.assert_success();
    let data = cpt_json::report(&report.case_coverage);

    // The earlier viewer's model.
    for key in ["suites", "coverages", "definitions"] {
        assert!(data.get(key).is_some(), "no {key}");
    }
    let definitions = &data["definitions"];
    assert_eq!(keys(definitions), ["ai-agent-tool-loop", "offer"]);
    for c in data["coverages"].as_array().unwrap() {
        check_process_coverage(c, definitions);
    }
    let suites = data["suites"].as_array().unwrap();
    assert_eq!(suites.len(), 2);
    for suite in suites {
        for key in ["id", "name", "runs", "models", "coverages"] {
            assert!(suite.get(key).is_some(), "no {key} in a suite");
        }
        assert!(suite["id"].is_string() && suite["name"].is_string());
        for run in suite["runs"].as_array().unwrap() {
            assert!(run["name"].is_string());
            for c in run["coverages"].as_array().unwrap() {
                check_process_coverage(c, definitions);
            }
        }
        for m in suite["models"].as_array().unwrap() {
            assert_eq!(
                keys(m),
                ["processDefinitionId", "totalElementCount", "version"]
            );
            assert!(m["totalElementCount"].is_u64() && m["version"].is_string());
        }
    }

    // The 8.10 viewer's model.
    assert_eq!(
        keys(&data)
            .into_iter()
            .filter(|k| !["coverages", "models", "definitions", "decisionDefinitions"].contains(k))
            .collect::<Vec<_>>(),
        [
            "decisionCoverages",
            "decisionModels",
            "processCoverages",
            "processModels",
            "suites"
        ]
    );
    let offer_suite = &suites[0];
    assert!(
        offer_suite["id"]
            .as_str()
            .unwrap()
            .ends_with("fixtures/cpt/coverage/offer.test.json")
    );
    assert_eq!(offer_suite["name"], "offer.test.json");
    let runs = offer_suite["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    assert_eq!(
        keys(&runs[0]),
        [
            "coverages",
            "decisionCoverages",
            "displayName",
            "name",
            "processCoverages",
            "testParameters"
        ]
    );
    assert_eq!(runs[0]["name"], "a gold customer confirms");
    // The flow the event-based gateway took, recorded.
    assert_eq!(
        strings(&runs[0]["processCoverages"][0]["takenSequenceFlows"]),
        ["f1", "f2", "f3", "f5"]
    );
    // 5 completed elements and 4 flows of 7 flow nodes and 6 flows.
    assert_eq!(runs[0]["processCoverages"][0]["coverage"], 9.0 / 13.0);
    // A run that evaluated a decision on its own covers no process.
    assert_eq!(runs[3]["processCoverages"], serde_json::json!([]));

    let models = data["processModels"].as_array().unwrap();
    let offer = models
        .iter()
        .find(|m| m["processDefinitionId"] == "offer")
        .unwrap();
    assert_eq!(
        keys(offer),
        [
            "processDefinitionId",
            "processName",
            "totalElementCount",
            "version",
            "xml"
        ]
    );
    assert_eq!(offer["processName"], "Offer");
    assert_eq!(offer["totalElementCount"], 13);
    assert_eq!(offer["version"], "1");
    assert_eq!(offer["xml"], definitions["offer"]);

    let decision_models = data["decisionModels"].as_array().unwrap();
    let discount = decision_models
        .iter()
        .find(|m| m["decisionDefinitionId"] == "discount")
        .unwrap();
    assert_eq!(
        keys(discount),
        [
            "decisionDefinitionId",
            "decisionName",
            "totalRuleCount",
            "version",
            "xml"
        ]
    );
    assert_eq!(discount["totalRuleCount"], 4);
    let dmn = discount["xml"].as_str().unwrap();
    let coverage = data["decisionCoverages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["decisionDefinitionId"] == "discount")
        .unwrap();
    assert_eq!(
        keys(coverage),
        [
            "coverage",
            "decisionDefinitionId",
            "matchedRuleIds",
            "matchedRuleIndices"
        ]
    );
    assert_eq!(
        strings(&coverage["matchedRuleIds"]),
        [
            "discount-gold",
            "discount-silver",
            "ZB_SYNTH_RULE_ID_discount_v1_r4"
        ]
    );
    for id in strings(&coverage["matchedRuleIds"]) {
        assert!(
            dmn.contains(&format!("<rule id=\"{id}\"")) || id.starts_with("ZB_SYNTH_RULE_ID_"),
            "{id}"
        );
    }
    assert_eq!(coverage["matchedRuleIndices"], serde_json::json!([1, 2, 4]));
    assert_eq!(coverage["coverage"], 0.75);

    // The template's suite: the agent's tools among the completed elements.
    let template = &suites[1];
    assert_eq!(template["runs"].as_array().unwrap().len(), 3);
    let all = data["processCoverages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["processDefinitionId"] == "ai-agent-tool-loop")
        .unwrap();
    assert!(strings(&all["completedElements"]).contains(&"lookup-order"));
}

/// `baton coverage report --input DIR --cpt-json` builds the same report from the coverage
/// files of the runs as `baton test --cpt-json` from the runs themselves.
#[test]
fn the_export_from_coverage_files_is_the_export_of_the_runs() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("coverage-cpt-files");
    let _ = std::fs::remove_dir_all(&dir);
    let options = Options {
        coverage_dir: Some(dir.clone()),
        ..Options::default()
    };
    let report = cpt::run(&[root().join("fixtures/cpt/coverage")], &options).unwrap();
    let files = read_dir_with(&dir, |_, _| {}).unwrap();
    assert_eq!(files.len(), 4);
    let from_runs = cpt_json::report(&report.case_coverage);
    let from_files = cpt_json::report(&files);
    let by_id = |v: &Value, key: &str, id: &str| -> Vec<(String, Value)> {
        let mut list: Vec<(String, Value)> = v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[id].as_str().unwrap().to_owned(), e.clone()))
            .collect();
        list.sort_by(|a, b| a.0.cmp(&b.0));
        list
    };
    for (key, id) in [
        ("processModels", "processDefinitionId"),
        ("decisionModels", "decisionDefinitionId"),
        ("decisionCoverages", "decisionDefinitionId"),
    ] {
        assert_eq!(
            by_id(&from_runs, key, id),
            by_id(&from_files, key, id),
            "{key}"
        );
    }
    let names = |v: &Value| -> Vec<String> {
        let mut n: Vec<String> = v["suites"][0]["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&from_runs), names(&from_files));
    let written = dir.join("out/report.json");
    cpt_json::write(&written, &files).unwrap();
    let read: Value = serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert_eq!(read, from_files);
}

/// A coverage file of version 1 (before decisions, completed elements and the BPMN text) still
/// reads, and merges with newer ones.
#[test]
fn version_1_files_still_read() {
    let v1 = r#"{"format": "baton-coverage", "version": 1, "tests": ["old"], "processes": [
        {"processId": "p", "modelHash": "0000000000000001", "source": "p.bpmn",
         "elements": [{"id": "s", "kind": "START_EVENT"}], "flows": [], "tools": [],
         "coveredElements": ["s"], "takenFlows": []}]}"#;
    let old = CoverageFile::from_json(v1).unwrap();
    assert!(old.decisions.is_empty() && old.processes[0].xml.is_none());
    let merged = baton_testing::coverage::merge([&old, &fixture().coverage]);
    assert_eq!(merged.version, 2);
    assert_eq!(merged.decisions.len(), 2);
    let v3 = v1.replace("\"version\": 1", "\"version\": 3");
    assert_eq!(
        CoverageFile::from_json(&v3).unwrap_err().to_string(),
        "version 3 is not supported (this baton reads versions 1 to 2)"
    );
}
