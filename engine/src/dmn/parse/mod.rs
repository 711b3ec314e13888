//! DMN XML (1.1 to 1.5) → [`Drg`], with every problem the file has: what camunda/dmn-scala
//! refuses when Zeebe deploys the file (FEEL that does not parse, unsupported logic, cycles,
//! COLLECT aggregations over several outputs, outputs without names), each with its position.
//!
//! The XML is read into the same namespace-resolved tree as BPMN (`crate::xml`), so the limits
//! (size, depth, element count, no DOCTYPE) are the same. Where dmn-scala has a message for a
//! problem, the diagnostic's sentence is dmn-scala's.
//!
//! This module reads the decision requirements graph (decisions, business knowledge models,
//! input data, requirements, cycles); `logic` reads the boxed expressions inside them.

use std::sync::Arc;

use baton_feel::{Expression, UnaryTests, Value};

use super::model::*;
use crate::diagnostics::{Diagnostic, Rule as R};
use crate::source::Source;
use crate::xml::walk::{self, Walker};
use crate::xml::{Document, NoStream, Node, NodeId, Ns};

mod logic;

/// What [`parse`] read: the DRG (absent when the file is not DMN XML at all, or has problems)
/// and every problem found.
#[derive(Debug)]
pub struct Parsed {
    pub drg: Option<Drg>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The expression languages dmn-scala accepts (compared lower-cased).
const FEEL_LANGUAGES: &[&str] = &[
    "feel",
    "http://www.omg.org/spec/feel/20140401",
    "http://www.omg.org/spec/dmn/20180521/feel/",
    "https://www.omg.org/spec/dmn/20191111/feel/",
    "https://www.omg.org/spec/dmn/20211108/feel/",
    "https://www.omg.org/spec/dmn/20230324/model/",
];

/// A DMN file's root element.
const DMN_DEFINITIONS: walk::Definitions = walk::Definitions {
    ns: Ns::Dmn,
    rule: R::NotDmn,
    namespace: "a DMN model namespace (DMN 1.1 to 1.5, e.g. \
                https://www.omg.org/spec/DMN/20191111/MODEL/)",
};

/// Parses one DMN file.
pub fn parse(source: &Source) -> Parsed {
    let doc = match walk::read(source, &mut NoStream, &DMN_DEFINITIONS) {
        Ok(doc) => doc,
        Err(diagnostic) => {
            return Parsed {
                drg: None,
                diagnostics: vec![diagnostic],
            };
        }
    };
    let mut parser = Parser {
        xml: Walker {
            source,
            doc: &doc,
            diagnostics: Vec::new(),
        },
        decision_nodes: Vec::new(),
        bkm_nodes: Vec::new(),
        imports: Vec::new(),
    };
    let drg = parser.definitions();
    let mut diagnostics = parser.xml.diagnostics;
    diagnostics.sort_by_key(|d| (d.line, d.col));
    Parsed {
        drg: diagnostics.is_empty().then_some(drg),
        diagnostics,
    }
}

struct Parser<'s, 'a> {
    xml: Walker<'s, 'a>,
    /// Every `decision` (id, node), in document order: their index is their [`DecisionIdx`].
    decision_nodes: Vec<(String, NodeId)>,
    /// Every `businessKnowledgeModel` (id, name, node), in document order.
    bkm_nodes: Vec<(String, String, NodeId)>,
    /// The namespaces of `import`s of DMN models.
    imports: Vec<String>,
}

/// Which kind of element a `href` must name.
#[derive(Clone, Copy)]
enum Target {
    Decision,
    Bkm,
    InputData,
}

impl<'s, 'a> Parser<'s, 'a> {
    fn child(&self, id: NodeId, local: &str) -> Option<(NodeId, &'s Node<'a>)> {
        self.xml.children(id).find(|(_, c)| c.is(Ns::Dmn, local))
    }

    /// Reports ids used twice (XML Schema's `ID` type: the DMN model API refuses the file).
    fn check_ids(&mut self) {
        self.xml.report_duplicate_ids(|ns| ns == Ns::Dmn);
    }

