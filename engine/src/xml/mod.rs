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
//!
//! - `builder`: quick-xml's events → the tree (namespaces, positions, limits).
//! - `walk`: what the BPMN and the DMN parser share: reading a model file's `definitions`, and
//!   reporting problems at their positions while walking the tree.

use std::borrow::Cow;

use crate::diagnostics::Rule;
use crate::source::Span;

mod builder;
#[cfg(test)]
mod tests;
pub(crate) mod walk;

pub(crate) use builder::parse_streaming;

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

/// No node: the end of a sibling chain (also: no text, no unescaped value, and the node of a
/// streamed element).
const NONE: NodeId = NodeId::MAX;
/// The node of a skipped element (see [`Reading::Skip`]).
const SKIPPED: NodeId = NodeId::MAX - 1;

/// An attribute. Its value (see [`Document::value`]) is the raw text at `span` unless it had to
/// be unescaped or normalised: the tree holds thousands of these, so they stay small.
#[derive(Debug)]
pub(crate) struct Attr<'a> {
    pub ns: Ns,
    pub local: &'a str,
    /// Where the raw value is (between the quotes).
    pub span: Span,
    /// The value's index in `Document::unescaped`, or `NONE` when it is the raw text.
    unescaped: u32,
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
    pub local: &'a str,
    /// The node's attributes are `Document::attrs[attrs_start..attrs_end]`: one arena for the
    /// whole document, so a node costs no allocation for them.
    attrs_start: u32,
    attrs_end: u32,
    /// Children are a chain of siblings, so a node costs no allocation for them.
    first_child: NodeId,
    last_child: NodeId,
    next_sibling: NodeId,
    /// The index of the node's text in `Document::texts` (`NONE`: no text). Only kept for
    /// elements without element children (BPMN has no meaningful mixed content).
    text: u32,
    /// The `<` of the start tag.
    pub start: u32,
}

impl<'a> Node<'a> {
    pub fn is(&self, ns: Ns, local: &str) -> bool {
        self.ns == ns && same_name(self.local, local)
    }
}

#[derive(Debug)]
pub(crate) struct Document<'a> {
    /// The source text, which names, raw values and most texts borrow from.
    text: &'a str,
    pub nodes: Vec<Node<'a>>,
    attrs: Vec<Attr<'a>>,
    texts: Vec<Text<'a>>,
    /// The attribute values that differ from their raw text (entities, normalised white space).
    unescaped: Vec<String>,
    /// The `id` attributes of streamed elements (left out of the tree), with the element's
    /// namespace and start, in document order.
    streamed_ids: Vec<(Ns, u32, Attr<'a>)>,
    pub root: NodeId,
}

