//! DMN XML (1.1 to 1.5) → [`Drg`], with every problem the file has: what camunda/dmn-scala
//! refuses when Zeebe deploys the file (FEEL that does not parse, unsupported logic, cycles,
//! COLLECT aggregations over several outputs, outputs without names), each with its position.
//!
//! The XML is read into the same namespace-resolved tree as BPMN (`crate::xml`), so the limits
//! (size, depth, element count, no DOCTYPE) are the same. Where dmn-scala has a message for a
//! problem, the diagnostic's sentence is dmn-scala's.

use std::sync::Arc;

use baton_feel::{Expression, UnaryTests, Value};

use super::model::*;
use crate::diagnostics::{Diagnostic, Rule as R};
use crate::source::Source;
use crate::xml::walk::{self, Walk};
use crate::xml::{Document, NoStream, Node, NodeId, Ns};

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
        source,
        doc: &doc,
        diagnostics: Vec::new(),
        decision_nodes: Vec::new(),
        bkm_nodes: Vec::new(),
        imports: Vec::new(),
    };
    let drg = parser.definitions();
    let mut diagnostics = parser.diagnostics;
    diagnostics.sort_by_key(|d| (d.line, d.col));
    Parsed {
        drg: diagnostics.is_empty().then_some(drg),
        diagnostics,
    }
}

struct Parser<'s, 'a> {
    source: &'s Source,
    doc: &'s Document<'a>,
    diagnostics: Vec<Diagnostic>,
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

impl<'s, 'a> Walk<'s, 'a> for Parser<'s, 'a> {
    fn source(&self) -> &'s Source {
        self.source
    }
    fn doc(&self) -> &'s Document<'a> {
        self.doc
    }
    fn diagnostics(&mut self) -> &mut Vec<Diagnostic> {
        &mut self.diagnostics
    }
}

impl<'s, 'a> Parser<'s, 'a> {
    fn child(&self, id: NodeId, local: &str) -> Option<(NodeId, &'s Node<'a>)> {
        self.children(id).find(|(_, c)| c.is(Ns::Dmn, local))
    }

    /// Reports ids used twice (XML Schema's `ID` type: the DMN model API refuses the file).
    fn check_ids(&mut self) {
        self.report_duplicate_ids(|ns| ns == Ns::Dmn);
    }

