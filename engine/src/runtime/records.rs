//! The event log: records as Zeebe's exporters see them.
//!
//! A record is cheap to write: deployed processes and elements are referenced by index
//! (`ProcIdx`, `ElementIdx`, `FlowIdx`), names and values are `Arc`s. Rendering a record to text
//! or JSON therefore goes through the [`Engine`](crate::runtime::engine::Engine), which owns the deployments
//! ([`Engine::render_record`](crate::runtime::engine::Engine::render_record), [`Engine::record_json`](crate::runtime::engine::Engine::record_json)).

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::model::{ElementIdx, FlowIdx};
use crate::runtime::shared_json::SharedJson;

/// A key as Zeebe writes it: 64 bits, partition 1 in the high bits (see [`FIRST_KEY`]).
pub type Key = u64;

/// The first key the generator hands out: partition 1 encoded as Zeebe does (`1 << 51`), plus one.
pub const FIRST_KEY: Key = (1 << 51) + 1;

/// Index of a deployed process (one version of one BPMN process id) in the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcIdx(pub u32);

/// Index of a deployed DRG version in the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DrgIdx(pub u32);

/// Index of a deployed decision version in the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DecisionIdx(pub u32);

/// A JSON object of variables, in insertion order.
pub type VariableDocument = IndexMap<String, Json>;

/// A document whose values are shared with the variables they become and with the records
/// that carry them (a job completion's variables once the engine has them).
pub type SharedVariableDocument = IndexMap<String, SharedJson>;

/// A document's values moved into shared ones (nothing is copied; the names are moved too).
pub fn share_document(doc: VariableDocument) -> SharedVariableDocument {
    doc.into_iter()
        .map(|(name, value)| (name, SharedJson::new(value)))
        .collect()
}

/// A shared document from a shared plain one: its values moved when nobody else holds the
/// document, else copied.
pub fn share_document_arc(doc: Arc<VariableDocument>) -> SharedVariableDocument {
    match Arc::try_unwrap(doc) {
        Ok(doc) => share_document(doc),
        Err(doc) => doc
            .iter()
            .map(|(name, value)| (name.clone(), SharedJson::new(value.clone())))
            .collect(),
    }
}

