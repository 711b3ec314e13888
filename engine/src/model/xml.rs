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
use quick_xml::events::attributes::{AttrError, Attributes};
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;
use rustc_hash::FxHashSet;

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

/// More namespace declarations than this in scope at once are refused (quick-xml's default
/// limit): resolving a prefix scans them.
const MAX_NAMESPACE_BINDINGS: usize = 128;

const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NAMESPACE: &str = "http://www.w3.org/2000/xmlns/";

/// Reads `text` into a tree, or says where and why it is not acceptable XML.
pub(crate) fn parse(text: &str) -> Result<Document<'_>, XmlError> {
    parse_streaming(text, &mut NoStream)
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
struct NoStream;

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

/// Reads `text` into a tree, handing the subtrees `stream` asks for to it instead.
pub(crate) fn parse_streaming<'a>(
    text: &'a str,
    stream: &mut dyn Stream<'a>,
) -> Result<Document<'a>, XmlError> {
    // The arenas start at what a modeler file with its DI needs (wide1000: one kept element
    // per ~160 bytes, one kept attribute per ~105, one streamed id per ~210) and grow beyond as
    // needed. Grown from empty, each deploy copied them through a dozen reallocations into
    // fresh pages (glibc gave the freed ones back to the system between deploys): sized once,
    // instructions -0.2 M and page faults 364 -> ~0 per repeated `Engine::deploy` of wide1000.
    // (Capped: the DMN reader parses without the size check; untouched capacity costs no page.)
    let sized = text.len().min(super::MAX_RESOURCE_BYTES);
    Builder {
        text,
        stream,
        nodes: Vec::with_capacity(sized / 128),
        attrs: Vec::with_capacity(sized / 96),
        texts: Vec::new(),
        unescaped: Vec::new(),
        streamed_ids: Vec::with_capacity(sized / 192),
        elements: 0,
        stack: Vec::new(),
        bindings: Vec::new(),
        resolved: [("", Ns::None); RESOLVED],
        resolved_len: 0,
        prefixed: Vec::new(),
        keys: Vec::new(),
        key_set: FxHashSet::default(),
        root: None,
    }
    .run()
}

/// How many resolved prefixes `Builder` remembers.
const RESOLVED: usize = 4;

/// A namespace declaration in scope: `xmlns:prefix="uri"` (`prefix` empty for `xmlns="uri"`).
/// `ns` is `None` for an undeclaration (`xmlns=""`).
struct Binding<'a> {
    prefix: &'a str,
    ns: Option<Ns>,
}

/// An element not yet closed.
struct Open<'a> {
    /// `NONE` for a streamed element, `SKIPPED` for a skipped one.
    node: NodeId,
    /// The number of namespace bindings in scope before the element opened.
    scope: u32,
    local: &'a str,
    start: u32,
}

