//! The typed DMN model: one decision requirements graph (DRG) per `.dmn` file, with its FEEL
//! parsed once and references between decisions and business knowledge models resolved to
//! indexes.
//!
//! The shapes follow what camunda/dmn-scala (Zeebe's DMN engine) reads: decision logic is a
//! decision table, a literal expression, a context, a list, a relation or an invocation; input data
//! only document the variables a decision reads (the values come from the caller's variables).

use std::sync::Arc;

use baton_feel::{Expression, UnaryTests, Value};

use crate::model::Span;

/// Index of a decision in [`Drg::decisions`].
pub type DecisionIdx = usize;
/// Index of a business knowledge model in [`Drg::bkms`].
pub type BkmIdx = usize;

/// The decisions, business knowledge models and input data of one DMN `definitions` element.
#[derive(Debug, Clone)]
pub struct Drg {
    /// `definitions@id`: the decision requirements id.
    pub id: String,
    /// `definitions@name` (empty when absent).
    pub name: String,
    /// `definitions@namespace`.
    pub namespace: String,
    pub decisions: Vec<Decision>,
    pub bkms: Vec<Bkm>,
    pub input_data: Vec<InputData>,
    pub span: Span,
}

impl Drg {
    /// The decision with this id.
    pub fn decision(&self, id: &str) -> Option<DecisionIdx> {
        self.decisions.iter().position(|d| &*d.id == id)
    }
}

/// One `decision`.
#[derive(Debug, Clone)]
pub struct Decision {
    pub id: Arc<str>,
    /// `name` (empty when absent).
    pub name: Arc<str>,
    /// The name its result has in the decisions that require it: the `variable` name, else the id.
    pub result_name: Arc<str>,
    /// `variable@typeRef`: the result must have this type (dmn-scala's `TypeChecker`).
    pub result_type: Option<String>,
    /// `zeebe:versionTag` in the decision's extension elements.
    pub version_tag: Option<String>,
    pub logic: Logic,
    /// `informationRequirement/requiredDecision`, in document order.
    pub required_decisions: Vec<DecisionIdx>,
    /// `knowledgeRequirement/requiredKnowledge`, in document order.
    pub required_bkms: Vec<BkmIdx>,
    pub span: Span,
}

/// One `businessKnowledgeModel`: a function decisions call by its name.
#[derive(Debug, Clone)]
pub struct Bkm {
    pub id: Arc<str>,
    pub name: Arc<str>,
    /// `encapsulatedLogic/formalParameter`: name and `typeRef`.
    pub parameters: Vec<Parameter>,
    /// The encapsulated logic ([`Logic::Empty`] when there is none).
    pub logic: Logic,
    /// `knowledgeRequirement/requiredKnowledge`, in document order.
    pub required_bkms: Vec<BkmIdx>,
    /// The BKM as a FEEL function value, for logic that is a literal expression: calls from FEEL
    /// (`bkm(1, 2)`) evaluate its body with the parameters bound.
    pub function: Option<Value>,
    pub span: Span,
}

/// A formal parameter of a business knowledge model or function definition.
#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: Arc<str>,
    pub type_ref: Option<String>,
}

/// One `inputData`: documents a variable the decisions read.
#[derive(Debug, Clone)]
pub struct InputData {
    pub id: String,
    pub name: String,
    pub span: Span,
}

/// What a decision (or a context entry, list item, ...) computes.
#[derive(Debug, Clone)]
pub enum Logic {
    DecisionTable(Box<DecisionTable>),
    Literal(Expression),
    /// `context`: entries evaluated in order, each seeing the ones before; the result is the
    /// context, or the value of the final entry without a variable.
    Context {
        entries: Vec<(Arc<str>, Logic)>,
        result: Option<Box<Logic>>,
    },
    List(Vec<Logic>),
    /// `relation`: a list of contexts, one per row.
    Relation(Vec<Vec<(Arc<str>, Logic)>>),
    /// `invocation` of a business knowledge model with parameter bindings.
    Invocation {
        bkm: BkmIdx,
        bindings: Vec<(Arc<str>, Expression)>,
    },
    /// `functionDefinition` (inside a context): a FEEL function value.
    Function(Value),
    /// A fixed value: the literal expression of a mocked decision (CPT's `mockDmnDecision`).
    Value(Value),
    /// A business knowledge model without encapsulated logic: `null`.
    Empty,
}