/// A shared document as plain JSON (a copy: what a command holds).
pub fn plain_document(doc: &SharedVariableDocument) -> VariableDocument {
    doc.iter()
        .map(|(name, value)| (name.clone(), value.to_json()))
        .collect()
}

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant),* }
        impl $name {
            /// The name as Zeebe writes it.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),* }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

named_enum!(
    /// Whether a record is a command, an event or a rejected command.
    RecordType {
        Command => "COMMAND",
        Event => "EVENT",
        CommandRejection => "COMMAND_REJECTION",
    }
);

named_enum!(
    /// Zeebe's value types (the kinds of record).
    ValueType {
        Deployment => "DEPLOYMENT",
        Form => "FORM",
        Process => "PROCESS",
        ProcessInstance => "PROCESS_INSTANCE",
        ProcessInstanceCreation => "PROCESS_INSTANCE_CREATION",
        ProcessInstanceModification => "PROCESS_INSTANCE_MODIFICATION",
        RuntimeInstruction => "RUNTIME_INSTRUCTION",
        Job => "JOB",
        JobBatch => "JOB_BATCH",
        Variable => "VARIABLE",
        VariableDocument => "VARIABLE_DOCUMENT",
        Incident => "INCIDENT",
        Timer => "TIMER",
        Message => "MESSAGE",
        MessageSubscription => "MESSAGE_SUBSCRIPTION",
        ProcessMessageSubscription => "PROCESS_MESSAGE_SUBSCRIPTION",
        MessageStartEventSubscription => "MESSAGE_START_EVENT_SUBSCRIPTION",
        MessageCorrelation => "MESSAGE_CORRELATION",
        Signal => "SIGNAL",
        SignalSubscription => "SIGNAL_SUBSCRIPTION",
        Escalation => "ESCALATION",
        Error => "ERROR",
        UserTask => "USER_TASK",
        DecisionEvaluation => "DECISION_EVALUATION",
        DecisionRequirements => "DECISION_REQUIREMENTS",
        Decision => "DECISION",
        AdHocSubProcessInstruction => "AD_HOC_SUB_PROCESS_INSTRUCTION",
        CompensationSubscription => "COMPENSATION_SUBSCRIPTION",
        ConditionalSubscription => "CONDITIONAL_SUBSCRIPTION",
        ConditionalEvaluation => "CONDITIONAL_EVALUATION",
        Clock => "CLOCK",
        ClusterVariable => "CLUSTER_VARIABLE",
        GlobalListener => "GLOBAL_LISTENER",
    }
);

named_enum!(
    /// Zeebe's rejection types.
    RejectionType {
        InvalidArgument => "INVALID_ARGUMENT",
        NotFound => "NOT_FOUND",
        AlreadyExists => "ALREADY_EXISTS",
        InvalidState => "INVALID_STATE",
        ProcessingError => "PROCESSING_ERROR",
    }
);

named_enum!(
    /// Zeebe's incident error types (`ErrorType`).
    ErrorType {
        Unknown => "UNKNOWN",
        IoMappingError => "IO_MAPPING_ERROR",
        JobNoRetries => "JOB_NO_RETRIES",
        ExecutionListenerNoRetries => "EXECUTION_LISTENER_NO_RETRIES",
        TaskListenerNoRetries => "TASK_LISTENER_NO_RETRIES",
        AdHocSubProcessNoRetries => "AD_HOC_SUB_PROCESS_NO_RETRIES",
        ConditionError => "CONDITION_ERROR",
        ExtractValueError => "EXTRACT_VALUE_ERROR",
        CalledElementError => "CALLED_ELEMENT_ERROR",
        UnhandledErrorEvent => "UNHANDLED_ERROR_EVENT",
        MessageSizeExceeded => "MESSAGE_SIZE_EXCEEDED",
        CalledDecisionError => "CALLED_DECISION_ERROR",
        DecisionEvaluationError => "DECISION_EVALUATION_ERROR",
        FormNotFound => "FORM_NOT_FOUND",
        ResourceNotFound => "RESOURCE_NOT_FOUND",
    }
);

named_enum!(
    /// Zeebe's `BpmnElementType`.
    BpmnElementType {
        Unspecified => "UNSPECIFIED",
        Process => "PROCESS",
        SubProcess => "SUB_PROCESS",
        EventSubProcess => "EVENT_SUB_PROCESS",
        AdHocSubProcess => "AD_HOC_SUB_PROCESS",
        AdHocSubProcessInnerInstance => "AD_HOC_SUB_PROCESS_INNER_INSTANCE",
        StartEvent => "START_EVENT",
        IntermediateCatchEvent => "INTERMEDIATE_CATCH_EVENT",
        IntermediateThrowEvent => "INTERMEDIATE_THROW_EVENT",
        BoundaryEvent => "BOUNDARY_EVENT",
        EndEvent => "END_EVENT",
        ServiceTask => "SERVICE_TASK",
        ReceiveTask => "RECEIVE_TASK",
        UserTask => "USER_TASK",
        ManualTask => "MANUAL_TASK",
        Task => "TASK",
        ExclusiveGateway => "EXCLUSIVE_GATEWAY",
        InclusiveGateway => "INCLUSIVE_GATEWAY",
        ParallelGateway => "PARALLEL_GATEWAY",
        EventBasedGateway => "EVENT_BASED_GATEWAY",
        SequenceFlow => "SEQUENCE_FLOW",
        MultiInstanceBody => "MULTI_INSTANCE_BODY",
        CallActivity => "CALL_ACTIVITY",
        BusinessRuleTask => "BUSINESS_RULE_TASK",
        ScriptTask => "SCRIPT_TASK",
        SendTask => "SEND_TASK",
    }
);

named_enum!(
    /// Zeebe's `BpmnEventType`.
    BpmnEventType {
        Unspecified => "UNSPECIFIED",
        None => "NONE",
        Timer => "TIMER",
        Message => "MESSAGE",
        Error => "ERROR",
        Terminate => "TERMINATE",
        Escalation => "ESCALATION",
        Signal => "SIGNAL",
        Compensation => "COMPENSATION",
        Link => "LINK",
        Conditional => "CONDITIONAL",
    }
);

named_enum!(
    /// Zeebe's `JobKind`.
    JobKind {
        BpmnElement => "BPMN_ELEMENT",
        ExecutionListener => "EXECUTION_LISTENER",
        TaskListener => "TASK_LISTENER",
        AdHocSubProcess => "AD_HOC_SUB_PROCESS",
    }
);

named_enum!(
    /// Zeebe's `JobListenerEventType`.
    ListenerEventType {
        Unspecified => "UNSPECIFIED",
        Start => "START",
        End => "END",
        Creating => "CREATING",
        Assigning => "ASSIGNING",
        Updating => "UPDATING",
        Completing => "COMPLETING",
        Canceling => "CANCELING",
    }
);

named_enum!(
    /// Intents of `PROCESS_INSTANCE` records.
    ProcessInstanceIntent {
        ActivateElement => "ACTIVATE_ELEMENT",
        CompleteElement => "COMPLETE_ELEMENT",
        TerminateElement => "TERMINATE_ELEMENT",
        CompleteExecutionListener => "COMPLETE_EXECUTION_LISTENER",
        Cancel => "CANCEL",
        SequenceFlowTaken => "SEQUENCE_FLOW_TAKEN",
        ElementActivating => "ELEMENT_ACTIVATING",
        ElementActivated => "ELEMENT_ACTIVATED",
        ElementCompleting => "ELEMENT_COMPLETING",
        ElementCompleted => "ELEMENT_COMPLETED",
        ElementTerminating => "ELEMENT_TERMINATING",
        ElementTerminated => "ELEMENT_TERMINATED",
        Suspend => "SUSPEND",
        Suspending => "SUSPENDING",
        Suspended => "SUSPENDED",
        Resume => "RESUME",
        Resuming => "RESUMING",
        Resumed => "RESUMED",
    }
);

named_enum!(
    /// Intents of every value type other than `PROCESS_INSTANCE`, flattened (Zeebe reuses names
    /// such as `CREATED` across value types; the value type tells them apart).
    OtherIntent {
        Create => "CREATE",
        Created => "CREATED",
        CreateWithAwaitingResult => "CREATE_WITH_AWAITING_RESULT",
        Complete => "COMPLETE",
        Completed => "COMPLETED",
        Fail => "FAIL",
        Failed => "FAILED",
        ThrowError => "THROW_ERROR",
        ErrorThrown => "ERROR_THROWN",
        TimedOut => "TIMED_OUT",
        RetriesUpdated => "RETRIES_UPDATED",
        RecurredAfterBackoff => "RECURRED_AFTER_BACKOFF",
        Canceled => "CANCELED",
        Activated => "ACTIVATED",
        Updated => "UPDATED",
        Resolve => "RESOLVE",
        Resolved => "RESOLVED",
        Triggered => "TRIGGERED",
        Publish => "PUBLISH",
        Published => "PUBLISHED",
        Expired => "EXPIRED",
        Correlate => "CORRELATE",
        Correlated => "CORRELATED",
        Correlating => "CORRELATING",
        NotCorrelated => "NOT_CORRELATED",
        Deleted => "DELETED",
        Deleting => "DELETING",
        Creating => "CREATING",
        Broadcast => "BROADCAST",
        Broadcasted => "BROADCASTED",
        Escalated => "ESCALATED",
        NotEscalated => "NOT_ESCALATED",
        Evaluate => "EVALUATE",
        Evaluated => "EVALUATED",
        Assigned => "ASSIGNED",
        Assigning => "ASSIGNING",
        AssignmentDenied => "ASSIGNMENT_DENIED",
        Updating => "UPDATING",
        UpdateDenied => "UPDATE_DENIED",
        CompletionDenied => "COMPLETION_DENIED",
        Corrected => "CORRECTED",
        Completing => "COMPLETING",
        Canceling => "CANCELING",
        Interrupted => "INTERRUPTED",
        Activate => "ACTIVATE",
        Pin => "PIN",
        Pinned => "PINNED",
        Modified => "MODIFIED",
        Suspended => "SUSPENDED",
        Resumed => "RESUMED",
    }
);

/// The intent of a record: the process-instance intents (which drive the lifecycle) or one of the
/// others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    ProcessInstance(ProcessInstanceIntent),
    Other(OtherIntent),
}

