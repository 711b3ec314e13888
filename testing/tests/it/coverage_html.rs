//! The HTML coverage report: the picture each coverage file carries, the SVG drawn from it, the
//! page, and the page loaded in headless Chromium.

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::agent::{ToolCall, Turn};
use baton_testing::coverage::diagram::ShapeKind;
use baton_testing::coverage::svg::{self, Marks};
use baton_testing::coverage::{CoverageFile, CoverageReport, html, merge, merge_dir};
use serde_json::json;

use crate::chromium::{chromium, probe, run_chromium};
use crate::support::bpmn;

fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("coverage-html")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn template() -> PathBuf {
    repo().join("templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn")
}

/// The template with its tools' workers mocked, as the agent testing guide sets it up.
fn support_test(name: &str) -> ProcessTest {
    let t = ProcessTest::from_file(template())
        .expect("the template deploys")
        .named(name);
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

/// Two runs of the template, as two test processes would write them: the agent resolves one
/// request with two tools; it hands the other to a person. Nobody opens a ticket, the agent
/// never fails.
fn template_coverage_dir(name: &str) -> PathBuf {
    let dir = out_dir(name);
    {
        let t = support_test("support::answers with two tools").coverage_dir(&dir);
        t.mock_ai_agent(
            "support-agent",
            [
                Turn::tool_calls([
                    ToolCall::new("lookup-order", json!({"orderId": "1042"})),
                    ToolCall::new("search-kb", json!({"query": "late delivery"})),
                ]),
                Turn::respond_json(json!({"answer": "It is on its way.", "resolved": true})),
            ],
        );
        t.start(
            "ai-agent-tool-loop",
            json!({"customerMessage": "Where is 1042?", "customerEmail": "a@example.com"}),
        )
        .assert_completed();
    }
    {
        let t = support_test("support::hands over to a person").coverage_dir(&dir);
        t.mock_ai_agent(
            "support-agent",
            [Turn::respond_json(
                json!({"answer": "A colleague will get back to you.", "resolved": false}),
            )],
        );
        let run = t.start(
            "ai-agent-tool-loop",
            json!({"customerMessage": "I want to talk to someone."}),
        );
        run.complete_user_task("queue-for-human", ());
        run.assert_completed();
    }
    dir
}

#[test]
fn coverage_files_carry_the_picture_of_the_process() {
    let t = support_test("picture");
    let data = t.coverage_data();
    let diagram = data[0].diagram.as_ref().expect("the template has BPMN DI");
    assert_eq!(diagram.planes.len(), 1);
    let plane = &diagram.planes[0];
    // Every element and flow of the template is drawn.
    assert_eq!(plane.shapes.len(), data[0].elements.len());
    assert_eq!(plane.edges.len(), data[0].flows.len());
    let agent = plane
        .shapes
        .iter()
        .find(|s| s.id == "support-agent")
        .unwrap();
    assert_eq!(agent.kind, ShapeKind::AdHocSubProcess);
    assert!(agent.expanded);
    let failed = plane
        .shapes
        .iter()
        .find(|s| s.id == "agent-failed")
        .unwrap();
    assert_eq!(failed.kind, ShapeKind::BoundaryEvent);
    assert_eq!(failed.label, Some([535.0, 403.0, 60.0, 14.0]));
    let human = plane
        .edges
        .iter()
        .find(|e| e.id == "flow-to-human")
        .unwrap();
    assert!(human.default);
    assert_eq!(human.waypoints.len(), 3);
    // It goes through the file format and back.
    let file = CoverageFile::new("picture", data.clone());
    assert_eq!(CoverageFile::from_json(&file.to_json()).unwrap(), file);
    insta::assert_json_snapshot!("template_diagram", diagram);
}

#[test]
fn the_template_is_drawn_with_its_coverage() {
    let merged = merge_dir(&template_coverage_dir("template-svg")).unwrap();
    let process = &merged.processes[0];
    let plane = &process.diagram.as_ref().unwrap().planes[0];
    let svg = svg::render(plane, &Marks::of(process), "p1-1");
    // Covered, missed and tool marks, one group per element and flow.
    assert!(svg.contains(r#"<g class="shape covered tool" data-id="lookup-order""#));
    assert!(svg.contains(r#"<g class="shape missed tool" data-id="create-ticket""#));
    assert!(svg.contains(r#"<g class="shape missed" data-id="agent-failed""#));
    assert!(svg.contains(r#"<g class="flow taken" data-id="flow-to-human""#));
    assert!(svg.contains(r#"<g class="flow missed" data-id="flow-to-alert""#));
    assert!(svg.contains("<title>Create ticket (create-ticket)\nservice task (SERVICE_TASK)\nnot covered\nAI agent tool: never called</title>"));
    // Deterministic: drawn again, the same bytes.
    assert_eq!(svg, svg::render(plane, &Marks::of(process), "p1-1"));
    insta::assert_snapshot!("template_svg", svg);
}

#[test]
fn the_page_lists_what_was_not_covered_and_who_contributed() {
    let dir = template_coverage_dir("template-page");
    let merged = merge_dir(&dir).unwrap();
    let page = html::render(&merged);
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Self-contained: nothing fetched, no script.
    for forbidden in ["<script", "src=", "<link", "http://", "https://", "@import"] {
        let outside_svg_namespace = page.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !outside_svg_namespace.contains(forbidden),
            "the page has {forbidden}"
        );
    }
    assert!(page.contains("<h3>AI agent tools never called (1)</h3>\n<ul class=\"missed tools\"><li><code>create-ticket</code> Create ticket</li></ul>"));
    assert!(page.contains("<li><code>agent-failed</code> Agent failed <span class=\"muted\">BOUNDARY_EVENT</span></li>"));
    assert!(page.contains("<li><code>flow-to-alert</code> <span class=\"muted\">agent-failed → alert-support</span></li>"));
    assert!(page.contains("<li><code>support::answers with two tools</code></li><li><code>support::hands over to a person</code></li>"));
    let report = CoverageReport::from_data(&merged.processes);
    let p = &report.processes[0];
    assert!(page.contains(&format!(
        "Elements {}, flows {}, AI agent tools {}.",
        p.elements, p.flows, p.tools
    )));
    assert_eq!(p.tools.to_string(), "2/3 (66.7%)");

    let path = html::write_report(&dir.join("html"), &merged).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), page);
}

#[test]
fn a_process_without_bpmn_di_is_listed_without_a_picture() {
    let t = ProcessTest::from_file(bpmn("order.bpmn"))
        .unwrap()
        .named("order");
    t.mock_job("payment").complete();
    t.start("order", ());
    let data = t.coverage_data();
    assert!(data[0].diagram.is_none());
    let page = html::render(&CoverageFile::new("order", data));
    assert!(!page.contains("<svg xmlns"));
    assert!(page.contains(
        "has no diagram information (BPMN DI) for this process, so its coverage is listed only."
    ));
    assert!(page.contains("<h3>Elements not reached (1)</h3>"));
}

#[test]
fn a_collapsed_sub_process_is_drawn_on_a_plane_of_its_own() {
    let t = ProcessTest::from_file(bpmn("drill-down.bpmn")).unwrap();
    t.mock_job("pack").complete();
    t.start("drill-down", ());
    let data = t.coverage_data();
    let diagram = data[0].diagram.as_ref().unwrap();
    let planes: Vec<(Option<&str>, Vec<&str>)> = diagram
        .planes
        .iter()
        .map(|p| {
            (
                p.sub_process.as_deref(),
                p.shapes.iter().map(|s| s.id.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        planes,
        [
            (
                None,
                vec!["start", "packing", "packing-late", "done", "note"]
            ),
            (
                Some("packing"),
                vec!["packing-start", "pack", "packing-end"]
            ),
        ]
    );
    let page = html::render(&CoverageFile::new("drill-down", data.clone()));
    assert_eq!(page.matches("<svg xmlns").count(), 2);
    assert!(page.contains(
        "<figcaption>Inside the collapsed sub-process Packing (<code>packing</code>)</figcaption>"
    ));
    // The association to the note is drawn with it, on the main plane.
    assert_eq!(diagram.planes[0].edges.last().unwrap().id, "note-link");
    insta::assert_snapshot!(
        "drill_down_svg",
        svg::render(&diagram.planes[1], &Marks::of(&data[0]), "p1-2")
    );
}

#[test]
fn names_are_escaped_everywhere() {
    let xml = std::fs::read_to_string(bpmn("drill-down.bpmn"))
        .unwrap()
        .replace(
            "name=\"Packing\"",
            "name=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; 'co'\"",
        );
    let t = ProcessTest::from_xml("<weird> & \"odd\".bpmn", &xml)
        .unwrap()
        .named("</code><b>test</b>");
    let page = html::render(&CoverageFile::new("</code><b>test</b>", t.coverage_data()));
    assert!(!page.contains("<script>"));
    assert!(!page.contains("<b>test</b>"));
    assert!(!page.contains("<weird>"));
    assert!(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;"));
    assert!(page.contains("&lt;/code&gt;&lt;b&gt;test&lt;/b&gt;"));
}

#[test]
fn the_picture_survives_merging_and_older_files_without_one_still_read() {
    let dir = template_coverage_dir("template-merge");
    let merged = merge_dir(&dir).unwrap();
    let one = support_test("one").coverage_data();
    assert_eq!(merged.processes[0].diagram, one[0].diagram);
    // A file written before pictures were stored: no `diagram` field.
    let mut old = CoverageFile::new("old", one);
    old.processes[0].diagram = None;
    let text = old.to_json();
    assert!(!text.contains("\"diagram\""));
    let read = CoverageFile::from_json(&text).unwrap();
    // Merged with a newer file, the picture comes from whichever has one.
    let both = merge([&read, &merged]);
    assert_eq!(both.processes[0].diagram, merged.processes[0].diagram);
}

/// Every accept fixture (pools, lanes, data, annotations, groups, every event, gateway, task and
/// marker) deployed, drawn, and loaded in the browser; the page is left under the target
/// directory (`coverage-html/<name>/index.html`) for people to look at.
fn gallery(name: &str) -> (PathBuf, CoverageFile) {
    let fixtures = repo().join("fixtures/bpmn/accept");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bpmn"))
        .collect();
    names.sort();
    let mut files = Vec::new();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let t = ProcessTest::from_file(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .named(name.clone());
        files.push(CoverageFile::new(name, t.coverage_data()));
    }
    let merged = merge(&files);
    let dir = out_dir(name);
    html::write_report(&dir, &merged).unwrap();
    (dir, merged)
}

#[test]
fn every_fixture_element_is_drawn() {
    let (dir, merged) = gallery("gallery");
    let page = std::fs::read_to_string(dir.join(html::INDEX)).unwrap();
    for p in &merged.processes {
        let diagram = p
            .diagram
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no picture", p.process_id));
        let drawn: Vec<&str> = diagram
            .planes
            .iter()
            .flat_map(|pl| pl.shapes.iter().map(|s| s.id.as_str()))
            .collect();
        for e in &p.elements {
            assert!(
                drawn.contains(&e.id.as_str()),
                "{}: {} is not drawn",
                p.process_id,
                e.id
            );
            assert!(page.contains(&format!("data-id=\"{}\"", e.id)));
        }
    }
}

#[test]
fn the_template_report_loads_in_chromium_and_shows_the_diagram() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = template_coverage_dir("template-chromium");
    let merged = merge_dir(&dir).unwrap();
    let report = dir.join("report");
    let page = html::write_report(&report, &merged).unwrap();
    let found = probe(&chromium, &report, &page);

    assert_eq!(found["resources"], 0, "the page fetched something");
    let diagrams = found["diagrams"].as_array().unwrap();
    assert_eq!(diagrams.len(), 1);
    assert!(
        diagrams[0]["width"].as_i64().unwrap() > 600
            && diagrams[0]["height"].as_i64().unwrap() > 200,
        "the diagram is not shown at its size: {found}"
    );
    let shapes = found["shapes"].as_array().unwrap();
    assert_eq!(shapes.len(), 13, "{found}");
    for expected in [
        json!(["support-agent", "covered", false, true]),
        json!(["lookup-order", "covered", true, true]),
        json!(["search-kb", "covered", true, true]),
        json!(["create-ticket", "missed", true, true]),
        json!(["agent-failed", "missed", false, true]),
        json!(["queue-for-human", "covered", false, true]),
    ] {
        assert!(shapes.contains(&expected), "{expected} not in {found}");
    }
    assert!(
        shapes.iter().all(|s| s[3] == true),
        "an empty shape: {found}"
    );
    let flows = found["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 8);
    assert!(flows.contains(&json!(["flow-to-alert", "missed", true])));
    assert!(flows.contains(&json!(["flow-resolved", "taken", true])));
    assert_eq!(found["titles"], 21);
    assert_eq!(
        found["rules"],
        json!([]),
        "the template has no decision table"
    );

    // A picture for people: the screenshot of the page as a browser shows it.
    let screenshot = report.join("screenshot.png");
    run_chromium(
        &chromium,
        &report.join("profile"),
        &[
            format!("--screenshot={}", screenshot.display()),
            "--window-size=1400,1500".to_owned(),
        ],
        &page,
    );
    let png = std::fs::read(&screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    eprintln!("screenshot: {}", screenshot.display());
}

#[test]
fn every_fixture_loads_in_chromium() {
    let Some(chromium) = chromium() else {
        return;
    };
    let (dir, merged) = gallery("gallery-chromium");
    let found = probe(&chromium, &dir, &dir.join(html::INDEX));
    assert_eq!(found["resources"], 0);
    let planes: usize = merged
        .processes
        .iter()
        .map(|p| p.diagram.as_ref().map_or(0, |d| d.planes.len()))
        .sum();
    assert_eq!(found["diagrams"].as_array().unwrap().len(), planes);
    let shapes = found["shapes"].as_array().unwrap();
    let empty: Vec<_> = shapes.iter().filter(|s| s[3] != true).collect();
    assert!(empty.is_empty(), "shapes without area: {empty:?}");
    let elements: usize = merged.processes.iter().map(|p| p.elements.len()).sum();
    assert!(shapes.len() >= elements);
}