impl Logic {
    /// Zeebe's `decisionType` for a decision with this logic.
    pub fn decision_type(&self) -> DecisionType {
        match self {
            Logic::DecisionTable(_) => DecisionType::DecisionTable,
            Logic::Literal(_) | Logic::Value(_) | Logic::Empty => DecisionType::LiteralExpression,
            Logic::Context { .. } => DecisionType::Context,
            Logic::List(_) => DecisionType::List,
            Logic::Relation(_) => DecisionType::Relation,
            Logic::Invocation { .. } => DecisionType::Invocation,
            Logic::Function(_) => DecisionType::Unknown,
        }
    }
}

/// Zeebe's `DecisionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecisionType {
    DecisionTable,
    LiteralExpression,
    Context,
    List,
    Relation,
    Invocation,
    Unknown,
}

impl DecisionType {
    /// The name as Zeebe writes it (`DECISION_TABLE`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionType::DecisionTable => "DECISION_TABLE",
            DecisionType::LiteralExpression => "LITERAL_EXPRESSION",
            DecisionType::Context => "CONTEXT",
            DecisionType::List => "LIST",
            DecisionType::Relation => "RELATION",
            DecisionType::Invocation => "INVOCATION",
            DecisionType::Unknown => "UNKNOWN",
        }
    }
}

impl std::fmt::Display for DecisionType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One `decisionTable`.
#[derive(Debug, Clone)]
pub struct DecisionTable {
    pub hit_policy: HitPolicy,
    /// `aggregation`, for COLLECT.
    pub aggregation: Option<Aggregation>,
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    pub rules: Vec<Rule>,
}

/// A decision table's `hitPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HitPolicy {
    Unique,
    First,
    Priority,
    Any,
    Collect,
    RuleOrder,
    OutputOrder,
}

impl HitPolicy {
    /// From the attribute value (`RULE ORDER` with a space, as DMN writes it).
    pub fn from_xml(text: &str) -> Option<HitPolicy> {
        Some(match text {
            "UNIQUE" => HitPolicy::Unique,
            "FIRST" => HitPolicy::First,
            "PRIORITY" => HitPolicy::Priority,
            "ANY" => HitPolicy::Any,
            "COLLECT" => HitPolicy::Collect,
            "RULE ORDER" => HitPolicy::RuleOrder,
            "OUTPUT ORDER" => HitPolicy::OutputOrder,
            _ => return None,
        })
    }
}

/// A COLLECT table's `aggregation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aggregation {
    Sum,
    Min,
    Max,
    Count,
}

impl Aggregation {
    pub fn from_xml(text: &str) -> Option<Aggregation> {
        Some(match text {
            "SUM" => Aggregation::Sum,
            "MIN" => Aggregation::Min,
            "MAX" => Aggregation::Max,
            "COUNT" => Aggregation::Count,
            _ => return None,
        })
    }
}

/// An `input` column.
#[derive(Debug, Clone)]
pub struct Input {
    pub id: Arc<str>,
    /// `label` (dmn-scala's input name).
    pub label: Option<Arc<str>>,
    /// `inputExpression/text`.
    pub expression: Expression,
}

impl Input {
    /// The input name Zeebe records: the label, else the expression text cut to 30 characters.
    pub fn record_name(&self) -> Arc<str> {
        match &self.label {
            Some(label) => label.clone(),
            None => Arc::from(
                self.expression
                    .source()
                    .chars()
                    .take(30)
                    .collect::<String>()
                    .as_str(),
            ),
        }
    }
}

/// An `output` column.
#[derive(Debug, Clone)]
pub struct Output {
    pub id: Arc<str>,
    /// `name`: the key of this output in a context result (absent only with one output).
    pub name: Option<Arc<str>>,
    pub label: Option<Arc<str>>,
    /// `outputValues/text`, as written: the order of values for PRIORITY and OUTPUT ORDER.
    pub values: Option<String>,
    /// `defaultOutputEntry/text`: the value when no rule matches.
    pub default: Option<Expression>,
}

impl Output {
    /// The output name Zeebe records: the label, else the name (as the Modeler shows it).
    pub fn record_name(&self) -> Option<Arc<str>> {
        self.label.clone().or_else(|| self.name.clone())
    }
}

/// A `rule`.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `id` (empty when absent: Zeebe then synthesizes one in its records).
    pub id: Arc<str>,
    /// One per `inputEntry`; `None` is an empty entry (`-` is a parsed test that matches anything).
    pub input_entries: Vec<Option<UnaryTests>>,
    /// One per `outputEntry`.
    pub output_entries: Vec<Expression>,
}

/// The output values of one matched rule, by output name (`None`: the single unnamed output).
pub(crate) type Row = Vec<(Option<Arc<str>>, Value)>;
