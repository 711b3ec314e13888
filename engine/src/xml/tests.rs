use quick_xml::events::Event;
use quick_xml::reader::Reader;

use super::builder::attr_error;
use super::*;

/// Reads `text` into a tree, keeping every element.
fn parse(text: &str) -> Result<Document<'_>, XmlError> {
    parse_streaming(text, &mut NoStream)
}

#[test]
fn namespaces_are_resolved_by_uri_whatever_the_prefix() {
    for xml in [
        r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process id="p"/></bpmn:definitions>"#,
        r#"<bpmn2:definitions xmlns:bpmn2="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn2:process id="p"/></bpmn2:definitions>"#,
        r#"<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p"/></definitions>"#,
    ] {
        let doc = parse(xml).unwrap();
        let root = doc.node(doc.root);
        assert!(root.is(Ns::Bpmn, "definitions"), "{xml}");
        let (_, process) = doc.children(doc.root).next().unwrap();
        assert!(process.is(Ns::Bpmn, "process"));
        // Unprefixed attributes have no namespace, even under a default namespace.
        assert_eq!(doc.value(doc.attr(process, "id").unwrap()), "p");
    }
}

#[test]
fn attribute_values_and_text_are_unescaped_with_positions() {
    let xml = r#"<a x="1 &lt; 2" y='&#61;b'><c>=x &gt; 5<![CDATA[ && y]]></c></a>"#;
    let doc = parse(xml).unwrap();
    let a = doc.node(doc.root);
    let x = doc.attr(a, "x").unwrap();
    assert_eq!(doc.value(x), "1 < 2");
    assert_eq!(&xml[x.span.start as usize..x.span.end as usize], "1 &lt; 2");
    assert_eq!(doc.value(doc.attr(a, "y").unwrap()), "=b");
    let (_, c) = doc.children(doc.root).next().unwrap();
    let text = doc.text(c).unwrap();
    assert_eq!(text.value, "=x > 5 && y");
    assert_eq!(text.span.start as usize, xml.find("=x").unwrap());
    assert_eq!(c.start as usize, xml.find("<c>").unwrap());
}

#[test]
fn positions_are_exact_whatever_white_space_is_skipped() {
    let xml = "<?xml version=\"1.0\"?>\n<a>\n  <b x=\"1\">\n    <c/>\t\r\n   <d>t</d>\n  </b>  \n  <e>  &lt; </e>\n</a>\n";
    let doc = parse(xml).unwrap();
    assert_eq!(doc.nodes.len(), 5);
    for node in &doc.nodes {
        assert_eq!(
            &xml[node.start as usize..][..node.local.len() + 1],
            format!("<{}", node.local)
        );
    }
    let e = doc.nodes.iter().find(|n| n.local == "e").unwrap();
    let text = doc.text(e).unwrap();
    assert_eq!(text.value, "  < ");
    assert_eq!(
        &xml[text.span.start as usize..text.span.end as usize],
        "  &lt; "
    );
    // References beside child elements are still resolved, and errors point at them.
    for (bad, at) in [
        ("<a><b/>\n  &nope;</a>", 10),
        ("<a><b/>\n <!DOCTYPE x></a>", 9),
    ] {
        assert_eq!(parse(bad).unwrap_err().offset, at, "{bad}");
    }
}

#[test]
fn positions_count_a_byte_order_mark() {
    let xml = "\u{feff}<a>\n  <b x=\"1 &lt; 2\"/>\n  <c>t</c>\n</a>\n";
    let doc = parse(xml).unwrap();
    for node in &doc.nodes {
        assert_eq!(
            &xml[node.start as usize..][..node.local.len() + 1],
            format!("<{}", node.local)
        );
    }
    let b = doc.nodes.iter().find(|n| n.local == "b").unwrap();
    let x = doc.attr(b, "x").unwrap();
    assert_eq!(&xml[x.span.start as usize..x.span.end as usize], "1 &lt; 2");
    let bad = "\u{feff}<a>\n  &nope;</a>";
    assert_eq!(
        parse(bad).unwrap_err().offset as usize,
        bad.find('&').unwrap()
    );
}

#[test]
fn hostile_documents_are_refused_with_a_position() {
    let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>
<lolz>&lol2;</lolz>"#;
    let error = parse(laughs).unwrap_err();
    assert_eq!(error.rule, Rule::XmlDoctype);

    let deep = "<a>".repeat(MAX_DEPTH + 1);
    assert_eq!(parse(&deep).unwrap_err().rule, Rule::XmlTooDeep);

    for bad in [
        "",
        "<a>",
        "<a></b>",
        "<a x=1/>",
        "<a/><b/>",
        "<p:a/>",
        "<a>&nope;</a>",
        "x",
    ] {
        let error = parse(bad).unwrap_err();
        assert_eq!(error.rule, Rule::XmlMalformed, "{bad:?}: {error:?}");
        assert!(error.offset as usize <= bad.len(), "{bad:?}: {error:?}");
    }
}

