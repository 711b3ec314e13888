//! Evaluating a decision the way camunda/dmn-scala does inside Zeebe: required decisions first
//! (each time they are required, no caching), their results visible under their result names;
//! decision tables with every hit policy; literal expressions, contexts, lists, relations and
//! invocations of business knowledge models; an audit of every evaluated decision (inputs,
//! matched rules, outputs) in the order they finished, which Zeebe writes as `evaluatedDecisions`.
//!
//! Failures carry dmn-scala's reason wrapped in Zeebe's sentence
//! ("Expected to evaluate decision 'x', but ...") and the id of the decision that failed.

use std::sync::Arc;

use baton_feel::{Env, Expression, Value, Variables};
use serde_json::Value as Json;

use super::model::*;
use super::scala;

/// At most this many decisions are evaluated for one call (a required decision counts each time
/// it is required). A DRG this large loops in practice; Zeebe would overflow its stack.
pub const MAX_EVALUATED_DECISIONS: usize = 10_000;
/// Required decisions nest at most this deep.
pub const MAX_DEPTH: usize = 1_000;

/// The outcome of evaluating one decision of a DRG.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The decision's result (Zeebe's `decisionOutput`), or why it failed.
    pub result: Result<Value, EvaluationFailure>,
    /// Every decision evaluated, in the order each finished: required decisions before the
    /// decisions that need them, the called decision last (unless a required one failed).
    pub evaluated_decisions: Vec<EvaluatedDecision>,
}

impl Evaluation {
    /// The output as Zeebe writes it (`null` when the evaluation failed).
    pub fn output_json(&self) -> Json {
        match &self.result {
            Ok(v) => v.to_json(),
            Err(_) => Json::Null,
        }
    }
}

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluationFailure {
    /// Zeebe's `evaluationFailureMessage`: `Expected to evaluate decision '<id>', but <reason>`.
    pub message: String,
    /// Zeebe's `failedDecisionId`: the last decision evaluated, else the called one.
    pub failed_decision_id: Arc<str>,
}

/// One entry of `evaluatedDecisions`.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatedDecision {
    pub decision_id: Arc<str>,
    pub decision_name: Arc<str>,
    pub decision_type: DecisionType,
    /// The decision's result (`null` when it failed).
    pub output: Json,
    /// Decision tables: the value of each input expression.
    pub evaluated_inputs: Vec<EvaluatedInput>,
    /// Decision tables: the rules that matched (for FIRST, the first one), in rule order.
    pub matched_rules: Vec<MatchedRule>,
}

/// The value of one input of a decision table.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatedInput {
    pub input_id: Arc<str>,
    /// The label, else the input expression cut to 30 characters.
    pub input_name: Arc<str>,
    pub input_value: Json,
}

/// A rule that matched.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchedRule {
    /// The rule's id (empty when the rule has none).
    pub rule_id: Arc<str>,
    /// 1-based position of the rule in the table.
    pub rule_index: u32,
    pub evaluated_outputs: Vec<EvaluatedOutput>,
}

/// The value of one output entry of a matched rule.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatedOutput {
    pub output_id: Arc<str>,
    /// The label, else the name.
    pub output_name: Option<Arc<str>>,
    pub output_value: Json,
}

/// Evaluates the decision `decision_id` of `drg` against `variables`.
pub fn evaluate(drg: &Drg, decision_id: &str, variables: &dyn Variables, env: &Env) -> Evaluation {
    let mut evaluator = Evaluator {
        drg,
        env,
        audit: Vec::new(),
        evaluated: 0,
        cell_input: Arc::from("cellInput"),
    };
    let result = match drg.decision(decision_id) {
        Some(idx) => evaluator.decision(idx, variables),
        None => Err(format!("no decision found with id '{decision_id}'")),
    };
    let audit = evaluator.audit;
    let result = result.map_err(|reason| EvaluationFailure {
        message: format!("Expected to evaluate decision '{decision_id}', but {reason}"),
        failed_decision_id: audit
            .last()
            .map(|d| d.decision_id.clone())
            .unwrap_or_else(|| Arc::from(decision_id)),
    });
    Evaluation {
        result,
        evaluated_decisions: audit,
    }
}

