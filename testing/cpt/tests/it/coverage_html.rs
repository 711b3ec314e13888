//! The HTML coverage report of CPT runs: DMN decision tables with the rules that matched.

use std::path::PathBuf;

use baton_testing::coverage::{CoverageFile, html};
use serde_json::json;

use crate::chromium::{chromium, probe, run_chromium};

fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("coverage-html")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The coverage fixture's runs (a business rule task on a DRG, an event-based gateway, a
/// standalone evaluation), merged.
fn decision_coverage() -> CoverageFile {
    let report =
        baton_cpt::run(&[repo().join("fixtures/cpt/coverage")], &Default::default()).unwrap();
    report.assert_success();
    report.coverage
}

/// DMN rule coverage on the page: each decision table drawn as the DMN editor lays it out (hit
/// policy, input and output columns, one row per rule), the rules that matched marked (CPT 8.10's
/// report marks them too: `coverage-matched-rule` on each matched rule id), the others listed.
#[test]
fn decision_tables_are_drawn_with_the_rules_that_matched() {
    let merged = decision_coverage();
    let page = html::render(&merged);
    assert!(page.contains("<p class=\"muted\">2 decision tables: rules matched 6/7 (85.7%).</p>"));
    assert!(page.contains("<section class=\"decision\" id=\"decision-2\" data-decision-id=\"discount\">\n<h2>Discount <span class=\"muted\">(discount)</span></h2>"));
    assert!(page.contains("<thead><tr><th class=\"hit-policy\" title=\"hit policy\">FIRST</th><th class=\"input\">Customer level</th><th class=\"input\">total</th><th class=\"output\">discount</th><th></th></tr></thead>"));
    assert!(page.contains("<tr class=\"rule covered\" data-rule-id=\"discount-gold\" data-rule-index=\"1\"><td class=\"index\" title=\"discount-gold\">1</td><td class=\"entry\">&quot;gold&quot;</td><td class=\"entry\">-</td><td class=\"entry\">0.2</td><td class=\"state\">matched</td></tr>"));
    assert!(page.contains(
        "<tr class=\"rule missed\" data-rule-id=\"discount-big-order\" data-rule-index=\"3\">"
    ));
    assert!(page.contains("<tr class=\"rule covered\" data-rule-id=\"ZB_SYNTH_RULE_ID_discount_v1_r4\" data-rule-index=\"4\">"));
    assert!(page.contains("<h3>Rules never matched (1)</h3>\n<ul class=\"missed rules\"><li><code>#3 discount-big-order</code></li></ul>"));
    assert!(page.contains("<p class=\"all-covered\">Every rule matched.</p>"));
    // Still self-contained.
    assert!(!page.contains("<script"));
}

#[test]
fn the_decision_tables_load_in_chromium_with_the_matched_rules_marked() {
    let Some(chromium) = chromium() else {
        return;
    };
    let merged = decision_coverage();
    let dir = out_dir("decisions-chromium");
    let page = html::write_report(&dir, &merged).unwrap();
    let found = probe(&chromium, &dir, &page);
    assert_eq!(found["resources"], 0, "the page fetched something");
    assert_eq!(found["diagrams"].as_array().unwrap().len(), 1);
    let covered = "rgb(230, 244, 231)";
    let plain = "rgba(0, 0, 0, 0)";
    assert_eq!(
        found["rules"],
        json!([
            ["customerLevel", "level-gold", "covered", true, covered],
            ["customerLevel", "level-silver", "covered", true, covered],
            ["customerLevel", "level-bronze", "covered", true, covered],
            ["discount", "discount-gold", "covered", true, covered],
            ["discount", "discount-silver", "covered", true, covered],
            ["discount", "discount-big-order", "missed", true, plain],
            [
                "discount",
                "ZB_SYNTH_RULE_ID_discount_v1_r4",
                "covered",
                true,
                covered
            ],
        ]),
        "{found}"
    );
    // The flows after the event-based gateway, both taken (by different runs), drawn taken.
    let flows = found["flows"].as_array().unwrap();
    assert!(flows.contains(&json!(["f3", "taken", true])), "{found}");
    assert!(flows.contains(&json!(["f4", "taken", true])), "{found}");
    let screenshot = dir.join("screenshot.png");
    run_chromium(
        &chromium,
        &dir.join("profile"),
        &[
            format!("--screenshot={}", screenshot.display()),
            "--window-size=1400,1800".to_owned(),
        ],
        &page,
    );
    assert!(std::fs::read(&screenshot).unwrap().starts_with(b"\x89PNG"));
    eprintln!("screenshot: {}", screenshot.display());
}