    fn definitions(&mut self) -> Drg {
        self.check_ids();
        let root_id = self.doc.root;
        let root = self.node(root_id);
        let id = self.string(root, "id").unwrap_or_default();
        if id.is_empty() {
            self.error(
                root.start,
                R::MissingId,
                None,
                "the <definitions> element must have an id: it is the decision requirements id",
            );
        }
        let mut input_data = Vec::new();
        for (node_id, child) in self.children(root_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            match child.local {
                "decision" => {
                    let id = self.string(child, "id").unwrap_or_default();
                    self.decision_nodes.push((id, node_id));
                }
                "businessKnowledgeModel" => {
                    let id = self.string(child, "id").unwrap_or_default();
                    let name = self.string(child, "name").unwrap_or_default();
                    self.bkm_nodes.push((id, name, node_id));
                }
                "inputData" => input_data.push(InputData {
                    id: self.string(child, "id").unwrap_or_default(),
                    name: self.string(child, "name").unwrap_or_default(),
                    span: self.span(child),
                }),
                "import" => {
                    let import_type = self.string(child, "importType").unwrap_or_default();
                    if import_type.to_lowercase().contains("/dmn/") {
                        self.imports
                            .push(self.string(child, "namespace").unwrap_or_default());
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
            name: self.string(root, "name").unwrap_or_default(),
            namespace: self.string(root, "namespace").unwrap_or_default(),
            decisions,
            bkms,
            input_data,
            span: self.span(root),
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
            self.error(at, R::DecisionLogic, Some(&id), message);
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
            self.error(
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
            self.error(
                b.span.start,
                R::DecisionRequirements,
                Some(&b.id.clone()),
                "Invalid DMN model: Cyclic dependencies between BKMs detected.",
            );
        }
    }

    fn decision(&mut self, node_id: NodeId) -> Decision {
        let node = self.node(node_id);
        let id = self.string(node, "id").unwrap_or_default();
        if id.is_empty() {
            self.error(
                node.start,
                R::MissingId,
                None,
                "a <decision> must have an id: business rule tasks call it by its id",
            );
        }
        let name = self.string(node, "name").unwrap_or_default();
        let mut required_decisions = Vec::new();
        let mut required_bkms = Vec::new();
        let mut variable = None;
        let mut version_tag = None;
        let mut logic = None;
        for (child_id, child) in self.children(node_id) {
            match (child.ns, child.local) {
                (Ns::Dmn, "informationRequirement") => {
                    for (_, reference) in self.children(child_id) {
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
                        self.string(child, "name").unwrap_or_default(),
                        self.string(child, "typeRef").filter(|t| !t.is_empty()),
                    ));
                }
                (Ns::Dmn, "extensionElements") => {
                    for (_, extension) in self.children(child_id) {
                        if extension.is(Ns::Zeebe, "versionTag") {
                            version_tag = self.string(extension, "value");
                        }
                    }
                }
                (
                    Ns::Dmn,
                    "decisionTable" | "literalExpression" | "context" | "relation" | "list"
                    | "invocation" | "functionDefinition",
                ) if logic.is_none() => {
                    logic = Some(if child.local == "functionDefinition" {
                        self.error(
                            child.start,
                            R::DecisionLogic,
                            Some(&id),
                            "unsupported decision expression 'functionDefinition': a decision \
                             is a decision table, a literal expression, a context, a relation, \
                             a list or an invocation",
                        );
                        Logic::Empty
                    } else {
                        self.logic(child_id, &id)
                    });
                }
                _ => {}
            }
        }
        let logic = logic.unwrap_or_else(|| {
            self.error(
                node.start,
                R::DecisionLogic,
                Some(&id),
                "unsupported decision expression 'null': the decision has no decision table, \
                 literal expression, context, relation, list or invocation",
            );
            Logic::Empty
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
            span: self.span(node),
        }
    }

    fn bkm(&mut self, node_id: NodeId) -> Bkm {
        let node = self.node(node_id);
        let id = self.string(node, "id").unwrap_or_default();
        let name = self.string(node, "name").unwrap_or_default();
        let mut required_bkms = Vec::new();
        let mut parameters = Vec::new();
        let mut logic = Logic::Empty;
        let mut literal_text = None;
        for (child_id, child) in self.children(node_id) {
            match (child.ns, child.local) {
                (Ns::Dmn, "knowledgeRequirement") => {
                    if let Some((_, reference)) = self.child(child_id, "requiredKnowledge")
                        && let Some(idx) = self.reference(reference, Target::Bkm, &id)
                    {
                        required_bkms.push(idx);
                    }
                }
                (Ns::Dmn, "encapsulatedLogic") => {
                    for (logic_id, logic_node) in self.children(child_id) {
                        if logic_node.ns != Ns::Dmn {
                            continue;
                        }
                        match logic_node.local {
                            "formalParameter" => parameters.push(Parameter {
                                name: Arc::from(
                                    self.string(logic_node, "name").unwrap_or_default().as_str(),
                                ),
                                type_ref: self
                                    .string(logic_node, "typeRef")
                                    .filter(|t| !t.is_empty()),
                            }),
                            "decisionTable" | "literalExpression" | "context" | "relation"
                            | "list" => {
                                if logic_node.local == "literalExpression" {
                                    literal_text = self
                                        .child(logic_id, "text")
                                        .map(|(_, t)| text_of(self.doc, t).to_owned());
                                }
                                logic = self.logic(logic_id, &id);
                            }
                            "invocation" | "functionDefinition" => {
                                self.error(
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
            span: self.span(node),
        }
    }

    /// Resolves a `requiredDecision` / `requiredKnowledge` / `requiredInput` `href`.
    fn reference(&mut self, node: &Node<'_>, target: Target, owner: &str) -> Option<usize> {
        let Some(href) = self.doc.attr(node, "href") else {
            self.error(
                node.start,
                R::UnresolvedReference,
                Some(owner),
                format!("<{}> must have an href such as '#id'", node.local),
            );
            return None;
        };
        let at = href.span.start;
        let value = self.doc.value(href).to_string();
        let Some(hash) = value.find('#') else {
            self.error(
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
            self.error(at, R::DecisionRequirements, Some(owner), message);
            return None;
        }
        let found = match target {
            Target::Decision => self.decision_nodes.iter().position(|(d, _)| d == id),
            Target::Bkm => self.bkm_nodes.iter().position(|(b, _, _)| b == id),
            Target::InputData => {
                let doc = self.doc;
                doc.children(doc.root)
                    .any(|(_, c)| {
                        c.is(Ns::Dmn, "inputData")
                            && self
                                .doc
                                .attr(c, "id")
                                .is_some_and(|a| self.doc.value(a) == id)
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
            self.error(
                at,
                R::UnresolvedReference,
                Some(owner),
                format!("the reference '{value}' names no {kind} of this file"),
            );
        }
        found
    }

    /// Any boxed expression: decision table, literal expression, context, relation, list,
    /// invocation, function definition.
    fn logic(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let node = self.node(node_id);
        match node.local {
            "decisionTable" => Logic::DecisionTable(Box::new(self.decision_table(node_id, owner))),
            "literalExpression" => match self.literal(node_id, owner) {
                Some(e) => Logic::Literal(e),
                None => Logic::Empty,
            },
            "context" => self.context(node_id, owner),
            "list" => {
                let mut items = Vec::new();
                for (child_id, child) in self.children(node_id) {
                    if child.ns == Ns::Dmn && is_expression(child.local) {
                        items.push(self.logic(child_id, owner));
                    }
                }
                Logic::List(items)
            }
            "relation" => self.relation(node_id, owner),
            "invocation" => self.invocation(node_id, owner),
            "functionDefinition" => self.function_definition(node_id, owner),
            other => {
                self.error(
                    node.start,
                    R::DecisionLogic,
                    Some(owner),
                    format!("unsupported expression found '{other}'"),
                );
                Logic::Empty
            }
        }
    }

    fn context(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let mut entries = Vec::new();
        let mut result = None;
        let context_entries: Vec<NodeId> = self
            .children(node_id)
            .filter(|(_, c)| c.is(Ns::Dmn, "contextEntry"))
            .map(|(id, _)| id)
            .collect();
        let count = context_entries.len();
        for (i, entry_id) in context_entries.into_iter().enumerate() {
            let variable = self
                .child(entry_id, "variable")
                .map(|(_, v)| self.string(v, "name").unwrap_or_default());
            let expression = self
                .children(entry_id)
                .find(|(_, c)| c.ns == Ns::Dmn && is_expression(c.local))
                .map(|(id, _)| id);
            let logic = match expression {
                Some(expr_id) => self.logic(expr_id, owner),
                None => {
                    let entry = self.node(entry_id);
                    self.error(
                        entry.start,
                        R::DecisionLogic,
                        Some(owner),
                        "unsupported expression found 'null': a context entry needs an expression",
                    );
                    Logic::Empty
                }
            };
            match variable {
                Some(name) => entries.push((Arc::from(name.as_str()), logic)),
                None if i + 1 == count => result = Some(Box::new(logic)),
                None => {
                    let entry = self.node(entry_id);
                    self.error(
                        entry.start,
                        R::DecisionLogic,
                        Some(owner),
                        "a context entry other than the last one must have a <variable> with \
                         its name",
                    );
                }
            }
        }
        Logic::Context { entries, result }
    }

    fn relation(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let columns: Vec<Arc<str>> = self
            .children(node_id)
            .filter(|(_, c)| c.is(Ns::Dmn, "column"))
            .map(|(_, c)| Arc::from(self.string(c, "name").unwrap_or_default().as_str()))
            .collect();
        let row_ids: Vec<NodeId> = self
            .children(node_id)
            .filter(|(_, c)| c.is(Ns::Dmn, "row"))
            .map(|(id, _)| id)
            .collect();
        let mut rows = Vec::new();
        for row_id in row_ids {
            let cells: Vec<NodeId> = self
                .children(row_id)
                .filter(|(_, c)| c.ns == Ns::Dmn && is_expression(c.local))
                .map(|(id, _)| id)
                .collect();
            if cells.len() != columns.len() {
                let row = self.node(row_id);
                self.error(
                    row.start,
                    R::DecisionLogic,
                    Some(owner),
                    format!(
                        "expected row with '{}' elements but found '{}'",
                        columns.len(),
                        cells.len()
                    ),
                );
            }
            let mut row = Vec::new();
            for (cell, column) in cells.into_iter().zip(&columns) {
                row.push((column.clone(), self.logic(cell, owner)));
            }
            rows.push(row);
        }
        Logic::Relation(rows)
    }

    fn invocation(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let mut bindings = Vec::new();
        let mut callee = None;
        for (child_id, child) in self.children(node_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            match child.local {
                "binding" => {
                    let name = self
                        .child(child_id, "parameter")
                        .map(|(_, p)| self.string(p, "name").unwrap_or_default())
                        .unwrap_or_default();
                    match self
                        .children(child_id)
                        .find(|(_, c)| c.ns == Ns::Dmn && is_expression(c.local))
                    {
                        Some((lit_id, lit)) if lit.local == "literalExpression" => {
                            if let Some(e) = self.literal(lit_id, owner) {
                                bindings.push((Arc::from(name.as_str()), e));
                            }
                        }
                        Some((_, other)) => {
                            self.error(
                                other.start,
                                R::DecisionLogic,
                                Some(owner),
                                format!(
                                    "expected binding with literal expression but found '{}'",
                                    other.local
                                ),
                            );
                        }
                        None => {}
                    }
                }
                "literalExpression" if callee.is_none() => {
                    callee = Some((
                        child.start,
                        self.child(child_id, "text")
                            .map(|(_, t)| text_of(self.doc, t).trim().to_owned())
                            .unwrap_or_default(),
                    ));
                }
                other if is_expression(other) && callee.is_none() => {
                    self.error(
                        child.start,
                        R::DecisionLogic,
                        Some(owner),
                        format!("expected invocation with literal expression but found '{other}'"),
                    );
                    return Logic::Empty;
                }
                _ => {}
            }
        }
        let Some((at, name)) = callee else {
            let node = self.node(node_id);
            self.error(
                node.start,
                R::DecisionLogic,
                Some(owner),
                "expected invocation with literal expression but found 'null'",
            );
            return Logic::Empty;
        };
        match self.bkm_nodes.iter().position(|(_, n, _)| *n == name) {
            Some(bkm) => Logic::Invocation { bkm, bindings },
            None => {
                self.error(
                    at,
                    R::DecisionRequirements,
                    Some(owner),
                    format!("no BKM found with name '{name}'"),
                );
                Logic::Empty
            }
        }
    }

    fn function_definition(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let mut params = Vec::new();
        let mut body = None;
        for (child_id, child) in self.children(node_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            if child.local == "formalParameter" {
                params.push(feel_name(&self.string(child, "name").unwrap_or_default()));
            } else if child.local == "literalExpression" && body.is_none() {
                if self.literal(child_id, owner).is_some() {
                    body = self
                        .child(child_id, "text")
                        .map(|(_, t)| text_of(self.doc, t).to_owned());
                }
            } else if is_expression(child.local) && body.is_none() {
                self.error(
                    child.start,
                    R::DecisionLogic,
                    Some(owner),
                    format!("expected literal expression but found '{}'", child.local),
                );
                return Logic::Empty;
            }
        }
        let Some(body) = body else {
            return Logic::Empty;
        };
        let text = format!("function({}) {}", params.join(", "), body);
        match Expression::parse(&text)
            .ok()
            .and_then(|e| e.evaluate(&(), &baton_feel::Env::default()).result.ok())
        {
            Some(f @ Value::Function(_)) => Logic::Function(f),
            _ => {
                let node = self.node(node_id);
                self.error(
                    node.start,
                    R::DecisionLogic,
                    Some(owner),
                    format!("FEEL expression: failed to build the function '{text}'"),
                );
                Logic::Empty
            }
        }
    }

    fn decision_table(&mut self, node_id: NodeId, owner: &str) -> DecisionTable {
        let node = self.node(node_id);
        let hit_policy = match self.doc.attr(node, "hitPolicy") {
            None => HitPolicy::Unique,
            Some(a) => HitPolicy::from_xml(self.doc.value(a)).unwrap_or_else(|| {
                let message = format!(
                    "the hit policy '{}' is not one of UNIQUE, FIRST, PRIORITY, ANY, COLLECT, \
                     RULE ORDER, OUTPUT ORDER",
                    self.doc.value(a)
                );
                self.error(a.span.start, R::DecisionTable, Some(owner), message);
                HitPolicy::Unique
            }),
        };
        let aggregation = match self.doc.attr(node, "aggregation") {
            None => None,
            Some(a) => match Aggregation::from_xml(self.doc.value(a)) {
                Some(agg) => Some(agg),
                None => {
                    let message = format!(
                        "the aggregation '{}' is not one of SUM, MIN, MAX, COUNT",
                        self.doc.value(a)
                    );
                    self.error(a.span.start, R::DecisionTable, Some(owner), message);
                    None
                }
            },
        };
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let mut rule_ids = Vec::new();
        for (child_id, child) in self.children(node_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            match child.local {
                "input" => {
                    let id = self.string(child, "id").unwrap_or_default();
                    let label = self.string(child, "label").map(|l| Arc::from(l.as_str()));
                    let expression = match self.child(child_id, "inputExpression") {
                        Some((expr_id, _)) => self.literal(expr_id, owner),
                        None => {
                            self.error(
                                child.start,
                                R::DecisionTable,
                                Some(owner),
                                format!("the input '{id}' has no <inputExpression>"),
                            );
                            None
                        }
                    };
                    if let Some(expression) = expression {
                        inputs.push(Input {
                            id: Arc::from(id.as_str()),
                            label,
                            expression,
                        });
                    }
                }
                "output" => {
                    let default = match self.child(child_id, "defaultOutputEntry") {
                        Some((default_id, _)) => self.literal(default_id, owner),
                        None => None,
                    };
                    let values = self
                        .child(child_id, "outputValues")
                        .and_then(|(values_id, _)| self.child(values_id, "text"))
                        .map(|(_, t)| text_of(self.doc, t).to_owned());
                    outputs.push(Output {
                        id: Arc::from(self.string(child, "id").unwrap_or_default().as_str()),
                        name: self.string(child, "name").map(|n| Arc::from(n.as_str())),
                        label: self.string(child, "label").map(|l| Arc::from(l.as_str())),
                        values,
                        default,
                    });
                }
                "rule" => rule_ids.push(child_id),
                _ => {}
            }
        }
        if outputs.len() > 1 {
            if hit_policy == HitPolicy::Collect && aggregation.is_some() {
                self.error(
                    node.start,
                    R::DecisionTable,
                    Some(owner),
                    "hit policy 'COLLECT' with aggregator is not defined for compound output",
                );
            }
            let unnamed: Vec<(u32, String)> = self
                .children(node_id)
                .filter(|(_, c)| c.is(Ns::Dmn, "output") && self.doc.attr(c, "name").is_none())
                .map(|(_, c)| {
                    (
                        c.start,
                        self.string(c, "label").unwrap_or_else(|| "null".to_owned()),
                    )
                })
                .collect();
            for (at, label) in unnamed {
                self.error(
                    at,
                    R::DecisionTable,
                    Some(owner),
                    format!("no output name defined for `{label}`"),
                );
            }
        }
        let mut rules = Vec::new();
        for rule_id in rule_ids {
            rules.push(self.rule(rule_id, owner));
        }
        DecisionTable {
            hit_policy,
            aggregation,
            inputs,
            outputs,
            rules,
        }
    }

    fn rule(&mut self, node_id: NodeId, owner: &str) -> Rule {
        let node = self.node(node_id);
        let mut input_entries = Vec::new();
        let mut output_entries = Vec::new();
        for (child_id, child) in self.children(node_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            match child.local {
                "inputEntry" => input_entries.push(self.unary_tests(child_id, owner)),
                "outputEntry" => {
                    if let Some(e) = self.literal(child_id, owner) {
                        output_entries.push(e);
                    }
                }
                _ => {}
            }
        }
        Rule {
            id: Arc::from(self.string(node, "id").unwrap_or_default().as_str()),
            input_entries,
            output_entries,
        }
    }

    /// Checks the `expressionLanguage` of an expression element.
    fn language_ok(&mut self, node: &Node<'_>, owner: &str) -> bool {
        let Some(language) = self.doc.attr(node, "expressionLanguage") else {
            return true;
        };
        let lower = self.doc.value(language).to_lowercase();
        if FEEL_LANGUAGES.contains(&lower.as_str()) {
            return true;
        }
        self.error(
            language.span.start,
            R::DecisionLogic,
            Some(owner),
            format!("Expression language '{lower}' is not supported"),
        );
        false
    }

    /// A literal expression element (`literalExpression`, `inputExpression`, `outputEntry`,
    /// `defaultOutputEntry`, ...): its `text`, parsed as a FEEL expression.
    fn literal(&mut self, node_id: NodeId, owner: &str) -> Option<Expression> {
        let node = self.node(node_id);
        let Some((_, text)) = self.child(node_id, "text") else {
            let id = self.string(node, "id").unwrap_or_else(|| "null".to_owned());
            self.error(
                node.start,
                R::DecisionLogic,
                Some(owner),
                format!("The expression '{id}' must not be empty."),
            );
            return None;
        };
        if !self.language_ok(node, owner) {
            return None;
        }
        let source = text_of(self.doc, text);
        match Expression::parse(source) {
            Ok(e) => Some(e),
            Err(error) => {
                let at = self.text_offset(text, error.offset);
                self.error(
                    at,
                    R::FeelSyntax,
                    Some(owner),
                    format!("FEEL expression: {error}"),
                );
                None
            }
        }
    }

    /// An `inputEntry`: unary tests, `None` when the text is empty (matches any input).
    fn unary_tests(&mut self, node_id: NodeId, owner: &str) -> Option<UnaryTests> {
        let node = self.node(node_id);
        let Some((_, text)) = self.child(node_id, "text") else {
            self.error(
                node.start,
                R::DecisionTable,
                Some(owner),
                "an <inputEntry> must have a <text> (empty for any value)",
            );
            return None;
        };
        if !self.language_ok(node, owner) {
            return None;
        }
        let source = text_of(self.doc, text);
        if source.is_empty() {
            return None;
        }
        match UnaryTests::parse(source) {
            Ok(tests) => Some(tests),
            Err(error) => {
                let at = self.text_offset(text, error.offset);
                self.error(
                    at,
                    R::FeelSyntax,
                    Some(owner),
                    format!("FEEL unary-tests: {error}"),
                );
                None
            }
        }
    }

    /// The source offset of byte `offset` of an element's text: exact when the text is written
    /// without entities or CDATA, else the start of the text.
    fn text_offset(&self, text: &Node<'_>, offset: usize) -> u32 {
        match self.doc.text(text) {
            Some(t) => {
                let raw = &self.source.text()[t.span.start as usize..t.span.end as usize];
                if raw == t.value {
                    t.span.start + offset as u32
                } else {
                    t.span.start
                }
            }
            None => text.start,
        }
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
