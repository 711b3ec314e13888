//! The plain-XML reader (`xml::plain`) must change nothing but speed: every BPMN file we have
//! and every mutation of a modeler's canonical fragments is read with it and without it, and
//! the results (model, diagnostics with their positions, diagram, unread diagram) compared.

use std::path::{Path, PathBuf};

use super::parse::{parse, parse_without_diagram, read_diagram};
use super::xml::{PLAIN_READ, PLAIN_XML};
use crate::source::Source;

/// Everything the parser gives for `text`, written out: the full parse, the deploy's parse
/// (DI checked, not kept), the unread diagram read later, the DI read alone.
fn readings(text: &str) -> [String; 4] {
    if FEW.with(std::cell::Cell::get) {
        let source = Source::new("f.bpmn", text.to_owned());
        let full = parse(&source);
        let checked = parse_without_diagram(&source);
        return [
            format!("{full:?}"),
            format!("{checked:?}"),
            String::new(),
            String::new(),
        ];
    }
    let source = Source::new("f.bpmn", text.to_owned());
    let full = parse(&source);
    let checked = parse_without_diagram(&source);
    let unread = checked
        .definitions
        .as_ref()
        .and_then(|d| d.unread_diagram.as_ref())
        .map(|u| u.read());
    let only = read_diagram(&source);
    [
        format!("{full:#?}"),
        format!("{checked:#?}"),
        format!("{unread:#?}"),
        format!("{only:#?}"),
    ]
}

thread_local! {
    /// Only the two parses (the mutation tests read thousands of documents).
    static FEW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn readings_with(plain: bool, text: &str) -> [String; 4] {
    PLAIN_XML.with(|on| on.set(plain));
    let result = readings(text);
    PLAIN_XML.with(|on| on.set(true));
    result
}

/// Panics with the first difference when `text` reads differently with the plain reader.
fn assert_same(what: &str, text: &str) {
    let with = readings_with(true, text);
    if what == "unmutated" {
        assert!(
            PLAIN_READ.with(std::cell::Cell::get) > 0,
            "the plain reader is used"
        );
    }
    let without = readings_with(false, text);
    for (kind, (with, without)) in [
        "parse",
        "parse_without_diagram",
        "unread diagram",
        "read_diagram",
    ]
    .iter()
    .zip(with.iter().zip(&without))
    {
        if with != without {
            let line = with
                .lines()
                .zip(without.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let context = |s: &str| {
                s.lines()
                    .skip(line.saturating_sub(3))
                    .take(7)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "{what}: {kind} differs with the plain reader at line {line}:\n--- with:\n{}\n--- without:\n{}",
                context(with),
                context(without)
            );
        }
    }
}

/// The same for a DMN file (read into the same tree, nothing streamed).
fn assert_same_dmn(what: &str, text: &str) {
    let read = |plain: bool| {
        PLAIN_XML.with(|on| on.set(plain));
        let source = Source::new("f.dmn", text.to_owned());
        let parsed = format!("{:#?}", crate::dmn::parse(&source));
        PLAIN_XML.with(|on| on.set(true));
        parsed
    };
    assert_eq!(read(true), read(false), "{what}");
}

fn bpmn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            bpmn_files(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "bpmn" || e == "xml" || e == "dmn")
        {
            out.push(path);
        }
    }
}

fn assert_same_for_files(files: &[PathBuf]) {
    for path in files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "dmn") {
            assert_same_dmn(&path.display().to_string(), &text);
        } else {
            assert_same(&path.display().to_string(), &text);
        }
    }
}

#[test]
fn every_fixture_reads_the_same_with_the_plain_reader() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    bpmn_files(&root.join("fixtures"), &mut files);
    bpmn_files(&root.join("templates"), &mut files);
    assert!(files.len() > 50, "the fixtures are found: {}", files.len());
    assert_same_for_files(&files);
    assert!(
        PLAIN_READ.with(std::cell::Cell::get) > 100,
        "the plain reader is used"
    );
}