/// Variables that add entries over a parent scope (the later an entry, the stronger).
struct Layer<'p> {
    parent: &'p dyn Variables,
    entries: &'p [(Arc<str>, Value)],
}

impl Variables for Layer<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        match self.entries.iter().rev().find(|(k, _)| &**k == name) {
            Some((_, v)) => Some(v.clone()),
            None => self.parent.get(name),
        }
    }
}

/// Whose logic is being evaluated: its evaluation is audited under this id and name.
#[derive(Clone, Copy)]
struct Owner<'d> {
    id: &'d Arc<str>,
    name: &'d Arc<str>,
}

/// What a decision table's evaluation got to before it finished or failed.
#[derive(Default)]
struct TableAudit {
    inputs: Vec<Value>,
    /// Rule index and output values of each matched rule.
    matched: Vec<(usize, Row)>,
}

struct Evaluator<'d> {
    drg: &'d Drg,
    env: &'d Env,
    audit: Vec<EvaluatedDecision>,
    evaluated: usize,
    cell_input: Arc<str>,
}

impl<'d> Evaluator<'d> {
    /// A decision with its required decisions, depth first without recursion (a DRG may chain
    /// many decisions).
    fn decision(&mut self, root: DecisionIdx, base: &dyn Variables) -> Result<Value, String> {
        struct Frame {
            decision: DecisionIdx,
            next: usize,
            results: Vec<(Arc<str>, Value)>,
        }
        let drg = self.drg;
        let mut stack = vec![Frame {
            decision: root,
            next: 0,
            results: Vec::new(),
        }];
        loop {
            let frame = stack
                .last_mut()
                .expect("the stack holds the root until it returns");
            let decision = &drg.decisions[frame.decision];
            if let Some(&required) = decision.required_decisions.get(frame.next) {
                frame.next += 1;
                if stack.len() >= MAX_DEPTH {
                    return Err(format!(
                        "the required decisions nest more than {MAX_DEPTH} levels deep"
                    ));
                }
                stack.push(Frame {
                    decision: required,
                    next: 0,
                    results: Vec::new(),
                });
                continue;
            }
            let frame = stack.pop().expect("just looked at it");
            self.evaluated += 1;
            if self.evaluated > MAX_EVALUATED_DECISIONS {
                return Err(format!(
                    "more than {MAX_EVALUATED_DECISIONS} decisions were evaluated (required \
                     decisions count each time they are required)"
                ));
            }
            let mut entries = frame.results;
            self.bkm_functions(&decision.required_bkms, &mut entries);
            let vars = Layer {
                parent: base,
                entries: &entries,
            };
            let owner = Owner {
                id: &decision.id,
                name: &decision.name,
            };
            let value = self.logic(&decision.logic, &vars, Some(owner))?;
            let value = type_check(value, decision.result_type.as_deref())?;
            match stack.last_mut() {
                None => return Ok(value),
                Some(parent) => parent.results.push((decision.result_name.clone(), value)),
            }
        }
    }

    /// The FEEL functions of required business knowledge models, by name, with the ones they
    /// require in turn (their bodies look them up among the caller's variables).
    fn bkm_functions(&self, required: &[BkmIdx], entries: &mut Vec<(Arc<str>, Value)>) {
        let mut todo: Vec<BkmIdx> = required.iter().rev().copied().collect();
        let mut seen: Vec<BkmIdx> = Vec::new();
        while let Some(idx) = todo.pop() {
            if seen.contains(&idx) {
                continue;
            }
            seen.push(idx);
            let bkm = &self.drg.bkms[idx];
            if let Some(function) = &bkm.function {
                entries.push((bkm.name.clone(), function.clone()));
            }
            todo.extend(bkm.required_bkms.iter().rev().copied());
        }
    }