    fn definitions(&mut self) -> Drg {
        self.check_ids();
        let root_id = self.xml.doc.root;
        let root = self.xml.node(root_id);
        let id = self.xml.string(root, "id").unwrap_or_default();
        if id.is_empty() {
            self.xml.error(
                root.start,
                R::MissingId,
                None,
                "the <definitions> element must have an id: it is the decision requirements id",
            );
        }
        let mut input_data = Vec::new();
        for (node_id, child) in self.xml.children(root_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            match child.local {
                "decision" => {
                    let id = self.xml.string(child, "id").unwrap_or_default();
                    self.decision_nodes.push((id, node_id));
                }
                "businessKnowledgeModel" => {
                    let id = self.xml.string(child, "id").unwrap_or_default();
                    let name = self.xml.string(child, "name").unwrap_or_default();
                    self.bkm_nodes.push((id, name, node_id));
                }
                "inputData" => input_data.push(InputData {
                    id: self.xml.string(child, "id").unwrap_or_default(),
                    name: self.xml.string(child, "name").unwrap_or_default(),
                    span: self.xml.span(child),
                }),
                "import" => {
                    let import_type = self.xml.string(child, "importType").unwrap_or_default();
                    if import_type.to_lowercase().contains("/dmn/") {
                        self.imports
                            .push(self.xml.string(child, "namespace").unwrap_or_default());
                    }
                }
                _ => {}
            }
        }
        let bkm_nodes = self.bkm_nodes.clone();
        let bkms: Vec<Bkm> = bkm_nodes
            .iter()
            .map(|(_, _, node)| self.bkm(*node))
            .collect();
        let decision_nodes = self.decision_nodes.clone();
        let decisions: Vec<Decision> = decision_nodes
            .iter()
            .map(|(_, node)| self.decision(*node))
            .collect();
        let drg = Drg {
            id,
            name: self.xml.string(root, "name").unwrap_or_default(),
            namespace: self.xml.string(root, "namespace").unwrap_or_default(),
            decisions,
            bkms,
            input_data,
            span: self.xml.span(root),
        };
        self.check_cycles(&drg);
        self.check_bkm_calls(&drg);
        drg
    }

    /// A decision or BKM that requires a business knowledge model calls it from FEEL
    /// (`bkm(1, 2)`) or invokes it (`<invocation>`). baton turns a BKM into a FEEL function only
    /// when its logic is a literal expression; other logic can be invoked, not called.
    fn check_bkm_calls(&mut self, drg: &Drg) {
        let invokes = |logic: &Logic, bkm: BkmIdx| matches!(logic, Logic::Invocation { bkm: invoked, .. } if *invoked == bkm);
        let mut problems = Vec::new();
        let requirers = drg
            .decisions
            .iter()
            .map(|d| (&d.id, &d.logic, &d.required_bkms, d.span))
            .chain(
                drg.bkms
                    .iter()
                    .map(|b| (&b.id, &b.logic, &b.required_bkms, b.span)),
            );
        for (id, logic, required, span) in requirers {
            for &bkm in required {
                let target = &drg.bkms[bkm];
                if target.function.is_none() && !invokes(logic, bkm) {
                    problems.push((
                        span.start,
                        id.clone(),
                        format!(
                            "baton calls the business knowledge model '{}' from FEEL only when its \
                             logic is a literal expression; its logic is a {}: evaluate it with an \
                             <invocation> instead",
                            target.name,
                            kind_of(&target.logic)
                        ),
                    ));
                }
            }
        }
        for (at, id, message) in problems {
            self.xml.error(at, R::DecisionLogic, Some(&id), message);
        }
    }

    /// dmn-scala's `checkForCyclicDependencies`.
    fn check_cycles(&mut self, drg: &Drg) {
        let decision_edges: Vec<Vec<usize>> = drg
            .decisions
            .iter()
            .map(|d| d.required_decisions.clone())
            .collect();
        if let Some(at) = find_cycle(&decision_edges) {
            let d = &drg.decisions[at];
            self.xml.error(
                d.span.start,
                R::DecisionRequirements,
                Some(&d.id.clone()),
                "Invalid DMN model: Cyclic dependencies between decisions detected.",
            );
            return;
        }
        let bkm_edges: Vec<Vec<usize>> = drg.bkms.iter().map(|b| b.required_bkms.clone()).collect();
        if let Some(at) = find_cycle(&bkm_edges) {
            let b = &drg.bkms[at];
            self.xml.error(
                b.span.start,
                R::DecisionRequirements,
                Some(&b.id.clone()),
                "Invalid DMN model: Cyclic dependencies between BKMs detected.",
            );
        }
    }