struct Builder<'a, 'st> {
    text: &'a str,
    // (Not generic: one copy of the reader loop, which the compiler inlines quick-xml into.)
    stream: &'st mut dyn Stream<'a>,
    nodes: Vec<Node<'a>>,
    attrs: Vec<Attr<'a>>,
    texts: Vec<Text<'a>>,
    unescaped: Vec<String>,
    streamed_ids: Vec<(Ns, u32, Attr<'a>)>,
    /// Elements read so far, streamed ones included.
    elements: usize,
    /// Open elements, innermost last.
    stack: Vec<Open<'a>>,
    /// Namespace declarations in scope, innermost last.
    bindings: Vec<Binding<'a>>,
    /// The last prefixes resolved (`""`: no prefix) while `bindings` stayed as it is: a file
    /// declares its namespaces once and uses a handful of prefixes, so most names are found
    /// here instead of by a scan of every binding.
    resolved: [(&'a str, Ns); RESOLVED],
    resolved_len: usize,
    /// The prefixed attributes of the tag being read (index into `attrs`, prefix): resolved once
    /// the tag's own declarations are known.
    prefixed: Vec<(u32, &'a str)>,
    /// The attribute names of the tag being read, to find duplicates.
    keys: Vec<&'a str>,
    /// The same, once the tag has many attributes.
    key_set: FxHashSet<&'a str>,
    root: Option<NodeId>,
}

impl<'a> Builder<'a, '_> {
    // (Kept out of `parse_streaming`: measured 0.3 M fewer instructions per wide1000 deploy,
    // from how the compiler lays out `open` and the reader loop; such layout effects are
    // fragile, see docs/benchmarks.md.)
    #[inline(never)]
    fn run(mut self) -> Result<Document<'a>, XmlError> {
        let mut reader = Reader::from_str(self.text);
        // quick-xml drops a byte order mark without counting it in its positions: it is added
        // back, so every position is a byte offset into the whole text.
        let bom: u64 = if self.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        loop {
            // Text beside child elements is dropped, so quick-xml may skip its leading white
            // space there (usually all of it: no event at all, for most indentation). The
            // skipped bytes are counted back into `before` (see `after_space`), so every
            // position stays the start of its event's markup or text.
            let skips_space = self.open_has_children();
            reader.config_mut().trim_text_start = skips_space;
            let before = bom + reader.buffer_position();
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(error) => {
                    return Err(XmlError::malformed(
                        bom + reader.error_position(),
                        error.to_string(),
                    ));
                }
            };
            let after = bom + reader.buffer_position();
            match event {
                Event::Start(start) => {
                    let before = self.tag_start(&start, before, skips_space);
                    let scope = self.bindings.len() as u32;
                    let (node, local) = self.open(&start, before)?;
                    self.stack.push(Open {
                        node,
                        scope,
                        local,
                        start: before as u32,
                    });
                }
                Event::Empty(start) => {
                    let before = self.tag_start(&start, before, skips_space);
                    let scope = self.bindings.len();
                    let (node, _) = self.open(&start, before)?;
                    if node == NONE {
                        self.stream.close(after as u32);
                    }
                    self.leave_scope(scope);
                }
                Event::End(_) => {
                    if let Some(open) = self.stack.pop() {
                        self.leave_scope(open.scope as usize);
                        if open.node == NONE {
                            self.stream.close(after as u32);
                        }
                    }
                }
                Event::Text(text) => {
                    // Most text is indentation between child elements: not kept, so not
                    // unescaped either.
                    if self.open_has_children() {
                        continue;
                    }
                    let before = self.after_space(before, skips_space);
                    let value = self.borrow_or_own(text.xml10_content());
                    self.text_piece(value, before, after)?;
                }
                Event::CData(cdata) => {
                    let before = self.after_space(before, skips_space);
                    let value = self.borrow_or_own(cdata.xml10_content());
                    self.text_piece(value, before, after)?;
                }
                Event::GeneralRef(reference) => {
                    let before = self.after_space(before, skips_space);
                    let value = reference_value(&reference, before)?;
                    self.text_piece(value, before, after)?;
                }
                Event::DocType(_) => {
                    return Err(XmlError {
                        rule: Rule::XmlDoctype,
                        offset: self.after_space(before, skips_space) as u32,
                        message: "document type declarations (<!DOCTYPE ...>) are not accepted: \
                                  they can define entities, and BPMN files never need one"
                            .into(),
                    });
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => break,
            }
        }
        if let Some(open) = self.stack.last() {
            return Err(XmlError::malformed(
                open.start as u64,
                format!("element <{}> is not closed", open.local),
            ));
        }
        match self.root {
            Some(root) => Ok(Document {
                text: self.text,
                nodes: self.nodes,
                attrs: self.attrs,
                texts: self.texts,
                unescaped: self.unescaped,
                streamed_ids: self.streamed_ids,
                root,
            }),
            None => Err(XmlError::malformed(0, "the file has no root element")),
        }
    }

    /// Refuses an element beyond the depth and element limits.
    fn check_limits(&self, offset: u64) -> Result<(), XmlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(XmlError {
                rule: Rule::XmlTooDeep,
                offset: offset as u32,
                message: format!("elements are nested more than {MAX_DEPTH} levels deep"),
            });
        }
        if self.elements >= MAX_ELEMENTS {
            return Err(XmlError {
                rule: Rule::ResourceTooLarge,
                offset: offset as u32,
                message: format!("the file has more than {MAX_ELEMENTS} XML elements"),
            });
        }
        Ok(())
    }

