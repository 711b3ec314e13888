//! What the BPMN and the DMN parser share: reading a file into a tree whose root is the
//! model's `definitions`, and walking that tree while reporting problems where they are.

use rustc_hash::FxHashMap;

use super::{Document, Node, NodeId, Ns, Stream, parse_streaming};
use crate::diagnostics::{Diagnostic, Rule};
use crate::source::{Source, Span};

/// The root element a model file must have: `<definitions>` in `ns`, else a `rule` problem
/// that names the namespace as `namespace` says it.
pub(crate) struct Definitions {
    pub ns: Ns,
    pub rule: Rule,
    pub namespace: &'static str,
}

/// Reads `source` into a tree (handing `stream` the subtrees it asks for), or the one problem
/// that stops it: the text is not acceptable XML, or its root is not the expected
/// `definitions`.
pub(crate) fn read<'a>(
    source: &'a Source,
    stream: &mut dyn Stream<'a>,
    root: &Definitions,
) -> Result<Document<'a>, Diagnostic> {
    let doc = parse_streaming(source.text(), stream)
        .map_err(|error| Diagnostic::at(source, error.offset, error.rule, None, error.message))?;
    let node = doc.node(doc.root);
    if !node.is(root.ns, "definitions") {
        let message = if node.local == "definitions" {
            format!(
                "the root element <definitions> is not in {}",
                root.namespace
            )
        } else {
            format!(
                "the root element is <{}>, not <definitions> of {}",
                node.local, root.namespace
            )
        };
        return Err(Diagnostic::at(source, node.start, root.rule, None, message));
    }
    Ok(doc)
}

/// A tree being walked into a model: the document, the source its positions are in, and the
/// problems found so far, with the readers both parsers use.
pub(crate) struct Walker<'s, 'a> {
    pub source: &'s Source,
    pub doc: &'s Document<'a>,
    pub diagnostics: Vec<Diagnostic>,
}

impl<'s, 'a> Walker<'s, 'a> {
    /// Reports a problem at byte `offset` of the file.
    pub fn error(
        &mut self,
        offset: u32,
        rule: Rule,
        element_id: Option<&str>,
        message: impl Into<String>,
    ) {
        let diagnostic = Diagnostic::at(self.source, offset, rule, element_id, message);
        self.diagnostics.push(diagnostic);
    }

    pub fn node(&self, id: NodeId) -> &'s Node<'a> {
        self.doc.node(id)
    }

    /// The element children of a node, in document order.
    pub fn children(
        &self,
        id: NodeId,
    ) -> impl Iterator<Item = (NodeId, &'s Node<'a>)> + use<'s, 'a> {
        self.doc.children(id)
    }

    /// The attribute without namespace called `name`, as a string of its own.
    pub fn string(&self, node: &Node<'_>, name: &str) -> Option<String> {
        self.doc
            .attr(node, name)
            .map(|a| self.doc.value(a).to_owned())
    }

    /// Where an element is, for its model: its start tag's `<`.
    pub fn span(&self, node: &Node<'_>) -> Span {
        Span {
            start: node.start,
            end: node.start,
        }
    }

    /// Reports every id used twice among the elements of the namespaces `in_scope` accepts
    /// (XML Schema's `ID` type: one space per file), and gives each id with where it first
    /// appeared.
    pub fn report_duplicate_ids(
        &mut self,
        in_scope: impl Fn(Ns) -> bool,
    ) -> FxHashMap<&'s str, u32> {
        let doc = self.doc;
        let (ids, duplicates) = doc.ids(in_scope);
        for (id, first) in duplicates {
            let value: &str = doc.value(id);
            let first = self.source.line_col(first);
            self.error(
                id.span.start,
                Rule::DuplicateId,
                Some(value),
                format!(
                    "the id '{value}' is already used by the element at {}:{}",
                    first.line, first.col
                ),
            );
        }
        ids
    }
}
