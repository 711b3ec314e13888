//! A small, read-only XML tree over the source text, with namespaces resolved by URI and a byte
//! position on every element, attribute value and text.
//!
//! BPMN and DMN need look-ahead (references point forwards, event definitions come after extension
//! elements), so the parser reads the whole file into this tree first and then walks it. The tree
//! borrows from the text wherever nothing had to be unescaped.
//!
//! Hostile input stops at a limit with an error, never a panic: document type declarations are
//! refused outright (so no entity is ever expanded: billion laughs dies at the `<!DOCTYPE`), and
//! nesting depth and element count are capped.

use std::borrow::Cow;

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::reader::NsReader;

use super::Span;
use crate::diagnostics::Rule;

/// Deeper nesting than this is refused. Real BPMN files stay far below 50.
pub(crate) const MAX_DEPTH: usize = 256;
/// More elements than this are refused (a 4 MiB file of `<a/>` would otherwise cost ~150 MB).
pub(crate) const MAX_ELEMENTS: usize = 200_000;

/// The namespaces the parser tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    /// No namespace (unprefixed attributes, elements outside any default namespace).
    None,
    Bpmn,
    BpmnDi,
    Dc,
    Di,
    Zeebe,
    Modeler,
    Xsi,
    /// The DMN model namespace of any DMN version (1.1 to 1.5).
    Dmn,
    Other,
}

impl Ns {
    fn of_uri(uri: &[u8]) -> Ns {
        match uri {
            b"http://www.omg.org/spec/BPMN/20100524/MODEL" => Ns::Bpmn,
            b"http://www.omg.org/spec/BPMN/20100524/DI" => Ns::BpmnDi,
            b"http://www.omg.org/spec/DD/20100524/DC" => Ns::Dc,
            b"http://www.omg.org/spec/DD/20100524/DI" => Ns::Di,
            b"http://camunda.org/schema/zeebe/1.0" => Ns::Zeebe,
            b"http://camunda.org/schema/modeler/1.0" => Ns::Modeler,
            b"http://www.w3.org/2001/XMLSchema-instance" => Ns::Xsi,
            b"http://www.omg.org/spec/DMN/20151101/dmn.xsd"
            | b"http://www.omg.org/spec/DMN/20180521/MODEL/"
            | b"https://www.omg.org/spec/DMN/20191111/MODEL/"
            | b"http://www.omg.org/spec/DMN/20191111/MODEL/"
            | b"https://www.omg.org/spec/DMN/20211108/MODEL/"
            | b"https://www.omg.org/spec/DMN/20230324/MODEL/" => Ns::Dmn,
            _ => Ns::Other,
        }
    }
}

pub(crate) type NodeId = u32;

/// No node: the end of a sibling chain.
const NONE: NodeId = NodeId::MAX;

#[derive(Debug)]
pub(crate) struct Attr<'a> {
    pub ns: Ns,
    pub local: Cow<'a, str>,
    /// Unescaped and normalised as XML requires.
    pub value: Cow<'a, str>,
    /// Where the raw value is (between the quotes).
    pub span: Span,
}

#[derive(Debug)]
pub(crate) struct Text<'a> {
    /// The character data directly inside the element, unescaped, CDATA included.
    pub value: Cow<'a, str>,
    /// From the first to the last piece of character data.
    pub span: Span,
}

#[derive(Debug)]
pub(crate) struct Node<'a> {
    pub ns: Ns,
    pub local: Cow<'a, str>,
    pub attrs: Vec<Attr<'a>>,
    /// Children are a chain of siblings, so a node costs no allocation for them.
    first_child: NodeId,
    last_child: NodeId,
    next_sibling: NodeId,
    /// Only kept for elements without element children (BPMN has no meaningful mixed content).
    pub text: Option<Text<'a>>,
    /// The `<` of the start tag.
    pub start: u32,
}

impl<'a> Node<'a> {
    pub fn is(&self, ns: Ns, local: &str) -> bool {
        self.ns == ns && self.local == local
    }

    /// The value of an attribute without namespace.
    pub fn attr(&self, local: &str) -> Option<&Attr<'a>> {
        self.attrs
            .iter()
            .find(|a| a.ns == Ns::None && a.local == local)
    }

    pub fn attr_ns(&self, ns: Ns, local: &str) -> Option<&Attr<'a>> {
        self.attrs.iter().find(|a| a.ns == ns && a.local == local)
    }
}

#[derive(Debug)]
pub(crate) struct Document<'a> {
    pub nodes: Vec<Node<'a>>,
    pub root: NodeId,
}

impl<'a> Document<'a> {
    pub fn node(&self, id: NodeId) -> &Node<'a> {
        &self.nodes[id as usize]
    }

    /// The element children of a node, in document order.
    pub fn children_of<'d>(
        &'d self,
        node: &Node<'a>,
    ) -> impl Iterator<Item = (NodeId, &'d Node<'a>)> + 'd {
        let mut next = node.first_child;
        std::iter::from_fn(move || {
            (next != NONE).then(|| {
                let id = next;
                let child = self.node(id);
                next = child.next_sibling;
                (id, child)
            })
        })
    }

    pub fn children<'d>(&'d self, id: NodeId) -> impl Iterator<Item = (NodeId, &'d Node<'a>)> + 'd {
        self.children_of(self.node(id))
    }
}