impl Intent {
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::ProcessInstance(i) => i.as_str(),
            Intent::Other(i) => i.as_str(),
        }
    }
}

impl std::fmt::Display for Intent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of a process definition an element instance or a `PROCESS_INSTANCE` record is
/// about (Zeebe's `elementId`): the process itself, one of its flow nodes, or a sequence flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementRef {
    Process,
    Element(ElementIdx),
    Flow(FlowIdx),
}

/// The value of a `PROCESS_INSTANCE` record.
#[derive(Debug, Clone)]
pub struct ProcessInstanceValue {
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    pub element_ref: ElementRef,
    pub element_type: BpmnElementType,
    pub event_type: BpmnEventType,
    pub flow_scope_key: Option<Key>,
    pub parent_process_instance_key: Option<Key>,
    pub parent_element_instance_key: Option<Key>,
}

/// The value of a `DECISION_EVALUATION` record.
#[derive(Debug, Clone)]
pub struct DecisionValue {
    /// The called decision's id.
    pub decision_id: Arc<str>,
    /// The deployed decision version that was evaluated (`None` only if it no longer resolves).
    pub decision: Option<DecisionIdx>,
    pub proc: Option<ProcIdx>,
    pub process_instance_key: Option<Key>,
    pub element: Option<ElementIdx>,
    pub element_instance_key: Option<Key>,
    /// The called decision's output (`null` when the evaluation failed).
    pub output: Arc<Json>,
    /// 1-based indexes of the rules of the called decision that matched.
    pub matched_rules: Arc<Vec<u32>>,
    /// Zeebe's `evaluationFailureMessage` (FAILED records).
    pub failure_message: Option<Arc<str>>,
    /// Zeebe's `failedDecisionId` (FAILED records).
    pub failed_decision_id: Option<Arc<str>>,
    /// Every decision evaluated, required decisions first.
    pub evaluated_decisions: Arc<Vec<EvaluatedDecision>>,
}

