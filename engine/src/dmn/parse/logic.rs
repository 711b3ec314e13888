//! Boxed expressions (Zeebe's dmn-scala parses them at deployment): decision tables and their
//! rules, literal expressions and unary tests (FEEL parsed here, errors at their position),
//! contexts, lists, relations, invocations and function definitions.

use baton_feel::ParseError;

use super::*;

impl<'s, 'a> Parser<'s, 'a> {
    /// Reports a problem with the logic of `owner`, and gives the empty logic in its place.
    pub(super) fn no_logic(
        &mut self,
        at: u32,
        rule: R,
        owner: &str,
        message: impl Into<String>,
    ) -> Logic {
        self.xml.error(at, rule, Some(owner), message);
        Logic::Empty
    }

    /// Any boxed expression: decision table, literal expression, context, relation, list,
    /// invocation, function definition.
    pub(super) fn logic(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let node = self.xml.node(node_id);
        match node.local {
            "decisionTable" => Logic::DecisionTable(Box::new(self.decision_table(node_id, owner))),
            "literalExpression" => match self.literal(node_id, owner) {
                Some(e) => Logic::Literal(e),
                None => Logic::Empty,
            },
            "context" => self.context(node_id, owner),
            "list" => {
                let mut items = Vec::new();
                for (child_id, child) in self.xml.children(node_id) {
                    if child.ns == Ns::Dmn && is_expression(child.local) {
                        items.push(self.logic(child_id, owner));
                    }
                }
                Logic::List(items)
            }
            "relation" => self.relation(node_id, owner),
            "invocation" => self.invocation(node_id, owner),
            "functionDefinition" => self.function_definition(node_id, owner),
            other => self.no_logic(
                node.start,
                R::DecisionLogic,
                owner,
                format!("unsupported expression found '{other}'"),
            ),
        }
    }