/// Why the text is not a document the parser accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct XmlError {
    pub rule: Rule,
    pub offset: u32,
    pub message: String,
}

impl XmlError {
    fn malformed(offset: u64, message: impl Into<String>) -> Self {
        XmlError {
            rule: Rule::XmlMalformed,
            offset: offset as u32,
            message: message.into(),
        }
    }
}

/// Reads `text` into a tree, or says where and why it is not acceptable XML.
pub(crate) fn parse(text: &str) -> Result<Document<'_>, XmlError> {
    Builder {
        text,
        // BPMN spends about 60 bytes of text per element; reserving avoids regrowing the arena.
        nodes: Vec::with_capacity((text.len() / 60).min(MAX_ELEMENTS)),
        stack: Vec::new(),
        root: None,
    }
    .run()
}

struct Builder<'a> {
    text: &'a str,
    nodes: Vec<Node<'a>>,
    /// Open elements, innermost last.
    stack: Vec<NodeId>,
    root: Option<NodeId>,
}

impl<'a> Builder<'a> {
    fn run(mut self) -> Result<Document<'a>, XmlError> {
        let mut reader = NsReader::from_str(self.text);
        loop {
            let before = reader.buffer_position();
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(error) => {
                    return Err(XmlError::malformed(
                        reader.error_position(),
                        error.to_string(),
                    ));
                }
            };
            let after = reader.buffer_position();
            match event {
                Event::Start(start) => {
                    let id = self.open(&reader, &start, before)?;
                    self.stack.push(id);
                }
                Event::Empty(start) => {
                    self.open(&reader, &start, before)?;
                }
                Event::End(_) => {
                    self.stack.pop();
                }
                Event::Text(text) => {
                    let value = self.borrow_or_own(text.xml10_content());
                    self.text_piece(value, before, after)?;
                }
                Event::CData(cdata) => {
                    let value = self.borrow_or_own(cdata.xml10_content());
                    self.text_piece(value, before, after)?;
                }
                Event::GeneralRef(reference) => {
                    let value = match reference.resolve_char_ref() {
                        Ok(Some(ch)) => Cow::Owned(ch.to_string()),
                        Ok(None) => match resolve_predefined_entity(&reference) {
                            Some(value) => Cow::Borrowed(value),
                            None => {
                                return Err(XmlError::malformed(
                                    before,
                                    format!("unknown entity `&{};`", &*reference),
                                ));
                            }
                        },
                        Err(error) => {
                            return Err(XmlError::malformed(before, error.to_string()));
                        }
                    };
                    self.text_piece(value, before, after)?;
                }
                Event::DocType(_) => {
                    return Err(XmlError {
                        rule: Rule::XmlDoctype,
                        offset: before as u32,
                        message: "document type declarations (<!DOCTYPE ...>) are not accepted: \
                                  they can define entities, and BPMN files never need one"
                            .into(),
                    });
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => break,
            }
        }
        if let Some(&open) = self.stack.last() {
            let node = &self.nodes[open as usize];
            return Err(XmlError::malformed(
                node.start as u64,
                format!("element <{}> is not closed", node.local),
            ));
        }
        match self.root {
            Some(root) => Ok(Document {
                nodes: self.nodes,
                root,
            }),
            None => Err(XmlError::malformed(0, "the file has no root element")),
        }
    }

    fn open(
        &mut self,
        reader: &NsReader<&'a [u8]>,
        start: &BytesStart<'_>,
        offset: u64,
    ) -> Result<NodeId, XmlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(XmlError {
                rule: Rule::XmlTooDeep,
                offset: offset as u32,
                message: format!("elements are nested more than {MAX_DEPTH} levels deep"),
            });
        }
        if self.nodes.len() >= MAX_ELEMENTS {
            return Err(XmlError {
                rule: Rule::ResourceTooLarge,
                offset: offset as u32,
                message: format!("the file has more than {MAX_ELEMENTS} XML elements"),
            });
        }
        let (resolved, local) = reader.resolver().resolve_element(start.name());
        let ns = self.namespace(resolved, offset)?;
        let local = self.borrow_or_own(Cow::Borrowed(local.into_inner()));

        let mut attrs = Vec::new();
        for attr in start.attributes() {
            let attr = attr.map_err(|error| attr_error(error, offset))?;
            let key = attr.key;
            if key.as_namespace_binding().is_some() {
                continue;
            }
            // Unprefixed attributes have no namespace: no lookup needed (most attributes).
            let (attr_ns, attr_local) = if key.prefix().is_none() {
                (Ns::None, key.local_name())
            } else {
                let (resolved, attr_local) = reader.resolver().resolve_attribute(key);
                (self.namespace(resolved, offset)?, attr_local)
            };
            let raw_start = self.offset_of(&attr.value).unwrap_or(offset as u32);
            let span = Span {
                start: raw_start,
                end: raw_start + attr.value.len() as u32,
            };
            let value = attr
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|error| XmlError::malformed(span.start as u64, error.to_string()))?;
            attrs.push(Attr {
                ns: attr_ns,
                local: self.borrow_or_own(Cow::Borrowed(attr_local.into_inner())),
                value: self.borrow_or_own(value),
                span,
            });
        }

        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            ns,
            local,
            attrs,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            text: None,
            start: offset as u32,
        });
        match self.stack.last() {
            Some(&parent) => {
                let parent = &mut self.nodes[parent as usize];
                // Mixed content carries nothing in BPMN: an element with children keeps no text.
                parent.text = None;
                let previous = parent.last_child;
                if previous == NONE {
                    parent.first_child = id;
                } else {
                    self.nodes[previous as usize].next_sibling = id;
                }
                self.nodes[self.stack[self.stack.len() - 1] as usize].last_child = id;
            }
            None if self.root.is_none() => self.root = Some(id),
            None => {
                return Err(XmlError::malformed(
                    offset,
                    "a second root element: a document has exactly one",
                ));
            }
        }
        Ok(id)
    }

    fn namespace(&self, resolved: ResolveResult<'_>, offset: u64) -> Result<Ns, XmlError> {
        match resolved {
            ResolveResult::Unbound => Ok(Ns::None),
            ResolveResult::Bound(ns) => Ok(Ns::of_uri(ns.into_inner().as_bytes())),
            ResolveResult::Unknown(prefix) => Err(XmlError::malformed(
                offset,
                format!("the namespace prefix `{prefix}` is not declared"),
            )),
        }
    }

    fn text_piece(&mut self, value: Cow<'a, str>, start: u64, end: u64) -> Result<(), XmlError> {
        let Some(&open) = self.stack.last() else {
            if value.trim().is_empty() {
                return Ok(());
            }
            return Err(XmlError::malformed(start, "text outside the root element"));
        };
        let node = &mut self.nodes[open as usize];
        if node.first_child != NONE {
            return Ok(());
        }
        match &mut node.text {
            None => {
                node.text = Some(Text {
                    value,
                    span: Span {
                        start: start as u32,
                        end: end as u32,
                    },
                });
            }
            Some(text) => {
                text.value.to_mut().push_str(&value);
                text.span.end = end as u32;
            }
        }
        Ok(())
    }

    /// Where `part` starts in the source text, when it is a slice of it.
    fn offset_of(&self, part: &str) -> Option<u32> {
        let base = self.text.as_ptr() as usize;
        let at = part.as_ptr() as usize;
        (at >= base && at + part.len() <= base + self.text.len()).then(|| (at - base) as u32)
    }

    /// Re-borrows `value` from the source text when it is a slice of it, so the tree does not
    /// hold on to the reader's buffers.
    fn borrow_or_own(&self, value: Cow<'_, str>) -> Cow<'a, str> {
        match value {
            Cow::Borrowed(part) => match self.offset_of(part) {
                Some(start) => {
                    Cow::Borrowed(&self.text[start as usize..start as usize + part.len()])
                }
                None => Cow::Owned(part.to_owned()),
            },
            Cow::Owned(owned) => Cow::Owned(owned),
        }
    }
}