#[test]
fn namespace_declarations_are_scoped_to_their_element() {
    let xml = r#"<a xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:z="http://camunda.org/schema/zeebe/1.0"><b xmlns:z="urn:other" z:x="1"/><c z:x="2" xml:lang="en"/><d xmlns=""/></a>"#;
    let doc = parse(xml).unwrap();
    assert!(doc.node(doc.root).is(Ns::Bpmn, "a"));
    let children: Vec<_> = doc.children(doc.root).map(|(_, n)| n).collect();
    assert_eq!(doc.attrs(children[0])[0].ns, Ns::Other);
    assert!(children[1].is(Ns::Bpmn, "c"));
    assert_eq!(
        doc.value(doc.attr_ns(children[1], Ns::Zeebe, "x").unwrap()),
        "2"
    );
    assert_eq!(
        doc.value(doc.attr_ns(children[1], Ns::Other, "lang").unwrap()),
        "en"
    );
    assert!(children[2].is(Ns::None, "d"));
    // Declarations are not attributes.
    assert_eq!(doc.attrs(doc.node(doc.root)).len(), 0);

    for (bad, message) in [
        (
            r#"<a><b xmlns:p="urn:p"/><p:c/></a>"#,
            "the namespace prefix `p` is not declared",
        ),
        (
            r#"<a xmlns:p="urn:p"><p:b xmlns:p=""/></a>"#,
            "the namespace prefix `p` is not declared",
        ),
        (
            r#"<a xmlns:xml="urn:x"/>"#,
            "the namespace prefix 'xml' cannot be bound to 'urn:x'",
        ),
    ] {
        let error = parse(bad).unwrap_err();
        assert_eq!(error.rule, Rule::XmlMalformed, "{bad}");
        assert_eq!(error.message, message, "{bad}");
    }
}

/// Records what it is handed: `(depth, local, x value)` per open, `None` per close.
#[derive(Default)]
struct Recorder(Vec<Option<(usize, String, Option<String>)>>);

impl<'a> Stream<'a> for Recorder {
    fn reading(&self, depth: usize, _: Ns, local: &str) -> Reading {
        match local {
            "s" if depth == 1 => Reading::Stream,
            "k" => Reading::Skip,
            _ => Reading::Keep,
        }
    }
    fn open(&mut self, element: &Streamed<'_, 'a>) {
        let x = element.attr("x").map(|a| element.value(a).to_owned());
        self.0
            .push(Some((element.depth, element.local.to_owned(), x)));
    }
    fn close(&mut self, _: u32) {
        self.0.push(None);
    }
}

#[test]
fn streamed_and_skipped_subtrees_are_left_out_of_the_tree() {
    let xml = r#"<a id="1"><b id="2"/><s id="3"><c x="1 &lt; 2"><d/></c>t<e x="y" id="2"/></s><f id="3">f<k id="1"><g>t</g></k></f><h>t<k/></h></a>"#;
    let mut recorder = Recorder::default();
    let doc = parse_streaming(xml, &mut recorder).unwrap();
    let locals: Vec<&str> = doc.nodes.iter().map(|n| n.local).collect();
    assert_eq!(locals, ["a", "b", "f", "h"]);
    // A skipped child still makes its parent an element with children (no text).
    assert!(doc.nodes[2..].iter().all(|node| doc.text(node).is_none()));
    let open =
        |depth, local: &str, x: Option<&str>| Some((depth, local.to_owned(), x.map(str::to_owned)));
    assert_eq!(
        recorder.0,
        [
            open(0, "s", None),
            open(1, "c", Some("1 < 2")),
            open(2, "d", None),
            None,
            None,
            open(1, "e", Some("y")),
            None,
            None,
        ]
    );
    // Streamed and skipped ids still count, in document order.
    let (_, duplicates) = doc.ids(|_| true);
    let duplicates: Vec<(&str, u32)> = duplicates
        .iter()
        .map(|(id, first)| (doc.value(id), *first))
        .collect();
    assert_eq!(
        duplicates,
        [
            ("2", xml.find("<b").unwrap() as u32),
            ("3", xml.find("<s").unwrap() as u32),
            ("1", xml.find("<a").unwrap() as u32)
        ]
    );
    // An unclosed streamed or skipped element is named, a bad one found; streamed and
    // skipped elements count towards the limit.
    for bad in [
        "<a><s><c></s></a>",
        "<a><k><c></k></a>",
        "<a><k><c x='1' x='2'/></k></a>",
        "<a><k>&nope;</k></a>",
    ] {
        let error = parse_streaming(bad, &mut Recorder::default()).unwrap_err();
        assert_eq!(error.rule, Rule::XmlMalformed, "{bad}");
    }
    let flood = format!("<a><k>{}</k></a>", "<c/>".repeat(MAX_ELEMENTS));
    let error = parse_streaming(&flood, &mut Recorder::default()).unwrap_err();
    assert_eq!(error.rule, Rule::ResourceTooLarge);
    let flood = format!("<a><s>{}</s></a>", "<c/>".repeat(MAX_ELEMENTS));
    let error = parse_streaming(&flood, &mut Recorder::default()).unwrap_err();
    assert_eq!(error.rule, Rule::ResourceTooLarge);
}

#[test]
fn duplicate_attributes_are_reported_as_quick_xml_reports_them() {
    let many: String = (0..40).map(|i| format!(" a{i}=\"{i}\"")).collect();
    for xml in [
        r#"<a x="1" y="2" x="3"/>"#.to_owned(),
        r#"<root><p:a xmlns:p="urn:p" p:x="1" p:x="2"></p:a></root>"#.to_owned(),
        format!("<a{many} a33=\"again\"/>"),
        format!("<a{many} a3=\"again\"/>"),
    ] {
        let error = parse(&xml).unwrap_err();
        // What quick-xml's own duplicate check says about the same tag.
        let tag = xml.rfind("<a").or_else(|| xml.find("<p:a")).unwrap();
        let mut reader = Reader::from_str(&xml[tag..]);
        let Ok(Event::Empty(start) | Event::Start(start)) = reader.read_event() else {
            panic!("{xml}")
        };
        let expected = start
            .attributes()
            .find_map(|a| a.err())
            .map(|e| attr_error(e, tag as u64))
            .unwrap();
        assert_eq!(error, expected, "{xml}");
    }
}