    fn context(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let mut entries = Vec::new();
        let mut result = None;
        let context_entries: Vec<NodeId> = self
            .xml
            .children(node_id)
            .filter(|(_, c)| c.is(Ns::Dmn, "contextEntry"))
            .map(|(id, _)| id)
            .collect();
        let count = context_entries.len();
        for (i, entry_id) in context_entries.into_iter().enumerate() {
            let variable = self
                .child(entry_id, "variable")
                .map(|(_, v)| self.xml.string(v, "name").unwrap_or_default());
            let expression = self
                .xml
                .children(entry_id)
                .find(|(_, c)| c.ns == Ns::Dmn && is_expression(c.local))
                .map(|(id, _)| id);
            let logic = match expression {
                Some(expr_id) => self.logic(expr_id, owner),
                None => {
                    let entry = self.xml.node(entry_id);
                    self.no_logic(
                        entry.start,
                        R::DecisionLogic,
                        owner,
                        "unsupported expression found 'null': a context entry needs an expression",
                    )
                }
            };
            match variable {
                Some(name) => entries.push((Arc::from(name.as_str()), logic)),
                None if i + 1 == count => result = Some(Box::new(logic)),
                None => {
                    let entry = self.xml.node(entry_id);
                    self.xml.error(
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
            .xml
            .children(node_id)
            .filter(|(_, c)| c.is(Ns::Dmn, "column"))
            .map(|(_, c)| Arc::from(self.xml.string(c, "name").unwrap_or_default().as_str()))
            .collect();
        let row_ids: Vec<NodeId> = self
            .xml
            .children(node_id)
            .filter(|(_, c)| c.is(Ns::Dmn, "row"))
            .map(|(id, _)| id)
            .collect();
        let mut rows = Vec::new();
        for row_id in row_ids {
            let cells: Vec<NodeId> = self
                .xml
                .children(row_id)
                .filter(|(_, c)| c.ns == Ns::Dmn && is_expression(c.local))
                .map(|(id, _)| id)
                .collect();
            if cells.len() != columns.len() {
                let row = self.xml.node(row_id);
                self.xml.error(
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
        for (child_id, child) in self.xml.children(node_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            match child.local {
                "binding" => {
                    let name = self
                        .child(child_id, "parameter")
                        .map(|(_, p)| self.xml.string(p, "name").unwrap_or_default())
                        .unwrap_or_default();
                    match self
                        .xml
                        .children(child_id)
                        .find(|(_, c)| c.ns == Ns::Dmn && is_expression(c.local))
                    {
                        Some((lit_id, lit)) if lit.local == "literalExpression" => {
                            if let Some(e) = self.literal(lit_id, owner) {
                                bindings.push((Arc::from(name.as_str()), e));
                            }
                        }
                        Some((_, other)) => {
                            self.xml.error(
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
                            .map(|(_, t)| text_of(self.xml.doc, t).trim().to_owned())
                            .unwrap_or_default(),
                    ));
                }
                other if is_expression(other) && callee.is_none() => {
                    return self.no_logic(
                        child.start,
                        R::DecisionLogic,
                        owner,
                        format!("expected invocation with literal expression but found '{other}'"),
                    );
                }
                _ => {}
            }
        }
        let Some((at, name)) = callee else {
            let node = self.xml.node(node_id);
            return self.no_logic(
                node.start,
                R::DecisionLogic,
                owner,
                "expected invocation with literal expression but found 'null'",
            );
        };
        match self.bkm_nodes.iter().position(|(_, n, _)| *n == name) {
            Some(bkm) => Logic::Invocation { bkm, bindings },
            None => self.no_logic(
                at,
                R::DecisionRequirements,
                owner,
                format!("no BKM found with name '{name}'"),
            ),
        }
    }

    fn function_definition(&mut self, node_id: NodeId, owner: &str) -> Logic {
        let mut params = Vec::new();
        let mut body = None;
        for (child_id, child) in self.xml.children(node_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            if child.local == "formalParameter" {
                params.push(feel_name(
                    &self.xml.string(child, "name").unwrap_or_default(),
                ));
            } else if child.local == "literalExpression" && body.is_none() {
                if self.literal(child_id, owner).is_some() {
                    body = self
                        .child(child_id, "text")
                        .map(|(_, t)| text_of(self.xml.doc, t).to_owned());
                }
            } else if is_expression(child.local) && body.is_none() {
                return self.no_logic(
                    child.start,
                    R::DecisionLogic,
                    owner,
                    format!("expected literal expression but found '{}'", child.local),
                );
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
                let node = self.xml.node(node_id);
                self.no_logic(
                    node.start,
                    R::DecisionLogic,
                    owner,
                    format!("FEEL expression: failed to build the function '{text}'"),
                )
            }
        }
    }

    fn decision_table(&mut self, node_id: NodeId, owner: &str) -> DecisionTable {
        let node = self.xml.node(node_id);
        let hit_policy = match self.xml.doc.attr(node, "hitPolicy") {
            None => HitPolicy::Unique,
            Some(a) => HitPolicy::from_xml(self.xml.doc.value(a)).unwrap_or_else(|| {
                let message = format!(
                    "the hit policy '{}' is not one of UNIQUE, FIRST, PRIORITY, ANY, COLLECT, \
                     RULE ORDER, OUTPUT ORDER",
                    self.xml.doc.value(a)
                );
                self.xml
                    .error(a.span.start, R::DecisionTable, Some(owner), message);
                HitPolicy::Unique
            }),
        };
        let aggregation = match self.xml.doc.attr(node, "aggregation") {
            None => None,
            Some(a) => match Aggregation::from_xml(self.xml.doc.value(a)) {
                Some(agg) => Some(agg),
                None => {
                    let message = format!(
                        "the aggregation '{}' is not one of SUM, MIN, MAX, COUNT",
                        self.xml.doc.value(a)
                    );
                    self.xml
                        .error(a.span.start, R::DecisionTable, Some(owner), message);
                    None
                }
            },
        };
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let mut rule_ids = Vec::new();
        for (child_id, child) in self.xml.children(node_id) {
            if child.ns != Ns::Dmn {
                continue;
            }
            match child.local {
                "input" => {
                    let id = self.xml.string(child, "id").unwrap_or_default();
                    let label = self
                        .xml
                        .string(child, "label")
                        .map(|l| Arc::from(l.as_str()));
                    let expression = match self.child(child_id, "inputExpression") {
                        Some((expr_id, _)) => self.literal(expr_id, owner),
                        None => {
                            self.xml.error(
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
                        .map(|(_, t)| text_of(self.xml.doc, t).to_owned());
                    outputs.push(Output {
                        id: Arc::from(self.xml.string(child, "id").unwrap_or_default().as_str()),
                        name: self
                            .xml
                            .string(child, "name")
                            .map(|n| Arc::from(n.as_str())),
                        label: self
                            .xml
                            .string(child, "label")
                            .map(|l| Arc::from(l.as_str())),
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
                self.xml.error(
                    node.start,
                    R::DecisionTable,
                    Some(owner),
                    "hit policy 'COLLECT' with aggregator is not defined for compound output",
                );
            }
            let unnamed: Vec<(u32, String)> = self
                .xml
                .children(node_id)
                .filter(|(_, c)| c.is(Ns::Dmn, "output") && self.xml.doc.attr(c, "name").is_none())
                .map(|(_, c)| {
                    (
                        c.start,
                        self.xml
                            .string(c, "label")
                            .unwrap_or_else(|| "null".to_owned()),
                    )
                })
                .collect();
            for (at, label) in unnamed {
                self.xml.error(
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
        let node = self.xml.node(node_id);
        let mut input_entries = Vec::new();
        let mut output_entries = Vec::new();
        for (child_id, child) in self.xml.children(node_id) {
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
            id: Arc::from(self.xml.string(node, "id").unwrap_or_default().as_str()),
            input_entries,
            output_entries,
        }
    }

    /// Checks the `expressionLanguage` of an expression element.
    fn language_ok(&mut self, node: &Node<'_>, owner: &str) -> bool {
        let Some(language) = self.xml.doc.attr(node, "expressionLanguage") else {
            return true;
        };
        let lower = self.xml.doc.value(language).to_lowercase();
        if FEEL_LANGUAGES.contains(&lower.as_str()) {
            return true;
        }
        self.xml.error(
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
        let node = self.xml.node(node_id);
        let Some((_, text)) = self.child(node_id, "text") else {
            let id = self
                .xml
                .string(node, "id")
                .unwrap_or_else(|| "null".to_owned());
            self.xml.error(
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
        let parsed = Expression::parse(text_of(self.xml.doc, text));
        self.feel(text, owner, "FEEL expression", parsed)
    }

    /// An `inputEntry`: unary tests, `None` when the text is empty (matches any input).
    fn unary_tests(&mut self, node_id: NodeId, owner: &str) -> Option<UnaryTests> {
        let node = self.xml.node(node_id);
        let Some((_, text)) = self.child(node_id, "text") else {
            self.xml.error(
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
        let source = text_of(self.xml.doc, text);
        if source.is_empty() {
            return None;
        }
        self.feel(text, owner, "FEEL unary-tests", UnaryTests::parse(source))
    }

    /// What parsing the FEEL of a `<text>` gave; a syntax error is reported at its position in
    /// the file, after `what`.
    fn feel<T>(
        &mut self,
        text: &Node<'_>,
        owner: &str,
        what: &str,
        parsed: Result<T, ParseError>,
    ) -> Option<T> {
        parsed
            .map_err(|error| {
                let at = self.text_offset(text, error.offset);
                let message = format!("{what}: {error}");
                self.xml.error(at, R::FeelSyntax, Some(owner), message);
            })
            .ok()
    }

    /// The source offset of byte `offset` of an element's text: exact when the text is written
    /// without entities or CDATA, else the start of the text.
    fn text_offset(&self, text: &Node<'_>, offset: usize) -> u32 {
        match self.xml.doc.text(text) {
            Some(t) => {
                let raw = &self.xml.source.text()[t.span.start as usize..t.span.end as usize];
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