    fn decision(&mut self, node_id: NodeId) -> Decision {
        let node = self.xml.node(node_id);
        let id = self.xml.string(node, "id").unwrap_or_default();
        if id.is_empty() {
            self.xml.error(
                node.start,
                R::MissingId,
                None,
                "a <decision> must have an id: business rule tasks call it by its id",
            );
        }
        let name = self.xml.string(node, "name").unwrap_or_default();
        let mut required_decisions = Vec::new();
        let mut required_bkms = Vec::new();
        let mut variable = None;
        let mut version_tag = None;
        let mut logic = None;
        for (child_id, child) in self.xml.children(node_id) {
            match (child.ns, child.local) {
                (Ns::Dmn, "informationRequirement") => {
                    for (_, reference) in self.xml.children(child_id) {
                        if reference.is(Ns::Dmn, "requiredDecision") {
                            if let Some(idx) = self.reference(reference, Target::Decision, &id) {
                                required_decisions.push(idx);
                            }
                        } else if reference.is(Ns::Dmn, "requiredInput") {
                            self.reference(reference, Target::InputData, &id);
                        }
                    }
                }
                (Ns::Dmn, "knowledgeRequirement") => {
                    if let Some((_, reference)) = self.child(child_id, "requiredKnowledge")
                        && let Some(idx) = self.reference(reference, Target::Bkm, &id)
                    {
                        required_bkms.push(idx);
                    }
                }
                (Ns::Dmn, "variable") => {
                    variable = Some((
                        self.xml.string(child, "name").unwrap_or_default(),
                        self.xml.string(child, "typeRef").filter(|t| !t.is_empty()),
                    ));
                }
                (Ns::Dmn, "extensionElements") => {
                    for (_, extension) in self.xml.children(child_id) {
                        if extension.is(Ns::Zeebe, "versionTag") {
                            version_tag = self.xml.string(extension, "value");
                        }
                    }
                }
                (
                    Ns::Dmn,
                    "decisionTable" | "literalExpression" | "context" | "relation" | "list"
                    | "invocation" | "functionDefinition",
                ) if logic.is_none() => {
                    logic = Some(if child.local == "functionDefinition" {
                        self.no_logic(
                            child.start,
                            R::DecisionLogic,
                            &id,
                            "unsupported decision expression 'functionDefinition': a decision \
                             is a decision table, a literal expression, a context, a relation, \
                             a list or an invocation",
                        )
                    } else {
                        self.logic(child_id, &id)
                    });
                }
                _ => {}
            }
        }
        let logic = logic.unwrap_or_else(|| {
            self.no_logic(
                node.start,
                R::DecisionLogic,
                &id,
                "unsupported decision expression 'null': the decision has no decision table, \
                 literal expression, context, relation, list or invocation",
            )
        });
        let (result_name, result_type) = match variable {
            Some((name, type_ref)) if !name.is_empty() => (name, type_ref),
            Some((_, type_ref)) => (id.clone(), type_ref),
            None => (id.clone(), None),
        };
        Decision {
            id: Arc::from(id.as_str()),
            name: Arc::from(name.as_str()),
            result_name: Arc::from(result_name.as_str()),
            result_type,
            version_tag,
            logic,
            required_decisions,
            required_bkms,
            span: self.xml.span(node),
        }
    }

