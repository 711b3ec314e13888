//! BPMN 2.0 XML → [`Definitions`], with every problem the file itself has (malformed XML,
//! duplicate ids, references to unknown ids, unsupported elements the model cannot hold).
//!
//! The parser never fails and never panics: it returns what it could read plus all problems, so a
//! user sees every mistake at once. Zeebe's deployment rules about a well-formed model live in
//! `deploy::checks`.
//!
//! The file is read into the `xml` tree, BPMN DI streamed past it (`diagram`), then walked: this
//! module reads `definitions` and its root elements (messages, errors, collaborations, ...),
//! `process` a process and everything in it (references resolved to indexes), `events` the
//! event definitions, `zeebe` the `zeebe:` extension elements.

use rustc_hash::FxHashMap as HashMap;

use super::*;
use crate::diagnostics::{Diagnostic, Rule};
use crate::source::Source;
use crate::xml::walk::{self, Walker};
use crate::xml::{Attr, Document, Node, NodeId, Ns};

mod diagram;
mod events;
mod process;
mod zeebe;

use diagram::DiReader;

/// A BPMN file's root element.
const BPMN_DEFINITIONS: walk::Definitions = walk::Definitions {
    ns: Ns::Bpmn,
    rule: Rule::NotBpmn,
    namespace: "the BPMN 2.0 model namespace http://www.omg.org/spec/BPMN/20100524/MODEL",
};

/// What [`parse()`] read: the definitions (absent when the file is not BPMN XML at all) and every
/// problem found. When `diagnostics` is not empty the model may be incomplete: flows with
/// unresolved ends are left out, and a boundary event whose host is unknown points at itself.
#[derive(Debug)]
pub struct Parsed {
    pub definitions: Option<Definitions>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What [`parse()`] does with a file's BPMN DI (its `bpmndi:BPMNDiagram`s, about half of a
/// modeler file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagramReading {
    /// Read into `Definitions::diagram`.
    Read,
    /// Checked as `Read` checks it (the same problems, its ids counted) but not kept:
    /// `Definitions::unread_diagram` says where it is, and [`UnreadDiagram::read`] reads it
    /// when a picture is wanted. Deploying reads files so: only the coverage picture draws the
    /// DI.
    Defer,
}

/// Parses one BPMN file.
pub fn parse(source: &Source, diagram: DiagramReading) -> Parsed {
    let mut diagnostics = Vec::new();
    if source.text().len() > MAX_RESOURCE_BYTES {
        diagnostics.push(Diagnostic::at(
            source,
            0,
            Rule::ResourceTooLarge,
            None,
            format!(
                "the resource has {} bytes, more than the {} bytes Zeebe accepts by default",
                source.text().len(),
                MAX_RESOURCE_BYTES
            ),
        ));
        return Parsed {
            definitions: None,
            diagnostics,
        };
    }
    // BPMN DI is read as it streams by, not kept in the tree: half the elements of a modeler
    // file, each read once. Flow nodes' `incoming`/`outgoing` are not kept either.
    let mut di = DiReader::new(source, diagram);
    let doc = match walk::read(source, &mut di, &BPMN_DEFINITIONS) {
        Ok(doc) => doc,
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            return Parsed {
                definitions: None,
                diagnostics,
            };
        }
    };
    let unread_diagram = match diagram {
        DiagramReading::Defer => diagram::unread(source, &doc, std::mem::take(&mut di.parts)),
        DiagramReading::Read => None,
    };
    let mut parser = Parser {
        xml: Walker {
            source,
            doc: &doc,
            diagnostics,
        },
        ids: HashMap::default(),
        diagram: di.diagram,
        di_diagnostics: di.problems.diagnostics.into_iter().peekable(),
    };
    parser.check_ids();
    let mut definitions = parser.definitions(doc.root);
    definitions.unread_diagram = unread_diagram;
    Parsed {
        definitions: Some(definitions),
        diagnostics: parser.xml.diagnostics,
    }
}

struct Parser<'s, 'a> {
    xml: Walker<'s, 'a>,
    /// Every id of the file and where it first appeared.
    ids: HashMap<&'s str, u32>,
    /// What the streamed BPMN DI drew, and its problems with the start of the `BPMNDiagram`
    /// they are in (reported in document order among the other children of `definitions`).
    diagram: Diagram,
    di_diagnostics: std::iter::Peekable<std::vec::IntoIter<(u32, Diagnostic)>>,
}