/// A job as its records show it. The engine keeps one `Arc<JobValue>` per open job and hands
/// it to every record written about the job; a change to the job copies it first (copy on
/// write), so each record keeps the snapshot of its time without a copy per record.
#[derive(Debug, Clone)]
pub struct JobValue {
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    /// A flow node, or the process itself (the jobs of its execution listeners).
    pub element: ElementRef,
    pub element_instance_key: Key,
    pub job_type: Arc<str>,
    pub kind: JobKind,
    pub listener_event_type: ListenerEventType,
    pub retries: i32,
    pub retry_backoff: i64,
    /// When a failed job's retry backoff ends.
    pub recurring_time: Option<i64>,
    pub worker: Option<Arc<str>>,
    pub deadline: Option<i64>,
    pub error_message: Option<Arc<str>>,
    pub error_code: Option<Arc<str>>,
    pub custom_headers: Arc<IndexMap<String, String>>,
}

/// The value of a `JOB` record: the job's shared snapshot and the variables of the command
/// (complete, fail, throw error), if it carried any. Reads through to the [`JobValue`].
#[derive(Debug, Clone)]
pub struct JobRecord {
    pub job: Arc<JobValue>,
    pub variables: Option<Arc<SharedVariableDocument>>,
}

impl std::ops::Deref for JobRecord {
    type Target = JobValue;

    fn deref(&self) -> &JobValue {
        &self.job
    }
}

/// The value of a `VARIABLE` record.
#[derive(Debug, Clone)]
pub struct VariableValue {
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    pub scope_key: Key,
    pub name: Arc<str>,
    pub value: SharedJson,
}

/// The value of an `INCIDENT` record.
#[derive(Debug, Clone)]
pub struct IncidentValue {
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    pub element: ElementRef,
    pub element_instance_key: Key,
    pub job_key: Option<Key>,
    pub variable_scope_key: Key,
    pub error_type: ErrorType,
    pub error_message: Arc<str>,
}

/// The value of a `TIMER` record.
#[derive(Debug, Clone)]
pub struct TimerValue {
    pub proc: ProcIdx,
    pub process_instance_key: Option<Key>,
    pub element_instance_key: Option<Key>,
    pub target_element: ElementIdx,
    pub due_date: i64,
    pub repetitions: i32,
}

/// The value of `MESSAGE` records.
#[derive(Debug, Clone)]
pub struct MessageValue {
    pub name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub time_to_live: i64,
    pub deadline: i64,
    pub message_id: Option<Arc<str>>,
    pub variables: Arc<VariableDocument>,
}