    /// Reads a start tag: its node (`NONE` when streamed, `SKIPPED` when skipped) and local name.
    fn open(&mut self, start: &BytesStart<'_>, offset: u64) -> Result<(NodeId, &'a str), XmlError> {
        self.check_limits(offset)?;
        // One pass over the attributes: namespace declarations go to `bindings`, the others to
        // the arena; prefixed ones are resolved afterwards, since a declaration may follow them.
        let attrs_start = self.attrs.len() as u32;
        self.prefixed.clear();
        self.keys.clear();
        self.key_set.clear();
        // The tag (between `<` and `>`) as a slice of the text, so every name and value read
        // from it borrows from the text directly.
        let content = self.borrow(start, offset)?;
        let name_len = start.name().into_inner().len();
        // Duplicates are checked here, on a reused buffer, rather than by quick-xml, which
        // allocates a buffer per tag.
        for attr in Attributes::new(content, name_len).with_checks(false) {
            let attr = attr.map_err(|error| attr_error(error, offset))?;
            let key = attr.key.into_inner();
            self.check_duplicate(key, offset)?;
            let raw_start = self.offset_of(&attr.value);
            let span = Span {
                start: raw_start.unwrap_or(offset as u32),
                end: raw_start.unwrap_or(offset as u32) + attr.value.len() as u32,
            };
            if let Some(rest) = key.strip_prefix("xmlns") {
                let prefix = match rest.strip_prefix(':') {
                    Some(prefix) => Some(prefix),
                    None if rest.is_empty() => Some(""),
                    None => None,
                };
                if let Some(prefix) = prefix {
                    self.declare(prefix, &attr.value, offset)?;
                    continue;
                }
            }
            let local = match split_prefix(key) {
                (Some(prefix), local) => {
                    self.prefixed.push((self.attrs.len() as u32, prefix));
                    local
                }
                (None, local) => local,
            };
            // Most values have nothing to unescape or normalise: checked here in one quick
            // pass instead of through quick-xml's general normaliser.
            let plain = !attr
                .value
                .bytes()
                .any(|b| matches!(b, b'&' | b'\t' | b'\n' | b'\r'));
            let unescaped = if plain && raw_start.is_some() {
                NONE
            } else {
                let value = attr
                    .normalized_value(XmlVersion::Implicit1_0)
                    .map_err(|error| XmlError::malformed(span.start as u64, error.to_string()))?;
                self.unescaped.push(value.into_owned());
                (self.unescaped.len() - 1) as u32
            };
            self.attrs.push(Attr {
                ns: Ns::None,
                local,
                span,
                unescaped,
            });
        }
        for i in 0..self.prefixed.len() {
            let (index, prefix) = self.prefixed[i];
            self.attrs[index as usize].ns = self.resolve(Some(prefix), offset)?;
        }
        let (prefix, local) = split_prefix(&content[..name_len]);
        let ns = self.resolve(prefix, offset)?;
        self.place(ns, local, attrs_start, offset)
    }