    fn feel(&self, expression: &Expression, vars: &dyn Variables) -> Result<Value, String> {
        expression
            .evaluate(vars, self.env)
            .result
            .map_err(|failure| failure.message)
    }

    /// Any decision logic; `owner` is set for the top logic of a decision or BKM, which is
    /// audited.
    fn logic(
        &mut self,
        logic: &Logic,
        vars: &dyn Variables,
        owner: Option<Owner<'_>>,
    ) -> Result<Value, String> {
        if let Logic::DecisionTable(table) = logic {
            return self.table(table, vars, owner);
        }
        let result = match logic {
            Logic::DecisionTable(_) => unreachable!("handled above"),
            Logic::Literal(e) => self.feel(e, vars),
            Logic::Value(v) | Logic::Function(v) => Ok(v.clone()),
            Logic::Empty => Ok(Value::Null),
            Logic::Context { entries, result } => self.context(entries, result.as_deref(), vars),
            Logic::List(items) => items
                .iter()
                .map(|item| self.logic(item, vars, None))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::list),
            Logic::Relation(rows) => {
                let mut out = Vec::with_capacity(rows.len());
                for row in rows {
                    let mut context = baton_feel::Context::default();
                    for (column, cell) in row {
                        let value = self.logic(cell, vars, None)?;
                        context.insert(column.clone(), value);
                    }
                    out.push(Value::Context(Arc::new(context)));
                }
                Ok(Value::list(out))
            }
            Logic::Invocation { bkm, bindings } => self.invocation(*bkm, bindings, vars),
        };
        if let Some(owner) = owner {
            self.audit.push(EvaluatedDecision {
                decision_id: owner.id.clone(),
                decision_name: owner.name.clone(),
                decision_type: logic.decision_type(),
                output: result.as_ref().map_or(Json::Null, Value::to_json),
                evaluated_inputs: Vec::new(),
                matched_rules: Vec::new(),
            });
        }
        result
    }

    fn context(
        &mut self,
        entries: &[(Arc<str>, Logic)],
        result: Option<&Logic>,
        vars: &dyn Variables,
    ) -> Result<Value, String> {
        let mut values: Vec<(Arc<str>, Value)> = Vec::with_capacity(entries.len());
        for (name, logic) in entries {
            let value = {
                let scope = Layer {
                    parent: vars,
                    entries: &values,
                };
                self.logic(logic, &scope, None)?
            };
            match values.iter_mut().find(|(k, _)| k == name) {
                Some(slot) => slot.1 = value,
                None => values.push((name.clone(), value)),
            }
        }
        match result {
            Some(logic) => {
                let scope = Layer {
                    parent: vars,
                    entries: &values,
                };
                self.logic(logic, &scope, None)
            }
            None => Ok(Value::Context(Arc::new(values.into_iter().collect()))),
        }
    }

    /// dmn-scala's `InvocationEvaluator` + `BusinessKnowledgeEvaluator.eval`: the bindings are
    /// evaluated, then the BKM's logic with its parameters (each must be bound or be a variable).
    fn invocation(
        &mut self,
        bkm: BkmIdx,
        bindings: &[(Arc<str>, Expression)],
        vars: &dyn Variables,
    ) -> Result<Value, String> {
        let mut arguments = Vec::with_capacity(bindings.len());
        for (name, expression) in bindings {
            arguments.push((name.clone(), self.feel(expression, vars)?));
        }
        let drg = self.drg;
        let bkm = &drg.bkms[bkm];
        self.bkm_functions(&bkm.required_bkms, &mut arguments);
        let scope = Layer {
            parent: vars,
            entries: &arguments,
        };
        for parameter in &bkm.parameters {
            let Some(value) = scope.get(&parameter.name) else {
                return Err(format!("no parameter found with name '{}'", parameter.name));
            };
            type_check(value, parameter.type_ref.as_deref())?;
        }
        let owner = Owner {
            id: &bkm.id,
            name: &bkm.name,
        };
        self.logic(&bkm.logic, &scope, Some(owner))
    }

    /// dmn-scala's `DecisionTableEvaluator`.
    fn table(
        &mut self,
        table: &DecisionTable,
        vars: &dyn Variables,
        owner: Option<Owner<'_>>,
    ) -> Result<Value, String> {
        let mut audit = TableAudit::default();
        let result = self.table_result(table, vars, &mut audit);
        if let Some(owner) = owner {
            let evaluated_inputs = table
                .inputs
                .iter()
                .zip(&audit.inputs)
                .map(|(input, value)| EvaluatedInput {
                    input_id: input.id.clone(),
                    input_name: input.record_name(),
                    input_value: value.to_json(),
                })
                .collect();
            let matched_rules = audit
                .matched
                .iter()
                .map(|(index, row)| MatchedRule {
                    rule_id: table.rules[*index].id.clone(),
                    rule_index: *index as u32 + 1,
                    evaluated_outputs: table
                        .outputs
                        .iter()
                        .zip(row)
                        .map(|(output, (_, value))| EvaluatedOutput {
                            output_id: output.id.clone(),
                            output_name: output.record_name(),
                            output_value: value.to_json(),
                        })
                        .collect(),
                })
                .collect();
            self.audit.push(EvaluatedDecision {
                decision_id: owner.id.clone(),
                decision_name: owner.name.clone(),
                decision_type: DecisionType::DecisionTable,
                output: result.as_ref().map_or(Json::Null, Value::to_json),
                evaluated_inputs,
                matched_rules,
            });
        }
        result
    }

    fn table_result(
        &mut self,
        table: &DecisionTable,
        vars: &dyn Variables,
        audit: &mut TableAudit,
    ) -> Result<Value, String> {
        let mut inputs = Vec::with_capacity(table.inputs.len());
        for input in &table.inputs {
            inputs.push(self.feel(&input.expression, vars)?);
        }
        audit.inputs = inputs;
        // Every rule is checked, whatever the hit policy: a failing input entry fails the table.
        let mut matched = Vec::new();
        for (index, rule) in table.rules.iter().enumerate() {
            if self.rule_matches(rule, &audit.inputs, vars)? {
                matched.push(index);
            }
        }
        if matched.is_empty() {
            return self.default_output(table, vars);
        }
        if table.hit_policy == HitPolicy::First {
            matched.truncate(1);
        }
        let mut rows: Vec<Row> = Vec::with_capacity(matched.len());
        for &index in &matched {
            let rule = &table.rules[index];
            let mut row = Vec::with_capacity(rule.output_entries.len());
            for (output, entry) in table.outputs.iter().zip(&rule.output_entries) {
                row.push((output.name.clone(), self.feel(entry, vars)?));
            }
            rows.push(row);
        }
        audit.matched = matched.into_iter().zip(rows.iter().cloned()).collect();
        // dmn-scala turns each row into a Map: a repeated output name keeps the last value.
        let rows: Vec<Row> = rows.into_iter().map(dedup_names).collect();
        apply_hit_policy(table, rows)
    }

    fn rule_matches(
        &self,
        rule: &Rule,
        inputs: &[Value],
        vars: &dyn Variables,
    ) -> Result<bool, String> {
        for (entry, input) in rule.input_entries.iter().zip(inputs) {
            let Some(tests) = entry else { continue };
            // dmn-scala adds the input value as the variable `cellInput` as well.
            let cell = [(self.cell_input.clone(), input.clone())];
            let scope = Layer {
                parent: vars,
                entries: &cell,
            };
            match tests.evaluate(input, &scope, self.env).result {
                Ok(Value::Boolean(true)) => {}
                Ok(Value::Boolean(false) | Value::Null) => return Ok(false),
                Ok(other) => {
                    return Err(format!(
                        "input entry must return true, false, or null, but found '{}'",
                        scala::val(&other)
                    ));
                }
                Err(failure) => return Err(failure.message),
            }
        }
        Ok(true)
    }

    /// No rule matched: the default output entries, `null` when there are none.
    fn default_output(&self, table: &DecisionTable, vars: &dyn Variables) -> Result<Value, String> {
        let mut values: Row = Vec::new();
        for output in &table.outputs {
            if let Some(default) = &output.default {
                values.push((output.name.clone(), self.feel(default, vars)?));
            }
        }
        let values = dedup_names(values);
        Ok(match values.len() {
            0 => Value::Null,
            1 => values
                .into_iter()
                .next()
                .map(|(_, v)| v)
                .unwrap_or_default(),
            _ => row_context(values),
        })
    }
}

