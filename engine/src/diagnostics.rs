//! Deployment diagnostics: one entry per problem, each with a stable rule id, the file, the
//! line:column, the element id and a sentence.
//!
//! Rule ids are public API: users filter on them and fixtures name them. They are never renamed,
//! only added. [`CATALOGUE`] lists every rule with a one-line summary; where Zeebe has a message
//! for the same problem, the diagnostic's sentence is Zeebe's.

use std::fmt;

use crate::source::{LineCol, Source};

/// One problem found while parsing or checking a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: Rule,
    /// The resource name (usually its path).
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// The id of the BPMN element the problem is about, when there is one.
    pub element_id: Option<String>,
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at a byte offset of `source`.
    pub fn at(
        source: &Source,
        offset: u32,
        rule: Rule,
        element_id: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        let LineCol { line, col } = source.line_col(offset);
        Diagnostic {
            rule,
            file: source.name().to_owned(),
            line,
            col,
            element_id: element_id.map(str::to_owned),
            message: message.into(),
        }
    }
}

/// `<file>:<line>:<col>: error[<rule-id>] <element-id>: <message>` (the element part is left out
/// when the problem is not about one element).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error[{}] ",
            self.file,
            self.line,
            self.col,
            self.rule.id()
        )?;
        if let Some(id) = &self.element_id {
            write!(f, "{id}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Every diagnostic of a rejected deployment, in file order, then position order; shown one per
/// line.
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
#[error("{}", one_per_line(.0))]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// `diagnostics` shown one per line, as [`Diagnostics`] shows them.
pub fn one_per_line(diagnostics: &[Diagnostic]) -> impl fmt::Display + '_ {
    struct Lines<'d>(&'d [Diagnostic]);
    impl fmt::Display for Lines<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            for (i, diagnostic) in self.0.iter().enumerate() {
                if i > 0 {
                    f.write_str("\n")?;
                }
                write!(f, "{diagnostic}")?;
            }
            Ok(())
        }
    }
    Lines(diagnostics)
}