impl<'a> Document<'a> {
    pub fn node(&self, id: NodeId) -> &Node<'a> {
        &self.nodes[id as usize]
    }

    /// An attribute's value, unescaped and normalised as XML requires.
    pub fn value<'d>(&'d self, attr: &Attr<'a>) -> &'d str {
        attr_value(self.text, &self.unescaped, attr)
    }

    /// The character data directly inside a node without element children.
    pub fn text(&self, node: &Node<'a>) -> Option<&Text<'a>> {
        (node.text != NONE).then(|| &self.texts[node.text as usize])
    }

    /// Every attribute of a node (namespace bindings left out), in document order.
    pub fn attrs(&self, node: &Node<'_>) -> &[Attr<'a>] {
        &self.attrs[node.attrs_start as usize..node.attrs_end as usize]
    }

    /// The `id` attributes of the elements in the namespaces `in_scope` accepts, streamed ones
    /// included (XML Schema's `ID` type: one space per file, empty ids ignored): each value with
    /// the start of the element that used it first, and every later use with that first start.
    pub fn ids<'d>(
        &'d self,
        in_scope: impl Fn(Ns) -> bool,
    ) -> (
        rustc_hash::FxHashMap<&'d str, u32>,
        Vec<(&'d Attr<'a>, u32)>,
    ) {
        // Modeler files give about every other element an id: sized once instead of growing.
        let mut first_use = rustc_hash::FxHashMap::with_capacity_and_hasher(
            self.nodes.len() / 2 + self.streamed_ids.len(),
            Default::default(),
        );
        let mut duplicates = Vec::new();
        let mut visit = |start: u32, id: &'d Attr<'a>| {
            let value = self.value(id);
            if value.is_empty() {
                return;
            }
            // (One hash and probe per id: most ids are new.)
            match first_use.entry(value) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    duplicates.push((id, *first.get()));
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(start);
                }
            }
        };
        // The tree's and the streamed elements' ids, merged in document order.
        let mut streamed = self.streamed_ids.iter().peekable();
        for node in &self.nodes {
            while let Some((ns, start, id)) = streamed.next_if(|(_, start, _)| *start < node.start)
            {
                if in_scope(*ns) {
                    visit(*start, id);
                }
            }
            if in_scope(node.ns)
                && let Some(id) = self.attr(node, "id")
            {
                visit(node.start, id);
            }
        }
        for (ns, start, id) in streamed {
            if in_scope(*ns) {
                visit(*start, id);
            }
        }
        (first_use, duplicates)
    }

    /// The attribute without namespace called `local`.
    pub fn attr(&self, node: &Node<'_>, local: &str) -> Option<&Attr<'a>> {
        self.attr_ns(node, Ns::None, local)
    }

    pub fn attr_ns(&self, node: &Node<'_>, ns: Ns, local: &str) -> Option<&Attr<'a>> {
        self.attrs(node)
            .iter()
            .find(|a| a.ns == ns && same_name(a.local, local))
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
/// What becomes of an element (and everything inside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Kept in the tree.
    Keep,
    /// Handed to the [`Stream`], not kept.
    Stream,
    /// Read (so it must be well-formed, and its ids still count) but neither kept nor handed
    /// over: for elements the reader of the tree never looks at.
    Skip,
}

/// Receives the elements of the subtrees it asks for, in document order, instead of the tree:
/// for parts read once, front to back, with no look-ahead (BPMN DI: half the elements of a
/// modeler file), which then cost no memory in the tree.
pub(crate) trait Stream<'a> {
    /// What becomes of the element at `depth` (0: the root), outside any streamed or skipped
    /// subtree.
    fn reading(&self, depth: usize, ns: Ns, local: &str) -> Reading;
    /// An element of a streamed subtree opens (its end is [`Stream::close`]).
    fn open(&mut self, element: &Streamed<'_, 'a>);
    /// The element opened last and not yet closed ends just before byte `end`.
    fn close(&mut self, end: u32);
}

/// Streams nothing.
pub(crate) struct NoStream;

impl Stream<'_> for NoStream {
    fn reading(&self, _: usize, _: Ns, _: &str) -> Reading {
        Reading::Keep
    }
    fn open(&mut self, _: &Streamed<'_, '_>) {}
    fn close(&mut self, _: u32) {}
}

/// An element of a streamed subtree, as it is read.
pub(crate) struct Streamed<'s, 'a> {
    pub ns: Ns,
    pub local: &'a str,
    /// The `<` of the start tag.
    pub start: u32,
    /// The depth below the subtree's first element (0: that element).
    pub depth: usize,
    /// How many elements the tree holds so far (a hint for sizing what the stream builds).
    pub tree_size: usize,
    attrs: &'s [Attr<'a>],
    text: &'a str,
    unescaped: &'s [String],
}

impl<'s, 'a> Streamed<'s, 'a> {
    pub fn is(&self, ns: Ns, local: &str) -> bool {
        self.ns == ns && same_name(self.local, local)
    }

    /// The attribute without namespace called `local`.
    pub fn attr(&self, local: &str) -> Option<&Attr<'a>> {
        self.attrs
            .iter()
            .find(|a| a.ns == Ns::None && same_name(a.local, local))
    }

    /// Every attribute (namespace bindings left out), in document order.
    pub fn attrs(&self) -> &[Attr<'a>] {
        self.attrs
    }

    /// An attribute's value, unescaped and normalised as XML requires.
    pub fn value(&self, attr: &Attr<'a>) -> &'s str {
        attr_value(self.text, self.unescaped, attr)
    }

    /// The same, kept beyond this element (copied only when it was unescaped).
    pub fn value_cow(&self, attr: &Attr<'a>) -> Cow<'a, str> {
        match attr.unescaped {
            NONE => Cow::Borrowed(attr_value(self.text, &[], attr)),
            _ => Cow::Owned(self.value(attr).to_owned()),
        }
    }
}

/// An attribute's value: its raw text in `text`, or its entry in `unescaped`.
fn attr_value<'s>(text: &'s str, unescaped: &'s [String], attr: &Attr<'_>) -> &'s str {
    match attr.unescaped {
        NONE => &text[attr.span.start as usize..attr.span.end as usize],
        index => &unescaped[index as usize],
    }
}

/// Whether two names are the same. Names are short and mostly differ in length or first
/// byte: compared inline rather than through a `memcmp` call per pair.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}