/// The value of `MESSAGE_SUBSCRIPTION`, `PROCESS_MESSAGE_SUBSCRIPTION` and
/// `MESSAGE_START_EVENT_SUBSCRIPTION` records.
#[derive(Debug, Clone)]
pub struct SubscriptionValue {
    pub proc: ProcIdx,
    pub process_instance_key: Option<Key>,
    pub element_instance_key: Option<Key>,
    pub element: ElementIdx,
    pub message_name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub message_key: Option<Key>,
    pub interrupting: bool,
    pub variables: Option<Arc<VariableDocument>>,
}

/// The value of `SIGNAL` and `SIGNAL_SUBSCRIPTION` records.
#[derive(Debug, Clone)]
pub struct SignalValue {
    pub signal_name: Arc<str>,
    pub proc: Option<ProcIdx>,
    pub element: Option<ElementIdx>,
    pub catch_event_instance_key: Option<Key>,
    pub variables: Option<Arc<VariableDocument>>,
}

/// The value of a `CONDITIONAL_SUBSCRIPTION` record.
#[derive(Debug, Clone)]
pub struct ConditionalValue {
    pub proc: ProcIdx,
    /// The conditional event.
    pub element: ElementIdx,
    /// The element instance that subscribed (`None` for a root start event).
    pub element_instance_key: Option<Key>,
    pub process_instance_key: Option<Key>,
    pub interrupting: bool,
}

/// The value of a `COMPENSATION_SUBSCRIPTION` record.
#[derive(Debug, Clone)]
pub struct CompensationValue {
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    /// The completed activity to compensate.
    pub activity: ElementIdx,
    pub activity_instance_key: Key,
    /// The activity that compensates it.
    pub handler: ElementIdx,
    /// The throw or end event that triggered it.
    pub throw_element: Option<ElementIdx>,
}

/// The value of a `USER_TASK` record.
#[derive(Debug, Clone)]
pub struct UserTaskValue {
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    pub element: ElementIdx,
    pub element_instance_key: Key,
    pub assignee: Option<Arc<str>>,
    pub candidate_groups: Arc<Vec<String>>,
    pub candidate_users: Arc<Vec<String>>,
    pub due_date: Option<Arc<str>>,
    pub follow_up_date: Option<Arc<str>>,
    pub priority: i32,
    pub form_key: Option<i64>,
    pub variables: Option<Arc<VariableDocument>>,
    pub action: Option<Arc<str>>,
    /// The attributes the transition of the record changes (Zeebe's `changedAttributes`:
    /// `assignee`, `candidateGroupsList`, `candidateUsersList`, `dueDate`, `followUpDate`,
    /// `priority`, `variables`), sorted.
    pub changed_attributes: Vec<&'static str>,
    /// Why a task listener denied the transition (`..._DENIED` records).
    pub denied_reason: Option<Arc<str>>,
}

use crate::dmn::EvaluatedDecision;

/// The value of a record: one variant per value type family.
#[derive(Debug, Clone)]
pub enum RecordValue {
    /// `DEPLOYMENT` / `PROCESS`: the deployed process.
    Process(ProcIdx),
    ProcessInstance(ProcessInstanceValue),
    ProcessInstanceCreation {
        proc: ProcIdx,
        process_instance_key: Key,
        variables: Arc<VariableDocument>,
        start_instructions: Arc<Vec<String>>,
    },
    RuntimeInstruction {
        proc: ProcIdx,
        process_instance_key: Key,
        element_id: Arc<str>,
    },
    Job(JobRecord),
    JobBatch {
        job_type: Arc<str>,
        worker: Arc<str>,
        timeout: i64,
        job_keys: Arc<Vec<Key>>,
    },
    Variable(VariableValue),
    VariableDocument {
        scope_key: Key,
        local: bool,
        variables: Arc<VariableDocument>,
    },
    Incident(Box<IncidentValue>),
    Timer(TimerValue),
    Message(Box<MessageValue>),
    Subscription(Box<SubscriptionValue>),
    Signal(Box<SignalValue>),
    ConditionalSubscription(Box<ConditionalValue>),
    Compensation(Box<CompensationValue>),
    /// `FORM`: a deployed form version.
    Form {
        form_id: Arc<str>,
        version: i32,
    },
    Escalation {
        proc: ProcIdx,
        process_instance_key: Key,
        throw_element: ElementIdx,
        catch_element: Option<ElementIdx>,
        escalation_code: Arc<str>,
    },
    Error {
        process_instance_key: Key,
        error_code: Arc<str>,
        error_message: Arc<str>,
    },
    UserTask(Box<UserTaskValue>),
    DecisionEvaluation(Box<DecisionValue>),
    /// `DECISION_REQUIREMENTS CREATED` (and `DEPLOYMENT CREATED` of a deployment without
    /// processes): the deployed DRG version.
    DecisionRequirements(DrgIdx),
    /// `DECISION CREATED`: the deployed decision version.
    Decision(DecisionIdx),
    AdHocInstruction {
        ad_hoc_instance_key: Key,
        elements: Arc<Vec<String>>,
        cancel_remaining_instances: bool,
        completion_condition_fulfilled: bool,
    },
    Clock {
        time: i64,
    },
    /// `CLUSTER_VARIABLE`: a cluster variable set, globally (`tenant_id` `None`) or for a
    /// tenant.
    ClusterVariable {
        name: Arc<str>,
        value: Arc<Json>,
        tenant_id: Option<Arc<str>>,
    },
    /// `GLOBAL_LISTENER`: a global user task listener created.
    GlobalListener(Arc<GlobalTaskListener>),
}