/// A reference written in the file, still a string.
#[derive(Clone)]
struct RawRef<'s> {
    id: &'s str,
    span: Span,
}

impl<'s, 'a> Parser<'s, 'a> {
    /// Reports every id used twice in the file. Ids of BPMN and DI elements share one space
    /// (XML Schema's `ID` type), as the Camunda model's schema validation sees them.
    fn check_ids(&mut self) {
        self.ids = self.xml.report_duplicate_ids(|ns| {
            matches!(ns, Ns::Bpmn | Ns::BpmnDi | Ns::Dc | Ns::Di | Ns::Zeebe)
        });
    }

    // --- small readers -------------------------------------------------------------------

    /// A value read from the file as a [`SharedStr`] (see [`shared_in`]).
    fn shared(&self, value: &str) -> SharedStr {
        shared_in(self.xml.source.shared_text(), value)
    }

    /// The attribute without namespace called `name`, shared with the file's text.
    fn shared_string(&self, node: &Node<'_>, name: &str) -> Option<SharedStr> {
        self.xml
            .doc
            .attr(node, name)
            .map(|a| self.shared(self.xml.doc.value(a)))
    }

    fn expr(&self, node: &Node<'_>, name: &str) -> Option<Expr> {
        self.xml
            .doc
            .attr(node, name)
            .map(|a| attr_expr(self.xml.source, self.xml.doc, a))
    }