#[test]
fn every_corpus_file_reads_the_same_with_the_plain_reader() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if !corpus.is_dir() {
        println!("skipped: {} is absent", corpus.display());
        return;
    }
    let mut files = Vec::new();
    bpmn_files(&corpus, &mut files);
    assert_same_for_files(&files);
}

#[test]
fn every_benchmark_workload_reads_the_same_with_the_plain_reader() {
    let generator =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench/gen_workloads.py");
    if !generator.is_file() {
        println!("skipped: {} is absent", generator.display());
        return;
    }
    let dir = std::env::temp_dir().join(format!("baton-plain-xml-{}", std::process::id()));
    let generated = std::process::Command::new("python3")
        .arg(&generator)
        .arg(&dir)
        .args(["--dialect", "zeebe"])
        .output();
    match generated {
        Ok(output) if output.status.success() => {}
        other => {
            println!("skipped: the workload generator did not run: {other:?}");
            return;
        }
    }
    let mut files = Vec::new();
    bpmn_files(&dir, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("wide1000.bpmn")),
        "{files:?}"
    );
    assert_same_for_files(&files);
    // What modelers write is read by the plain reader whole, one element per child of the
    // root (the speed of a deploy depends on it), references included.
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let source = Source::new("f.bpmn", text.clone());
        let before = PLAIN_READ.with(std::cell::Cell::get);
        let parsed = parse_without_diagram(&source);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let read = PLAIN_READ.with(std::cell::Cell::get) - before;
        let root_children = text.matches("\n  <").count() - text.matches("\n  </").count();
        assert_eq!(read, root_children, "{}", path.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A modeler's file: a process with flow references, its DI with a shape, a label and an
/// edge. `{}` marks where a mutated fragment goes.
const DOCUMENT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:di="http://www.omg.org/spec/DD/20100524/DI" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:color="http://www.omg.org/spec/BPMN/non-normative/color/1.0" id="D">
  <bpmn:process id="P" isExecutable="true">
    <bpmn:startEvent id="S">
PROCESS
    </bpmn:startEvent>
    <bpmn:serviceTask id="T">
      <bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements>
      <bpmn:incoming>F1</bpmn:incoming>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="T" />
TASK
  </bpmn:process>
DIAGRAM
</bpmn:definitions>
"#;

const FLOW_REFERENCE: &str = "      <bpmn:outgoing>F1</bpmn:outgoing>";

const DIAGRAM: &str = r#"  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="Plane" bpmnElement="P">
      <bpmndi:BPMNShape id="S_di" bpmnElement="T" isExpanded="true" color:background-color='#fff'>
        <dc:Bounds x="160" y="80" width="100" height="80" />
        <bpmndi:BPMNLabel><dc:Bounds x="1.5" y="2" width="3" height="4"/></bpmndi:BPMNLabel>
      </bpmndi:BPMNShape>
      <bpmndi:BPMNEdge id="F1_di" bpmnElement="F1">
        <di:waypoint x="118" y="120" />
        <di:waypoint x="160" y="120" />
      </bpmndi:BPMNEdge>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>"#;

/// Elements the tree keeps, with text of their own.
const TASK: &str = r#"    <bpmn:serviceTask id="T2" name="work 2">
      <bpmn:documentation>Does the work &lt;b&gt;now&#33;</bpmn:documentation>
      <bpmn:extensionElements>
        <zeebe:taskDefinition type="work" retries="3" />
        <zeebe:ioMapping><zeebe:input source="=&#34;a&#34; + b" target="c" /></zeebe:ioMapping>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="F2" sourceRef="T" targetRef="T2">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">= x > 5</bpmn:conditionExpression>
    </bpmn:sequenceFlow>"#;

fn document(process: &str, diagram: &str) -> String {
    document_with(process, TASK, diagram)
}

fn document_with(process: &str, task: &str, diagram: &str) -> String {
    DOCUMENT
        .replace("PROCESS", process)
        .replace("TASK", task)
        .replace("DIAGRAM", diagram)
}

/// What is inserted at, or written over, every byte of a fragment.
const MUTATIONS: [&str; 12] = [
    "&",
    "<",
    ">",
    "'",
    "\"",
    "]",
    "\t",
    "\n",
    ":",
    "x",
    "é",
    "<!-- c -->",
];

/// Every insertion and replacement of `MUTATIONS` at every byte of `fragment`, placed by
/// `place`, reads the same with and without the plain reader.
fn assert_mutations_read_the_same(fragment: &str, place: impl Fn(&str) -> String) {
    assert_same("unmutated", &place(fragment));
    FEW.with(|few| few.set(true));
    let mut cases = 0;
    for at in (0..=fragment.len()).filter(|at| fragment.is_char_boundary(*at)) {
        let next = fragment[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8());
        for mutation in MUTATIONS {
            for mutated in [
                format!("{}{mutation}{}", &fragment[..at], &fragment[at..]),
                format!("{}{mutation}{}", &fragment[..at], &fragment[next..]),
            ] {
                assert_same(&format!("{mutated:?}"), &place(&mutated));
                cases += 1;
            }
        }
    }
    assert!(cases >= fragment.len() * 2 * MUTATIONS.len());
}

#[test]
fn every_mutation_of_a_diagram_reads_the_same_with_the_plain_reader() {
    assert_mutations_read_the_same(DIAGRAM, |diagram| document(FLOW_REFERENCE, diagram));
}

#[test]
fn every_mutation_of_a_flow_reference_reads_the_same_with_the_plain_reader() {
    assert_mutations_read_the_same(FLOW_REFERENCE, |process| document(process, DIAGRAM));
}

#[test]
fn every_mutation_of_kept_elements_reads_the_same_with_the_plain_reader() {
    assert_mutations_read_the_same(TASK, |task| document_with(FLOW_REFERENCE, task, DIAGRAM));
}

#[test]
fn hostile_plain_documents_read_the_same_with_the_plain_reader() {
    let shapes =
        "<bpmndi:BPMNShape id=\"s\" bpmnElement=\"T\"><dc:Bounds x=\"1\"/></bpmndi:BPMNShape>";
    for diagram in [
        // Past the element limit inside the diagram.
        format!(
            "<bpmndi:BPMNDiagram><bpmndi:BPMNPlane>{}</bpmndi:BPMNPlane></bpmndi:BPMNDiagram>",
            "<di:waypoint/>".repeat(super::xml::MAX_ELEMENTS)
        ),
        // Past the depth limit.
        format!(
            "<bpmndi:BPMNDiagram>{}{}</bpmndi:BPMNDiagram>",
            "<a>".repeat(super::xml::MAX_DEPTH),
            "</a>".repeat(super::xml::MAX_DEPTH)
        ),
        // An undeclared prefix deep inside, and one in an attribute.
        format!("<bpmndi:BPMNDiagram>{shapes}<p:x/></bpmndi:BPMNDiagram>"),
        format!("<bpmndi:BPMNDiagram>{shapes}<x p:y=\"1\"/></bpmndi:BPMNDiagram>"),
        // A fragment given up on at its very end, with many children (retried one by one).
        format!(
            "<bpmndi:BPMNDiagram><bpmndi:BPMNPlane>{}</bpmndi:BPMNPlane><!-- end --></bpmndi:BPMNDiagram>",
            shapes.repeat(200)
        ),
        // Duplicate ids inside and outside the diagram.
        format!("<bpmndi:BPMNDiagram id=\"T\">{shapes}{shapes}</bpmndi:BPMNDiagram>"),
        // Not closed.
        format!("<bpmndi:BPMNDiagram>{shapes}"),
    ] {
        let text = document(FLOW_REFERENCE, &diagram);
        assert_same(&diagram[..diagram.len().min(200)], &text);
    }
}