/// A global user task listener (Zeebe 8.9+, `/v2/global-task-listeners`, the configuration
/// `camunda.cluster.global-listeners.user-task`): a task listener of every Camunda user task of
/// the cluster, for the events it names. For one event of one task the global listeners run
/// first, then the task's own listeners, then the global listeners marked `afterNonGlobal`;
/// within each group by priority, higher first (in the order they were created when equal).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GlobalTaskListener {
    pub id: String,
    /// The job type of its listener jobs.
    #[serde(rename = "type")]
    pub job_type: String,
    /// `creating`, `assigning`, `updating`, `completing`, `canceling`, or `all`.
    pub event_types: Vec<String>,
    #[serde(default = "GlobalTaskListener::default_retries")]
    pub retries: i32,
    #[serde(default)]
    pub after_non_global: bool,
    #[serde(default = "GlobalTaskListener::default_priority")]
    pub priority: i32,
}

impl GlobalTaskListener {
    /// A listener with the defaults: 3 retries, priority 50, before the task's own listeners.
    pub fn new(
        id: impl Into<String>,
        job_type: impl Into<String>,
        event_types: impl IntoIterator<Item = impl Into<String>>,
    ) -> GlobalTaskListener {
        GlobalTaskListener {
            id: id.into(),
            job_type: job_type.into(),
            event_types: event_types.into_iter().map(Into::into).collect(),
            retries: Self::default_retries(),
            after_non_global: false,
            priority: Self::default_priority(),
        }
    }

    fn default_retries() -> i32 {
        3
    }

    fn default_priority() -> i32 {
        50
    }

    /// Whether it listens to the event named `event` (`creating`, ...).
    pub fn listens_to(&self, event: &str) -> bool {
        self.event_types.iter().any(|t| t == "all" || t == event)
    }
}

/// A rejected command: Zeebe's rejection type and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub rejection_type: RejectionType,
    pub message: String,
}

impl Rejection {
    pub fn new(rejection_type: RejectionType, message: impl Into<String>) -> Self {
        Rejection {
            rejection_type,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rejection_type, self.message)
    }
}

impl std::error::Error for Rejection {}

/// One entry of the event log.
#[derive(Debug, Clone)]
pub struct Record {
    /// 1, 2, 3, ... in the order written.
    pub position: u64,
    /// The key of the entity the record is about (`None` where Zeebe writes -1).
    pub key: Option<Key>,
    /// The engine clock when the record was written (epoch milliseconds).
    pub timestamp: i64,
    pub record_type: RecordType,
    pub value_type: ValueType,
    pub intent: Intent,
    pub rejection: Option<Box<Rejection>>,
    pub value: RecordValue,
}

impl Record {
    /// The process-instance value, for `PROCESS_INSTANCE` records.
    pub fn process_instance(&self) -> Option<&ProcessInstanceValue> {
        match &self.value {
            RecordValue::ProcessInstance(v) => Some(v),
            _ => None,
        }
    }

    /// The process-instance intent, for `PROCESS_INSTANCE` records.
    pub fn process_instance_intent(&self) -> Option<ProcessInstanceIntent> {
        match self.intent {
            Intent::ProcessInstance(i) => Some(i),
            Intent::Other(_) => None,
        }
    }
}