/// Keeps one entry per output name (the last value, at the first position), as Scala's `toMap`.
fn dedup_names(row: Row) -> Row {
    let mut out: Row = Vec::with_capacity(row.len());
    for (name, value) in row {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => out.push((name, value)),
        }
    }
    out
}

fn row_context(row: Row) -> Value {
    Value::Context(Arc::new(
        row.into_iter()
            .map(|(name, value)| (name.unwrap_or_else(|| Arc::from("null")), value))
            .collect(),
    ))
}

/// One matched rule's result: its only output's value, else a context of all outputs.
fn single(mut rows: Vec<Row>) -> Value {
    if rows.is_empty() {
        return Value::Null;
    }
    let row = rows.swap_remove(0);
    if row.len() == 1 {
        row.into_iter().next().map(|(_, v)| v).unwrap_or_default()
    } else {
        row_context(row)
    }
}

/// Several matched rules: a list of single values (one output) or of contexts.
fn multiple(rows: Vec<Row>) -> Value {
    let Some(first) = rows.first() else {
        return Value::Null;
    };
    let single_output = first.len() == 1;
    let items = rows
        .into_iter()
        .map(|row| {
            if single_output {
                row.into_iter().next().map(|(_, v)| v).unwrap_or_default()
            } else {
                row_context(row)
            }
        })
        .collect();
    Value::list(items)
}

