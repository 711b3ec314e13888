//! Hostile input: every case ends in a clear diagnostic, never a panic, without reading or
//! building more than the limits allow. (How fast is measured in `benches/benches/bpmn_parse.rs`.)

use baton_engine::deploy::{Resource, check};
use baton_engine::diagnostics::Rule;

fn rejected(name: &str, content: Vec<u8>) -> (Rule, String) {
    let diagnostics =
        check(&[Resource::new(name, content)]).expect_err("hostile input must be rejected");
    assert_eq!(diagnostics.len(), 1, "{diagnostics}");
    let diagnostic = &diagnostics.0[0];
    (diagnostic.rule, diagnostic.to_string())
}

const DEFINITIONS: &str =
    r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">"#;

#[test]
fn billion_laughs_is_refused_before_any_entity_is_read() {
    let mut xml =
        String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n  <!ENTITY lol \"lol\">\n");
    for level in 1..10 {
        let previous = if level == 1 {
            "lol".to_owned()
        } else {
            format!("lol{}", level - 1)
        };
        xml.push_str(&format!(
            "  <!ENTITY lol{level} \"{}\">\n",
            format!("&{previous};").repeat(10)
        ));
    }
    xml.push_str("]>\n");
    xml.push_str(DEFINITIONS);
    xml.push_str(
        "<bpmn:process id=\"p\" name=\"&lol9;\" isExecutable=\"true\"/></bpmn:definitions>\n",
    );
    let (rule, message) = rejected("laughs.bpmn", xml.into_bytes());
    assert_eq!(rule, Rule::XmlDoctype);
    insta::assert_snapshot!(message, @"laughs.bpmn:2:1: error[xml-doctype] document type declarations (<!DOCTYPE ...>) are not accepted: they can define entities, and BPMN files never need one");
}

#[test]
fn a_50_mb_file_is_refused_without_being_read() {
    let mut content = DEFINITIONS.as_bytes().to_vec();
    content.resize(50 * 1024 * 1024, b' ');
    let (rule, message) = rejected("huge.bpmn", content);
    assert_eq!(rule, Rule::ResourceTooLarge);
    insta::assert_snapshot!(message, @"huge.bpmn:1:1: error[resource-too-large] the resource has 52428800 bytes, more than the 4194304 bytes Zeebe accepts by default");
}

#[test]
fn a_hundred_thousand_nested_elements_stop_at_the_depth_limit() {
    let mut xml = String::from(DEFINITIONS);
    xml.push_str(&"<bpmn:extensionElements>".repeat(100_000));
    let (rule, message) = rejected("deep.bpmn", xml.into_bytes());
    assert_eq!(rule, Rule::XmlTooDeep);
    insta::assert_snapshot!(message, @"deep.bpmn:1:6203: error[xml-too-deep] elements are nested more than 256 levels deep");
}

#[test]
fn an_element_flood_stops_at_the_element_limit() {
    let mut xml = String::from(DEFINITIONS);
    xml.push_str(&"<a/>".repeat(1_000_000));
    xml.push_str("</bpmn:definitions>");
    let (rule, message) = rejected("flood.bpmn", xml.into_bytes());
    assert_eq!(rule, Rule::ResourceTooLarge);
    insta::assert_snapshot!(message, @"flood.bpmn:1:800079: error[resource-too-large] the file has more than 200000 XML elements");
}

#[test]
fn binary_garbage_is_malformed() {
    // A fixed linear congruential sequence: the same bytes on every run.
    let mut state: u32 = 0x2545_f491;
    let garbage: Vec<u8> = (0..64 * 1024)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as u8
        })
        .collect();
    let (rule, message) = rejected("garbage.bin", garbage);
    assert_eq!(rule, Rule::XmlMalformed);
    insta::assert_snapshot!(message, @"garbage.bin:1:3: error[xml-malformed] the file is not UTF-8 text (byte 0xe1 at offset 2 is invalid)");

    let (rule, message) = rejected("text.bpmn", b"just some text, no markup".to_vec());
    assert_eq!(rule, Rule::XmlMalformed);
    insta::assert_snapshot!(message, @"text.bpmn:1:1: error[xml-malformed] text outside the root element");
}

#[test]
fn truncated_files_never_panic() {
    let full = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/bpmn/accept/boundary-events.bpmn"
    ))
    .unwrap();
    // Every prefix up to a few kilobytes, then every 97th: all must come back as diagnostics.
    let cuts = (0..4096.min(full.len())).chain((4096..full.len()).step_by(97));
    for cut in cuts {
        let result = check(&[Resource::new("cut.bpmn", full[..cut].to_vec())]);
        assert!(result.is_err(), "a file cut at byte {cut} deployed");
    }
}

/// FEEL that would overflow the stack, exhaust memory or hang, in the places a user writes it.
fn hostile_feel() -> Vec<(&'static str, String)> {
    vec![
        ("minus signs", format!("{}x", "- ".repeat(100_000))),
        ("an or chain", format!("a{}", " or a".repeat(20_000))),
        (
            "parentheses",
            format!("{}1{}", "(".repeat(50_000), ")".repeat(50_000)),
        ),
        ("a path", format!("x{}", ".a".repeat(50_000))),
    ]
}

#[test]
fn hostile_feel_in_an_input_mapping_is_a_diagnostic() {
    let mut out = String::new();
    for (name, feel) in hostile_feel() {
        let body = format!(
            r#"<bpmn:startEvent id="s"/><bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="a"/><zeebe:ioMapping><zeebe:input source="={feel}" target="v"/></zeebe:ioMapping></bpmn:extensionElements></bpmn:serviceTask>{}"#,
            crate::xml::flow("f", "s", "t")
        );
        let xml = crate::xml::definitions(&crate::xml::process("p", &body));
        let diagnostics = check(&[Resource::new("feel.bpmn", xml.into_bytes())])
            .expect_err("the expression does not parse");
        out.push_str(&format!(
            "{name}: {}\n",
            diagnostics.to_string().replace(&feel, "<expression>")
        ));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn hostile_feel_in_a_dmn_literal_expression_is_a_diagnostic_or_a_failed_evaluation() {
    let dmn = |feel: &str| {
        format!(
            r#"<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d" namespace="n"><decision id="x" name="x"><literalExpression id="e"><text>{feel}</text></literalExpression></decision></definitions>"#
        )
    };
    let mut out = String::new();
    for (name, feel) in hostile_feel() {
        let diagnostics = check(&[Resource::new("feel.dmn", dmn(&feel).into_bytes())])
            .expect_err("the expression does not parse");
        out.push_str(&format!(
            "{name}: {}\n",
            diagnostics.to_string().replace(&feel, "<expression>")
        ));
    }
    for feel in [
        r#"string join(for x in 1..1000000 return "aaaaaaaaaaaaaaaa")"#,
        "for x in 1..1000 return for y in 1..100000 return x + y",
    ] {
        let deployed =
            check(&[Resource::new("feel.dmn", dmn(feel).into_bytes())]).expect("deploys");
        let drg = deployed[0].drg().expect("a DMN resource");
        let evaluation = baton_engine::dmn::evaluate(
            drg,
            "x",
            &serde_json::Map::new(),
            &baton_feel::Env::default(),
        );
        let failure = evaluation.result.expect_err("a limit stops it");
        out.push_str(&format!("{feel}: {}\n", failure.message));
    }
    insta::assert_snapshot!(out);
}