fn attr_error(error: AttrError, tag: u64) -> XmlError {
    // Positions in `AttrError` count from the byte after `<`.
    let (position, message) = match error {
        AttrError::ExpectedEq(at) => (at, "an attribute name must be followed by `=`".into()),
        AttrError::ExpectedValue(at) => (at, "`=` must be followed by a quoted value".into()),
        AttrError::UnquotedValue(at) => (at, "attribute values must be quoted".into()),
        AttrError::ExpectedQuote(at, quote) => (
            at,
            format!("the attribute value is not closed by `{}`", quote as char),
        ),
        AttrError::Duplicated(at, first) => (
            at,
            format!(
                "the attribute is written twice (first at byte {} of the tag)",
                first + 1
            ),
        ),
    };
    XmlError::malformed(tag + 1 + position as u64, message)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(process.attr("id").unwrap().value, "p");
        }
    }

    #[test]
    fn attribute_values_and_text_are_unescaped_with_positions() {
        let xml = r#"<a x="1 &lt; 2" y='&#61;b'><c>=x &gt; 5<![CDATA[ && y]]></c></a>"#;
        let doc = parse(xml).unwrap();
        let a = doc.node(doc.root);
        let x = a.attr("x").unwrap();
        assert_eq!(x.value, "1 < 2");
        assert_eq!(&xml[x.span.start as usize..x.span.end as usize], "1 &lt; 2");
        assert_eq!(a.attr("y").unwrap().value, "=b");
        let (_, c) = doc.children(doc.root).next().unwrap();
        let text = c.text.as_ref().unwrap();
        assert_eq!(text.value, "=x > 5 && y");
        assert_eq!(text.span.start as usize, xml.find("=x").unwrap());
        assert_eq!(c.start as usize, xml.find("<c>").unwrap());
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
}