    fn raw_ref(&self, node: &Node<'_>, name: &str) -> Option<RawRef<'s>> {
        let doc: &'s Document<'a> = self.xml.doc;
        doc.attr(node, name).map(|a| RawRef {
            id: doc.value(a).trim(),
            span: a.span,
        })
    }

    /// An `xs:boolean` attribute; anything but `true`/`false`/`1`/`0` is reported.
    fn boolean(&mut self, node: &Node<'_>, name: &str, element_id: Option<&str>) -> Option<bool> {
        self.boolean_attr(self.xml.doc.attr(node, name), name, element_id)
    }

    fn boolean_attr(
        &mut self,
        attr: Option<&Attr<'_>>,
        name: &str,
        element_id: Option<&str>,
    ) -> Option<bool> {
        let attr = attr?;
        match boolean_value(self.xml.doc.value(attr), name) {
            Ok(value) => Some(value),
            Err(message) => {
                self.xml
                    .error(attr.span.start, Rule::InvalidAttribute, element_id, message);
                None
            }
        }
    }

    fn id(&mut self, node: &Node<'_>, what: &str) -> String {
        self.id_ref(node, what).to_owned()
    }

    /// The element's id as written (empty, and reported, when it has none).
    fn id_ref(&mut self, node: &Node<'_>, what: &str) -> &'s str {
        let doc: &'s Document<'a> = self.xml.doc;
        match doc.attr(node, "id") {
            Some(id) if !doc.value(id).trim().is_empty() => doc.value(id),
            _ => {
                let message = format!("the {what} <{}> has no id", node.local);
                self.xml.error(node.start, Rule::MissingId, None, message);
                ""
            }
        }
    }

    fn documentation(&self, node: NodeId) -> Vec<String> {
        self.xml
            .children(node)
            .filter(|(_, child)| child.is(Ns::Bpmn, "documentation"))
            .map(|(_, child)| {
                self.xml
                    .doc
                    .text(child)
                    .map(|t| t.value.to_string())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The expression held as the text of a child element, e.g. `bpmn:conditionExpression`.
    fn child_text_expr(&self, node: NodeId, local: &str) -> Option<Expr> {
        self.xml
            .children(node)
            .find(|(_, child)| child.is(Ns::Bpmn, local))
            .map(|(_, child)| text_expr(self.xml.source, self.xml.doc, child))
    }

    // --- definitions ---------------------------------------------------------------------

    fn definitions(&mut self, root: NodeId) -> Definitions {
        let node = self.xml.node(root);
        let mut definitions = Definitions {
            id: self.xml.string(node, "id"),
            name: self.xml.string(node, "name"),
            target_namespace: self.xml.string(node, "targetNamespace"),
            exporter: self.xml.string(node, "exporter"),
            exporter_version: self.xml.string(node, "exporterVersion"),
            execution_platform_version: self
                .xml
                .doc
                .attr_ns(node, Ns::Modeler, "executionPlatformVersion")
                .map(|a| self.xml.doc.value(a).to_string()),
            span: self.xml.span(node),
            ..Definitions::default()
        };
        for (child_id, child) in self.xml.children(root) {
            self.report_diagrams_before(child.start);
            match (child.ns, child.local) {
                (Ns::Bpmn, "process") => {
                    let process = self.process(child_id);
                    definitions.processes.push(process);
                }
                (Ns::Bpmn, "message") => {
                    let message = self.message(child_id);
                    definitions.messages.push(message);
                }
                (Ns::Bpmn, "error") => definitions.errors.push(ErrorDef {
                    id: self.id(child, "error"),
                    name: self.xml.string(child, "name"),
                    error_code: self.expr(child, "errorCode"),
                    span: self.xml.span(child),
                }),
                (Ns::Bpmn, "escalation") => definitions.escalations.push(Escalation {
                    id: self.id(child, "escalation"),
                    name: self.xml.string(child, "name"),
                    escalation_code: self.expr(child, "escalationCode"),
                    span: self.xml.span(child),
                }),
                (Ns::Bpmn, "signal") => definitions.signals.push(Signal {
                    id: self.id(child, "signal"),
                    name: self.expr(child, "name"),
                    span: self.xml.span(child),
                }),
                (Ns::Bpmn, "collaboration") => {
                    let collaboration = self.collaboration(child_id);
                    definitions.collaborations.push(collaboration);
                }
                (Ns::Bpmn, "choreography" | "globalConversation" | "conversation") => {
                    self.unsupported(child, &upper_first(child.local));
                }
                _ => {}
            }
        }
        self.report_diagrams_before(u32::MAX);
        definitions.diagram = std::mem::take(&mut self.diagram);
        copy_subscriptions(&mut definitions);
        definitions
    }

    /// Reports the problems of the diagrams that start before `offset`.
    fn report_diagrams_before(&mut self, offset: u32) {
        while let Some((_, diagnostic)) = self.di_diagnostics.next_if(|(at, _)| *at < offset) {
            self.xml.diagnostics.push(diagnostic);
        }
    }

    fn message(&mut self, node_id: NodeId) -> Message {
        let node = self.xml.node(node_id);
        let id = self.id(node, "message");
        let mut subscription = None;
        for (_, child) in self.xml.children(node_id) {
            if !child.is(Ns::Bpmn, "extensionElements") {
                continue;
            }
            for (_, ext) in self.children_of(child) {
                if ext.is(Ns::Zeebe, "subscription") {
                    if subscription.is_some() {
                        self.duplicate_extension(ext, &id, "subscription");
                    }
                    subscription = Some(Subscription {
                        correlation_key: self.expr(ext, "correlationKey"),
                        span: self.xml.span(ext),
                    });
                }
            }
        }
        Message {
            id,
            name: self.expr(node, "name"),
            subscription,
            span: self.xml.span(node),
        }
    }

    fn children_of(&self, node: &'s Node<'a>) -> impl Iterator<Item = (NodeId, &'s Node<'a>)> + 's {
        self.xml.doc.children_of(node)
    }

    fn collaboration(&mut self, node_id: NodeId) -> Collaboration {
        let node = self.xml.node(node_id);
        let mut collaboration = Collaboration {
            id: self.id(node, "collaboration"),
            participants: Vec::new(),
            message_flows: Vec::new(),
            span: self.xml.span(node),
        };
        for (_, child) in self.xml.children(node_id) {
            match (child.ns, child.local) {
                (Ns::Bpmn, "participant") => collaboration.participants.push(Participant {
                    id: self.id(child, "participant"),
                    name: self.xml.string(child, "name"),
                    process_ref: self.xml.string(child, "processRef"),
                    span: self.xml.span(child),
                }),
                (Ns::Bpmn, "messageFlow") => collaboration.message_flows.push(MessageFlow {
                    id: self.id(child, "message flow"),
                    name: self.xml.string(child, "name"),
                    source_ref: self.xml.string(child, "sourceRef").unwrap_or_default(),
                    target_ref: self.xml.string(child, "targetRef").unwrap_or_default(),
                    span: self.xml.span(child),
                }),
                _ => {}
            }
        }
        collaboration
    }

    fn unsupported(&mut self, node: &Node<'_>, type_name: &str) {
        let id = self
            .xml
            .doc
            .attr(node, "id")
            .map(|a| self.xml.doc.value(a).to_string());
        self.xml.error(
            node.start,
            Rule::UnsupportedElement,
            id.as_deref(),
            format!(
                "Elements of type '{type_name}' are currently not supported. Please refer to the \
                 documentation for a list of supported elements: \
                 https://docs.camunda.io/docs/components/modeler/bpmn/bpmn-coverage/"
            ),
        );
    }

    fn duplicate_extension(&mut self, ext: &Node<'_>, element_id: &str, name: &str) {
        let element_id = (!element_id.is_empty()).then_some(element_id);
        self.xml.error(
            ext.start,
            Rule::ZeebeExtension,
            element_id,
            format!(
                "Must have exactly one 'zeebe:{name}' extension element when exists. Please check \
                 process definition XML and retain only one extension element."
            ),
        );
    }
}

/// Gives every element that waits for a message the `zeebe:subscription` of that message, so the
/// runtime finds the correlation key on the element.
fn copy_subscriptions(definitions: &mut Definitions) {
    let subscriptions: HashMap<&str, &Subscription> = definitions
        .messages
        .iter()
        .filter_map(|m| Some((m.id.as_str(), m.subscription.as_ref()?)))
        .collect();
    if subscriptions.is_empty() {
        return;
    }
    for process in &mut definitions.processes {
        for element in &mut process.elements {
            let message_ref = match &element.kind {
                ElementKind::Task(TaskKind::Receive { message_ref, .. }) => message_ref.as_deref(),
                ElementKind::StartEvent { .. }
                | ElementKind::IntermediateCatchEvent
                | ElementKind::BoundaryEvent { .. } => {
                    element.event_definitions.iter().find_map(|d| match d {
                        EventDefinition::Message { message_ref, .. } => message_ref.as_deref(),
                        _ => None,
                    })
                }
                _ => None,
            };
            if let Some(subscription) = message_ref.and_then(|r| subscriptions.get(r)) {
                element
                    .zeebe
                    .subscription
                    .get_or_insert_with(|| Box::new((*subscription).clone()));
            }
        }
    }
}

/// An `xs:boolean` value, or why it is not one.
fn boolean_value(value: &str, name: &str) -> Result<bool, String> {
    match value.trim() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        other => Err(format!(
            "'{other}' is not a boolean value of attribute '{name}'"
        )),
    }
}

/// A value read from the file as a [`SharedStr`]: a slice of the file's `text` when it is one
/// (no copy), else a copy (an unescaped value).
fn shared_in(text: &arcstr::ArcStr, value: &str) -> SharedStr {
    text.try_substr_from(value)
        .unwrap_or_else(|| SharedStr::from(value))
}

fn attr_expr(source: &Source, doc: &Document<'_>, attr: &Attr<'_>) -> Expr {
    Expr::new(shared_in(source.shared_text(), doc.value(attr)), attr.span)
}

/// The trimmed text of an element as an expression; an empty element gives an empty text at
/// the element's position.
fn text_expr<'a>(source: &Source, doc: &Document<'a>, node: &Node<'a>) -> Expr {
    match doc.text(node) {
        Some(text) => {
            let leading = text.value.len() - text.value.trim_start().len();
            let trimmed = text.value.trim();
            let start = text.span.start + leading as u32;
            Expr::new(
                shared_in(source.shared_text(), trimmed),
                Span {
                    start,
                    end: start + trimmed.len() as u32,
                },
            )
        }
        None => Expr::new(
            "",
            Span {
                start: node.start,
                end: node.start,
            },
        ),
    }
}

/// `callChoreography` → `CallChoreography`, as Zeebe names element types in messages.
fn upper_first(local: &str) -> String {
    let mut chars = local.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_share_the_files_text_unless_unescaped() {
        let source = Source::new(
            "shared.bpmn",
            r#"<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p" isExecutable="true"><task id="Task_1" name="a &amp; b"/></process></definitions>"#,
        );
        let parsed = parse(&source, DiagramReading::Read);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let definitions = parsed.definitions.expect("BPMN");
        let task = &definitions.processes[0].elements[0];
        assert_eq!(task.id, "Task_1");
        assert!(arcstr::ArcStr::ptr_eq(
            task.id.parent(),
            source.shared_text()
        ));
        let name = task.name.as_ref().expect("named");
        assert_eq!(name, "a & b");
        assert!(!arcstr::ArcStr::ptr_eq(name.parent(), source.shared_text()));
    }
}
