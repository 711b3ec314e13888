//! quick-xml's events → the tree of [`super::Document`]: namespaces resolved, every position a
//! byte offset into the whole text, the limits enforced as the text is read.

use std::borrow::Cow;

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::attributes::{AttrError, Attributes};
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;
use rustc_hash::FxHashSet;

use super::*;
use crate::source::Span;

/// More namespace declarations than this in scope at once are refused (quick-xml's default
/// limit): resolving a prefix scans them.
const MAX_NAMESPACE_BINDINGS: usize = 128;

const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NAMESPACE: &str = "http://www.w3.org/2000/xmlns/";

/// Reads `text` into a tree, handing the subtrees `stream` asks for to it instead.
pub(crate) fn parse_streaming<'a>(
    text: &'a str,
    stream: &mut dyn Stream<'a>,
) -> Result<Document<'a>, XmlError> {
    // The arenas start at about what a modeler file of this size needs (an element per ~128
    // bytes, an attribute per ~96, a streamed id per ~192) and grow beyond as needed: sized
    // once, a deploy does not copy them through a dozen reallocations. (Capped: the DMN reader
    // parses without the size check; untouched capacity costs no page.)
    let sized = text.len().min(crate::source::MAX_RESOURCE_BYTES);
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

/// `prefix:local` → `(Some(prefix), local)`; `local` → `(None, local)`.
fn split_prefix(name: &str) -> (Option<&str>, &str) {
    // Names are short: a byte loop beats a general substring search.
    match name.bytes().position(|b| b == b':') {
        Some(colon) => (Some(&name[..colon]), &name[colon + 1..]),
        None => (None, name),
    }
}

pub(super) fn attr_error(error: AttrError, tag: u64) -> XmlError {
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