    fn bkm(&mut self, node_id: NodeId) -> Bkm {
        let node = self.xml.node(node_id);
        let id = self.xml.string(node, "id").unwrap_or_default();
        let name = self.xml.string(node, "name").unwrap_or_default();
        let mut required_bkms = Vec::new();
        let mut parameters = Vec::new();
        let mut logic = Logic::Empty;
        let mut literal_text = None;
        for (child_id, child) in self.xml.children(node_id) {
            match (child.ns, child.local) {
                (Ns::Dmn, "knowledgeRequirement") => {
                    if let Some((_, reference)) = self.child(child_id, "requiredKnowledge")
                        && let Some(idx) = self.reference(reference, Target::Bkm, &id)
                    {
                        required_bkms.push(idx);
                    }
                }
                (Ns::Dmn, "encapsulatedLogic") => {
                    for (logic_id, logic_node) in self.xml.children(child_id) {
                        if logic_node.ns != Ns::Dmn {
                            continue;
                        }
                        match logic_node.local {
                            "formalParameter" => parameters.push(Parameter {
                                name: Arc::from(
                                    self.xml
                                        .string(logic_node, "name")
                                        .unwrap_or_default()
                                        .as_str(),
                                ),
                                type_ref: self
                                    .xml
                                    .string(logic_node, "typeRef")
                                    .filter(|t| !t.is_empty()),
                            }),
                            "decisionTable" | "literalExpression" | "context" | "relation"
                            | "list" => {
                                if logic_node.local == "literalExpression" {
                                    literal_text = self
                                        .child(logic_id, "text")
                                        .map(|(_, t)| text_of(self.xml.doc, t).to_owned());
                                }
                                logic = self.logic(logic_id, &id);
                            }
                            "invocation" | "functionDefinition" => {
                                self.xml.error(
                                    logic_node.start,
                                    R::DecisionLogic,
                                    Some(&id),
                                    format!(
                                        "unsupported business knowledge model logic found '{}'",
                                        logic_node.local
                                    ),
                                );
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        // A literal expression body becomes a FEEL function `function(p1, p2) body`, so that
        // decisions call it like any function.
        let body = match (&logic, literal_text) {
            (Logic::Literal(_), Some(body)) => Some(body),
            (Logic::Empty, _) => Some("null".to_owned()),
            _ => None,
        };
        let function = match body {
            Some(body) => {
                let params: Vec<String> = parameters.iter().map(|p| feel_name(&p.name)).collect();
                let text = format!("function({}) {}", params.join(", "), body);
                Expression::parse(&text).ok().and_then(|e| {
                    e.evaluate(&(), &baton_feel::Env::default())
                        .result
                        .ok()
                        .filter(|v| matches!(v, Value::Function(_)))
                })
            }
            None => None,
        };
        Bkm {
            id: Arc::from(id.as_str()),
            name: Arc::from(name.as_str()),
            parameters,
            logic,
            required_bkms,
            function,
            span: self.xml.span(node),
        }
    }

    /// Resolves a `requiredDecision` / `requiredKnowledge` / `requiredInput` `href`.
    fn reference(&mut self, node: &Node<'_>, target: Target, owner: &str) -> Option<usize> {
        let Some(href) = self.xml.doc.attr(node, "href") else {
            self.xml.error(
                node.start,
                R::UnresolvedReference,
                Some(owner),
                format!("<{}> must have an href such as '#id'", node.local),
            );
            return None;
        };
        let at = href.span.start;
        let value = self.xml.doc.value(href).to_string();
        let Some(hash) = value.find('#') else {
            self.xml.error(
                at,
                R::UnresolvedReference,
                Some(owner),
                format!("the reference '{value}' must have the form '#id'"),
            );
            return None;
        };
        let (namespace, id) = (&value[..hash], &value[hash + 1..]);
        if !namespace.is_empty() {
            let message = if self.imports.iter().any(|i| i == namespace) {
                format!(
                    "the reference '{value}' names an element of an imported DMN model: baton \
                     evaluates decisions of one DMN file only"
                )
            } else {
                format!("No import found for namespace '{namespace}'.")
            };
            self.xml
                .error(at, R::DecisionRequirements, Some(owner), message);
            return None;
        }
        let found = match target {
            Target::Decision => self.decision_nodes.iter().position(|(d, _)| d == id),
            Target::Bkm => self.bkm_nodes.iter().position(|(b, _, _)| b == id),
            Target::InputData => {
                let doc = self.xml.doc;
                doc.children(doc.root)
                    .any(|(_, c)| {
                        c.is(Ns::Dmn, "inputData")
                            && self
                                .xml
                                .doc
                                .attr(c, "id")
                                .is_some_and(|a| self.xml.doc.value(a) == id)
                    })
                    .then_some(0)
            }
        };
        if found.is_none() {
            let kind = match target {
                Target::Decision => "decision",
                Target::Bkm => "business knowledge model",
                Target::InputData => "input data",
            };
            self.xml.error(
                at,
                R::UnresolvedReference,
                Some(owner),
                format!("the reference '{value}' names no {kind} of this file"),
            );
        }
        found
    }
}

/// The text of a `<text>` element (empty when it has none).
fn text_of<'d, 'a>(doc: &'d Document<'a>, node: &Node<'a>) -> &'d str {
    doc.text(node).map_or("", |t| &t.value)
}

/// How a message names a kind of logic.
fn kind_of(logic: &Logic) -> &'static str {
    match logic {
        Logic::DecisionTable(_) => "decision table",
        Logic::Context { .. } => "context",
        Logic::List(_) => "list",
        Logic::Relation(_) => "relation",
        Logic::Invocation { .. } => "invocation",
        _ => "literal expression",
    }
}

/// The boxed expressions an element may hold.
fn is_expression(local: &str) -> bool {
    matches!(
        local,
        "decisionTable"
            | "literalExpression"
            | "context"
            | "relation"
            | "list"
            | "invocation"
            | "functionDefinition"
    )
}

/// A parameter name as FEEL source: as written when it is a plain name, else in backticks.
fn feel_name(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        name.to_owned()
    } else {
        format!("`{name}`")
    }
}

/// The first node on a cycle of `edges` (node → the nodes it requires), if any.
fn find_cycle(edges: &[Vec<usize>]) -> Option<usize> {
    // Iterative depth-first search with colours: 0 new, 1 on the stack, 2 done.
    let mut colour = vec![0u8; edges.len()];
    for start in 0..edges.len() {
        if colour[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        colour[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&child) = edges[node].get(*next) {
                *next += 1;
                match colour.get(child) {
                    Some(1) => return Some(child),
                    Some(0) => {
                        colour[child] = 1;
                        stack.push((child, 0));
                    }
                    _ => {}
                }
            } else {
                colour[node] = 2;
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_found() {
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![]]), None);
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![0]]), Some(0));
        assert_eq!(find_cycle(&[vec![0]]), Some(0));
        assert_eq!(find_cycle(&[vec![1, 2], vec![2], vec![]]), None);
    }

    #[test]
    fn parameter_names_are_quoted_when_needed() {
        assert_eq!(feel_name("amount"), "amount");
        assert_eq!(feel_name("order amount"), "`order amount`");
    }
}