fn apply_hit_policy(table: &DecisionTable, rows: Vec<Row>) -> Result<Value, String> {
    match table.hit_policy {
        HitPolicy::First => Ok(single(rows)),
        HitPolicy::Unique => {
            if rows.len() <= 1 {
                Ok(single(rows))
            } else {
                Err(format!(
                    "multiple values aren't allowed for UNIQUE hit policy. found: '{}'",
                    scala::rule_outputs(&rows)
                ))
            }
        }
        HitPolicy::Any => {
            let mut distinct: Vec<Row> = Vec::new();
            for row in &rows {
                if !distinct.iter().any(|d| rows_equal(d, row)) {
                    distinct.push(row.clone());
                }
            }
            if distinct.len() <= 1 {
                Ok(single(rows))
            } else {
                Err(format!(
                    "different values aren't allowed for ANY hit policy. found: '{}'",
                    scala::rule_outputs(&distinct)
                ))
            }
        }
        HitPolicy::Priority => Ok(single(sort_by_priority(rows, &table.outputs))),
        HitPolicy::OutputOrder => Ok(multiple(sort_by_priority(rows, &table.outputs))),
        HitPolicy::RuleOrder => Ok(multiple(rows)),
        HitPolicy::Collect => match table.aggregation {
            None => Ok(multiple(rows)),
            Some(Aggregation::Count) => Ok(Value::int(rows.len() as i64)),
            Some(aggregation) => {
                let numbers = single_numbers(&rows)?;
                let Some(first) = numbers.first() else {
                    return Ok(Value::Null);
                };
                let result = match aggregation {
                    Aggregation::Min => numbers
                        .iter()
                        .skip(1)
                        .fold(first.clone(), |m, n| if n < &m { n.clone() } else { m }),
                    Aggregation::Max => numbers
                        .iter()
                        .skip(1)
                        .fold(first.clone(), |m, n| if n > &m { n.clone() } else { m }),
                    _ => numbers.iter().skip(1).fold(first.clone(), |s, n| s.add(n)),
                };
                Ok(Value::Number(result))
            }
        },
    }
}