macro_rules! rules {
    ($($(#[doc = $doc:literal])* $variant:ident = $id:literal,)*) => {
        /// The stable identity of a deployment rule.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Rule {
            $($(#[doc = $doc])* $variant,)*
        }

        /// Every rule, in catalogue order.
        pub const CATALOGUE: &[Rule] = &[$(Rule::$variant,)*];

        impl Rule {
            /// The kebab-case id, e.g. `missing-task-definition`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// A one-line summary of what the rule rejects.
            pub fn summary(self) -> &'static str {
                let summary = match self {
                    $(Rule::$variant => concat!($($doc),*),)*
                };
                summary.trim_start()
            }

            /// The rule with this id.
            pub fn from_id(id: &str) -> Option<Rule> {
                match id {
                    $($id => Some(Rule::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

rules! {
    // The file as XML.
    /// The file is not well-formed XML (or not UTF-8 text).
    XmlMalformed = "xml-malformed",
    /// Document type declarations are refused (they carry entity definitions, e.g. billion laughs).
    XmlDoctype = "xml-doctype",
    /// Elements are nested deeper than the parser accepts.
    XmlTooDeep = "xml-too-deep",
    /// The resource is larger than Zeebe's default maximum message size (4 MiB).
    ResourceTooLarge = "resource-too-large",
    /// The root element is not `bpmn:definitions` of the BPMN 2.0 model namespace.
    NotBpmn = "not-bpmn",
    /// An attribute value does not have the form BPMN requires (a boolean, a number).
    InvalidAttribute = "invalid-attribute",

    // Identity and references.
    /// An element that must have an id has none, or an empty one.
    MissingId = "missing-id",
    /// Two elements of one file have the same id.
    DuplicateId = "duplicate-id",
    /// Two resources of one deployment define the same process id.
    DuplicateProcessId = "duplicate-process-id",
    /// A reference (sourceRef, targetRef, attachedToRef, default, messageRef, ...) names no element of the right kind.
    UnresolvedReference = "unresolved-reference",
    /// `bindingType="deployment"` names a process that is not part of the same deployment.
    DeploymentBinding = "deployment-binding",
    /// The definitions hold no process with `isExecutable="true"`.
    NoExecutableProcess = "no-executable-process",

    // What Zeebe executes.
    /// An element Zeebe does not execute (transaction, complex gateway, standard loop, choreography, ...).
    UnsupportedElement = "unsupported-element",
    /// An event definition Zeebe does not support at this kind of event (cancel, multiple, ...).
    UnsupportedEventDefinition = "unsupported-event-definition",
    /// Start events: at least one per process, one none start event, exactly one none start event per sub-process.
    StartEvents = "start-events",
    /// End events must not have outgoing sequence flows.
    EndEventOutgoing = "end-event-outgoing",

    // Zeebe extensions.
    /// A required `zeebe:` extension element is missing, or one that may appear once appears twice.
    ZeebeExtension = "zeebe-extension",
    /// A required attribute of a `zeebe:` extension element is missing or empty (e.g. a job type).
    MissingAttribute = "missing-attribute",
    /// A static value where Zeebe requires an expression (`=...`), or no expression where one is required.
    ExpressionRequired = "expression-required",
    /// A static value that does not have the required form (candidate list, date, priority, ...).
    InvalidStaticValue = "invalid-static-value",
    /// A FEEL expression that does not parse.
    FeelSyntax = "feel-syntax",
    /// A variable mapping target that is not a path such as `order.status`.
    InvalidPath = "invalid-path",
    /// Task headers with a reserved or duplicate key.
    TaskHeaders = "task-headers",
    /// An unknown `bindingType`.
    BindingType = "binding-type",
    /// `zeebe:formDefinition` / `zeebe:userTaskForm` attribute combinations.
    FormDefinition = "form-definition",
    /// Execution listeners on elements or event types that do not support them, or duplicated.
    ExecutionListener = "execution-listener",
    /// Task listeners outside Camunda user tasks, or with an unknown event type.
    TaskListener = "task-listener",
    /// A user task priority outside 0..=100.
    Priority = "priority",

    // Flows and gateways.
    /// Conditions on flows that do not leave an exclusive or inclusive gateway, or gateway flows without one.
    SequenceFlowCondition = "sequence-flow-condition",
    /// A sequence flow that connects elements of different scopes.
    SequenceFlowScope = "sequence-flow-scope",
    /// A default flow that does not start at its gateway.
    DefaultFlow = "default-flow",
    /// Event-based gateway rules (at least two flows, only message/timer/signal/conditional catch events).
    EventBasedGateway = "event-based-gateway",
    /// A loop of straight-through elements (undefined/manual tasks, ...) that would never wait.
    StraightThroughLoop = "straight-through-loop",

    // Events.
    /// Boundary event rules (attached to an activity, no incoming flows, allowed hosts).
    BoundaryEvent = "boundary-event",
    /// Non-interrupting events of a type that cannot be, or interrupting timers with a cycle.
    InterruptingEvent = "interrupting-event",
    /// Two catch events of one scope that would catch the same message, signal, error, escalation or condition.
    DuplicateCatchEvent = "duplicate-catch-event",
    /// Messages: referenced, named, with a subscription where they are caught.
    Message = "message",
    /// Errors: referenced and coded at end events, static codes at catch events.
    ErrorEvent = "error-event",
    /// Escalations: referenced and coded at throw events, static codes at catch events.
    EscalationEvent = "escalation-event",
    /// Signals: referenced and named.
    SignalEvent = "signal-event",
    /// Timers: exactly one of duration, date or cycle, and a value Zeebe can read.
    Timer = "timer",
    /// Conditional events: a condition, allowed positions, valid `zeebe:conditionalFilter`.
    ConditionalEvent = "conditional-event",
    /// Link events: a name, a catch for every throw in its scope, unique catch names.
    LinkEvent = "link-event",
    /// Compensation: handlers, boundary events and throw events.
    Compensation = "compensation",

    // Containers.
    /// Event sub-process rules (start event types, placement).
    EventSubProcess = "event-sub-process",
    /// Ad-hoc sub-process rules (activities, no start/end events, job-worker attribute combinations).
    AdHocSubProcess = "ad-hoc-sub-process",
    /// Multi-instance rules (`zeebe:loopCharacteristics` input and output attributes).
    MultiInstance = "multi-instance",
    /// `fromAi()` calls that Zeebe cannot turn into tool parameters.
    FromAi = "from-ai",

    // DMN.
    /// The root element is not `definitions` of a DMN model namespace (DMN 1.1 to 1.5).
    NotDmn = "not-dmn",
    /// Decision logic Zeebe cannot evaluate: none, an unsupported boxed expression, an empty literal expression, an expression language other than FEEL.
    DecisionLogic = "decision-logic",
    /// Decision table rules: a hit policy or aggregation DMN does not define, COLLECT aggregation over several outputs, outputs without names.
    DecisionTable = "decision-table",
    /// Requirements between decisions and business knowledge models: cycles, unknown invoked BKMs, imports.
    DecisionRequirements = "decision-requirements",
    /// Two resources of one deployment define the same decision id or decision requirements id.
    DuplicateDecisionId = "duplicate-decision-id",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_ids_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for &rule in CATALOGUE {
            let (id, summary) = (rule.id(), rule.summary());
            assert_eq!(Rule::from_id(id), Some(rule));
            assert!(seen.insert(id), "duplicate rule id {id}");
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{id} is not kebab-case"
            );
            assert!(!summary.trim().is_empty(), "{id} has no summary");
        }
    }

    #[test]
    fn display_names_file_position_rule_and_element() {
        let source = Source::new("order.bpmn", "<a>\n  <b/>\n</a>");
        let with_element = Diagnostic::at(
            &source,
            6,
            Rule::ZeebeExtension,
            Some("Task_1"),
            "Must have exactly one 'zeebe:taskDefinition' extension element",
        );
        assert_eq!(
            with_element.to_string(),
            "order.bpmn:2:3: error[zeebe-extension] Task_1: Must have exactly one 'zeebe:taskDefinition' extension element"
        );
        let without = Diagnostic::at(&source, 0, Rule::XmlMalformed, None, "bad");
        assert_eq!(
            without.to_string(),
            "order.bpmn:1:1: error[xml-malformed] bad"
        );
    }
}