    /// Places an element whose attributes are `attrs[attrs_start..]` (namespaces resolved):
    /// in the tree, handed to the stream or skipped, as the stream says. Its node (`NONE` when
    /// streamed, `SKIPPED` when skipped) and local name.
    fn place(
        &mut self,
        ns: Ns,
        local: &'a str,
        attrs_start: u32,
        offset: u64,
    ) -> Result<(NodeId, &'a str), XmlError> {
        self.elements += 1;

        let depth = self.stack.len();
        let reading = match self.stack.last() {
            Some(Open { node: NONE, .. }) => Reading::Stream,
            Some(Open { node: SKIPPED, .. }) => Reading::Skip,
            _ => self.stream.reading(depth, ns, local),
        };
        if reading != Reading::Keep {
            if let Some(parent) = self.stack.last()
                && parent.node < SKIPPED
            {
                self.drop_text(parent.node);
            }
            let attrs = &self.attrs[attrs_start as usize..];
            // Only the id stays (for the duplicate check); the rest was read once, or not at
            // all.
            let id = attrs
                .iter()
                .position(|a| a.ns == Ns::None && same_name(a.local, "id"));
            if reading == Reading::Skip {
                let id = id.map(|i| self.attrs.swap_remove(attrs_start as usize + i));
                self.attrs.truncate(attrs_start as usize);
                if let Some(id) = id {
                    self.streamed_ids.push((ns, offset as u32, id));
                }
                return Ok((SKIPPED, local));
            }
            let base = self
                .stack
                .iter()
                .rposition(|open| open.node != NONE)
                .map_or(0, |i| i + 1);
            self.stream.open(&Streamed {
                ns,
                local,
                start: offset as u32,
                depth: depth - base,
                tree_size: self.nodes.len(),
                attrs,
                text: self.text,
                unescaped: &self.unescaped,
            });
            let id = id.map(|i| self.attrs.swap_remove(attrs_start as usize + i));
            self.attrs.truncate(attrs_start as usize);
            if let Some(id) = id {
                self.streamed_ids.push((ns, offset as u32, id));
            }
            return Ok((NONE, local));
        }

        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            ns,
            local,
            attrs_start,
            attrs_end: self.attrs.len() as u32,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            text: NONE,
            start: offset as u32,
        });
        match self.stack.last() {
            Some(&Open {
                node: parent_id, ..
            }) => {
                self.drop_text(parent_id);
                let parent = &mut self.nodes[parent_id as usize];
                let previous = parent.last_child;
                parent.last_child = id;
                if previous == NONE {
                    parent.first_child = id;
                } else {
                    self.nodes[previous as usize].next_sibling = id;
                }
            }
            None if self.root.is_none() => self.root = Some(id),
            None => {
                return Err(XmlError::malformed(
                    offset,
                    "a second root element: a document has exactly one",
                ));
            }
        }
        Ok((id, local))
    }

    /// Mixed content carries nothing in BPMN: an element with children keeps no text. (Its
    /// text is the last one read: nothing inside it came before.)
    #[inline]
    fn drop_text(&mut self, node: NodeId) {
        let node = &mut self.nodes[node as usize];
        if node.text != NONE {
            self.texts.truncate(node.text as usize);
            node.text = NONE;
        }
    }

    /// Refuses an attribute name written twice in one tag, as quick-xml's own check would
    /// (same message, same positions). Linear while the tag is small; a hash set beyond, so a
    /// tag with many attributes stays linear in time.
    fn check_duplicate(&mut self, key: &'a str, offset: u64) -> Result<(), XmlError> {
        const SMALL: usize = 16;
        let previous = if self.keys.len() < SMALL {
            self.keys.iter().find(|k| same_name(k, key)).copied()
        } else {
            if self.key_set.is_empty() {
                self.key_set.extend(self.keys.iter().copied());
            }
            if self.key_set.insert(key) {
                None
            } else {
                self.keys.iter().find(|k| **k == key).copied()
            }
        };
        if let Some(previous) = previous {
            let tag = offset as usize + 1;
            let position = |name: &str| self.offset_of(name).map_or(0, |at| at as usize - tag);
            return Err(attr_error(
                AttrError::Duplicated(position(key), position(previous)),
                offset,
            ));
        }
        self.keys.push(key);
        Ok(())
    }

    /// Records a namespace declaration, refusing what the Namespaces in XML recommendation
    /// forbids (as quick-xml's resolver does).
    fn declare(&mut self, prefix: &'a str, uri: &str, offset: u64) -> Result<(), XmlError> {
        let refuse = |message: String| Err(XmlError::malformed(offset, message));
        match prefix {
            "xml" if uri != XML_NAMESPACE => {
                return refuse(format!(
                    "the namespace prefix 'xml' cannot be bound to '{uri}'"
                ));
            }
            // The `xml` prefix is bound from the start; declaring it again changes nothing.
            "xml" => return Ok(()),
            "xmlns" => {
                return refuse(format!(
                    "the namespace prefix 'xmlns' cannot be bound to '{uri}'"
                ));
            }
            _ if !prefix.is_empty() && uri == XML_NAMESPACE => {
                return refuse(format!(
                    "the namespace prefix '{prefix}' cannot be bound to '{XML_NAMESPACE}'"
                ));
            }
            _ if !prefix.is_empty() && uri == XMLNS_NAMESPACE => {
                return refuse(format!(
                    "the namespace prefix '{prefix}' cannot be bound to '{XMLNS_NAMESPACE}'"
                ));
            }
            _ => {}
        }
        if self.bindings.len() >= MAX_NAMESPACE_BINDINGS {
            return refuse(format!(
                "more than {MAX_NAMESPACE_BINDINGS} namespace bindings in scope"
            ));
        }
        self.bindings.push(Binding {
            prefix,
            ns: (!uri.is_empty()).then(|| Ns::of_uri(uri.as_bytes())),
        });
        self.resolved_len = 0;
        Ok(())
    }

    /// Drops the namespace declarations of the element that closes.
    fn leave_scope(&mut self, scope: usize) {
        if scope < self.bindings.len() {
            self.bindings.truncate(scope);
            self.resolved_len = 0;
        }
    }

    /// The namespace of a name with this prefix (`None`: an element's unprefixed name).
    /// (Inline: nearly every name is found among the remembered prefixes; the rest is out of
    /// line.)
    #[inline]
    fn resolve(&mut self, prefix: Option<&'a str>, offset: u64) -> Result<Ns, XmlError> {
        // (`:name`: unlike no prefix at all, refused when no default namespace is declared, so
        // never remembered.)
        if prefix != Some("") {
            let wanted = prefix.unwrap_or("");
            let remembered = &self.resolved[..self.resolved_len.min(RESOLVED)];
            if let Some((_, ns)) = remembered.iter().find(|(p, _)| same_name(p, wanted)) {
                return Ok(*ns);
            }
        }
        self.resolve_and_remember(prefix, offset)
    }

    #[inline(never)]
    fn resolve_and_remember(
        &mut self,
        prefix: Option<&'a str>,
        offset: u64,
    ) -> Result<Ns, XmlError> {
        let wanted = prefix.unwrap_or("");
        if prefix == Some("") {
            return self.resolve_in_bindings(prefix, offset);
        }
        let ns = self.resolve_in_bindings(prefix, offset)?;
        self.resolved[self.resolved_len % RESOLVED] = (wanted, ns);
        self.resolved_len += 1;
        Ok(ns)
    }

    fn resolve_in_bindings(&self, prefix: Option<&str>, offset: u64) -> Result<Ns, XmlError> {
        let wanted = prefix.unwrap_or("");
        match self
            .bindings
            .iter()
            .rev()
            .find(|b| same_name(b.prefix, wanted))
        {
            Some(Binding { ns: Some(ns), .. }) => Ok(*ns),
            // `xmlns=""` undeclares the default namespace.
            Some(Binding { ns: None, .. }) if prefix.is_none() => Ok(Ns::None),
            None if prefix.is_none() => Ok(Ns::None),
            _ if matches!(prefix, Some("xml" | "xmlns")) => Ok(Ns::Other),
            _ => Err(XmlError::malformed(
                offset,
                format!("the namespace prefix `{wanted}` is not declared"),
            )),
        }
    }

    /// Where a start tag read from `before` starts: its `<`, found from its content (a slice
    /// of the text) without a scan.
    fn tag_start(&self, start: &BytesStart<'_>, before: u64, skips_space: bool) -> u64 {
        match self.offset_of(start) {
            Some(content) => u64::from(content) - 1,
            None => self.after_space(before, skips_space),
        }
    }

    /// Where the event read from `before` starts: past the white space quick-xml skipped
    /// there, when it skips it.
    fn after_space(&self, before: u64, skips_space: bool) -> u64 {
        if !skips_space {
            return before;
        }
        let rest = &self.text.as_bytes()[before as usize..];
        before
            + rest
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                .count() as u64
    }

    /// Whether the innermost open element already has an element child (its text is then
    /// dropped).
    fn open_has_children(&self) -> bool {
        // (A streamed or skipped element keeps no text either.)
        self.stack.last().is_some_and(|open| {
            open.node >= SKIPPED || self.nodes[open.node as usize].first_child != NONE
        })
    }

    fn text_piece(&mut self, value: Cow<'a, str>, start: u64, end: u64) -> Result<(), XmlError> {
        let Some(&Open { node: open, .. }) = self.stack.last() else {
            if value.trim().is_empty() {
                return Ok(());
            }
            return Err(XmlError::malformed(start, "text outside the root element"));
        };
        if open >= SKIPPED {
            return Ok(());
        }
        let node = &mut self.nodes[open as usize];
        if node.first_child != NONE {
            return Ok(());
        }
        match node.text {
            NONE => {
                node.text = self.texts.len() as u32;
                self.texts.push(Text {
                    value,
                    span: Span {
                        start: start as u32,
                        end: end as u32,
                    },
                });
            }
            index => {
                let text = &mut self.texts[index as usize];
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

    /// The same text as `part`, borrowed from the source text: names are always slices of it
    /// with a reader over the text (the error only keeps this total).
    fn borrow(&self, part: &str, offset: u64) -> Result<&'a str, XmlError> {
        match self.offset_of(part) {
            Some(start) => Ok(&self.text[start as usize..start as usize + part.len()]),
            None => Err(XmlError::malformed(
                offset,
                format!("the name `{part}` is not part of the text"),
            )),
        }
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

/// What a reference in text stands for (`before`: where it starts), or why it is refused.
fn reference_value<'v>(reference: &BytesRef<'_>, before: u64) -> Result<Cow<'v, str>, XmlError> {
    match reference.resolve_char_ref() {
        Ok(Some(ch)) => Ok(Cow::Owned(ch.to_string())),
        Ok(None) => match resolve_predefined_entity(reference) {
            Some(value) => Ok(Cow::Borrowed(value)),
            None => Err(XmlError::malformed(
                before,
                format!("unknown entity `&{};`", &**reference),
            )),
        },
        Err(error) => Err(XmlError::malformed(before, error.to_string())),
    }
}

/// Whether two names are the same. Names are short and mostly differ in length or first
/// byte: compared inline rather than through a `memcmp` call per pair.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// `prefix:local` → `(Some(prefix), local)`; `local` → `(None, local)`.
fn split_prefix(name: &str) -> (Option<&str>, &str) {
    // Names are short: a byte loop beats a general substring search.
    match name.bytes().position(|b| b == b':') {
        Some(colon) => (Some(&name[..colon]), &name[colon + 1..]),
        None => (None, name),
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
        let open = |depth, local: &str, x: Option<&str>| {
            Some((depth, local.to_owned(), x.map(str::to_owned)))
        };
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
}