fn rows_equal(a: &Row, b: &Row) -> bool {
    a.len() == b.len()
        && a.iter().all(|(name, value)| {
            b.iter()
                .any(|(other_name, other)| other_name == name && value == other)
        })
}

/// The single output value of each row, which must be a number (COLLECT with SUM, MIN, MAX).
fn single_numbers(rows: &[Row]) -> Result<Vec<baton_feel::Number>, String> {
    let Some(first) = rows.first() else {
        return Ok(Vec::new());
    };
    if first.len() != 1 {
        return Err(format!(
            "multiple values aren't allowed. found: {}",
            scala::rule_outputs(rows)
        ));
    }
    rows.iter()
        .map(|row| match row.first().map(|(_, v)| v) {
            Some(Value::Number(n)) => Ok(n.clone()),
            Some(other) => Err(format!("expected number but found '{}'", scala::val(other))),
            None => Err("expected number but found 'null'".to_owned()),
        })
        .collect()
}

/// dmn-scala's `sortByPriority`: each row gets a key made of the position of each output's value
/// in that output's `outputValues` ("_" when it is not listed), and rows are sorted by that text
/// (stable, so rules with the same key keep their order).
fn sort_by_priority(rows: Vec<Row>, outputs: &[Output]) -> Vec<Row> {
    let priorities: Vec<(Option<Arc<str>>, Vec<String>)> = outputs
        .iter()
        .map(|output| {
            let values = output
                .values
                .as_deref()
                .map(|text| {
                    text.split(',')
                        .map(|v| v.trim().replace(['"', '\''], ""))
                        .collect()
                })
                .unwrap_or_default();
            (output.name.clone(), values)
        })
        .collect();
    let mut keyed: Vec<(String, Row)> = rows
        .into_iter()
        .map(|row| {
            let mut key = String::new();
            for (name, values) in &priorities {
                let text = match row.iter().find(|(n, _)| n == name).map(|(_, v)| v) {
                    Some(Value::String(s)) => Some(s.to_string()),
                    Some(Value::Number(n)) => Some(n.to_string()),
                    _ => None,
                };
                match text.and_then(|t| values.iter().position(|v| *v == t)) {
                    Some(position) => key.push_str(&position.to_string()),
                    None => key.push('_'),
                }
            }
            (key, row)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, row)| row).collect()
}

/// dmn-scala's `TypeChecker`: a result (or BKM argument) must have the declared `typeRef`;
/// `null` and unknown types pass.
fn type_check(value: Value, type_ref: Option<&str>) -> Result<Value, String> {
    let Some(type_ref) = type_ref.filter(|t| !t.is_empty()) else {
        return Ok(value);
    };
    if value.is_null() {
        return Ok(value);
    }
    let type_name = type_ref.replace("feel:", "");
    let ok = match type_name.as_str() {
        "string" => matches!(value, Value::String(_)),
        "number" => matches!(value, Value::Number(_)),
        "boolean" => matches!(value, Value::Boolean(_)),
        "time" => matches!(value, Value::Time(_)),
        "date" => matches!(value, Value::Date(_)),
        "dateTime" | "date and time" => matches!(value, Value::DateTime(_)),
        "dayTimeDuration" | "days and time duration" => {
            matches!(value, Value::DayTimeDuration(_))
        }
        "yearMonthDuration" | "years and months duration" => {
            matches!(value, Value::YearMonthDuration(_))
        }
        _ => true,
    };
    if ok {
        Ok(value)
    } else {
        Err(format!(
            "expected '{type_name}' but found '{}'",
            scala::val(&value)
        ))
    }
}
