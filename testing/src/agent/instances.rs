//! Agent instances (Camunda 8.10): what the engine holds about an AI agent while it runs, its
//! status, metrics, limits and history, derived here from two things baton already has: the jobs
//! the mock was handed (each with the model call it made, if any) and the engine's record log,
//! which says what became of each job afterwards.
//!
//! Nothing here is kept up to date as the run goes: each query reads the facts again, so the
//! instance cannot drift from the jobs it stands for.
//!
//! How the AI Agent connector reports to the engine (`BaseAgentRequestHandler`,
//! `CamundaAgentInstanceClient` of camunda/connectors), and how the engine keeps it
//! (`AgentHistory*Processor` of camunda/camunda):
//! - The first job of an agent (its context is still empty) creates the agent instance:
//!   status `INITIALIZING`, limits from `data.limits.maxModelCalls` (-1 where unset).
//! - Before each model call: status `THINKING`, then one history item per input message
//!   (`USER` for the user prompt and for each event, one `TOOL_RESULT` per tool result); after
//!   the model answered: an `ASSISTANT` item. A failed model call or a refused answer leaves no
//!   `ASSISTANT` item and the status at `THINKING`.
//! - When the job is completed: the metrics of the call (model calls, tokens, tool calls) are
//!   added and the status becomes `TOOL_CALLING` (the model called tools) or `IDLE`. A completion
//!   the engine refuses (the job is gone) still counts: reported before the completion (an AI
//!   Agent Task, or a turn without tool calls) in full, else by the completion's listener without
//!   the tool calls and with status `IDLE`. A job that only started the tool discovery sets `TOOL_DISCOVERY` once completed.
//! - History items are `PENDING` until the job's fate is known: `COMMITTED` when that
//!   activation completes the job; `DISCARDED` when the job fails, throws an error, is canceled,
//!   or is activated again (a crashed worker's job times out and is taken again: the earlier
//!   activation's items are discarded then, not at the time-out).
//! - The engine completes the agent instance (`COMPLETED`) when its process instance ends.
//!
//! An agent instance is created by a job without a context, and its key (baton: the key of that
//! job's element instance) written to the context's `metadata.agentInstanceKey`; a later job
//! reports to the instance its context's key names, a job whose context has no key (or
//! another agent's) to none, as the connector skips an agent without a key.

use std::fmt;

use baton_engine::runtime::{
    Intent, JsonRef, Key, OtherIntent, Record, RecordType, RecordValue, ValueType,
};
use serde::Serialize;

use super::request::AgentRequest;
use super::turn::Turn;

/// The status of an agent instance (Zeebe's `AgentInstanceStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AgentStatus {
    Initializing,
    ToolDiscovery,
    Thinking,
    ToolCalling,
    Idle,
    Completed,
}

impl AgentStatus {
    /// Every status, in Zeebe's enum order.
    pub const ALL: [AgentStatus; 6] = [
        AgentStatus::Initializing,
        AgentStatus::ToolDiscovery,
        AgentStatus::Idle,
        AgentStatus::Thinking,
        AgentStatus::ToolCalling,
        AgentStatus::Completed,
    ];

    /// The name as Zeebe writes it (`TOOL_CALLING`).
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Initializing => "INITIALIZING",
            AgentStatus::ToolDiscovery => "TOOL_DISCOVERY",
            AgentStatus::Thinking => "THINKING",
            AgentStatus::ToolCalling => "TOOL_CALLING",
            AgentStatus::Idle => "IDLE",
            AgentStatus::Completed => "COMPLETED",
        }
    }

    /// The status named `name` (Zeebe's spelling).
    pub fn from_name(name: &str) -> Option<AgentStatus> {
        AgentStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for AgentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a history item is from (Zeebe's `AgentHistoryRole`, as the connector writes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HistoryRole {
    User,
    Assistant,
    ToolResult,
}

impl HistoryRole {
    pub const ALL: [HistoryRole; 3] = [
        HistoryRole::User,
        HistoryRole::Assistant,
        HistoryRole::ToolResult,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HistoryRole::User => "USER",
            HistoryRole::Assistant => "ASSISTANT",
            HistoryRole::ToolResult => "TOOL_RESULT",
        }
    }

    pub fn from_name(name: &str) -> Option<HistoryRole> {
        HistoryRole::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

impl fmt::Display for HistoryRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a history item stands (Zeebe's commit status of an `AGENT_HISTORY` item).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommitStatus {
    /// Written, the job's fate not known yet.
    Pending,
    /// The job was completed by the activation that wrote it.
    Committed,
    /// The job failed, threw an error, was canceled or was taken again.
    Discarded,
}

impl CommitStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CommitStatus::Pending => "PENDING",
            CommitStatus::Committed => "COMMITTED",
            CommitStatus::Discarded => "DISCARDED",
        }
    }
}

impl fmt::Display for CommitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The counters of an agent instance (Zeebe's `AgentInstanceMetrics`), summed over the jobs
/// that reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentMetrics {
    pub model_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub tool_calls: u64,
}

/// The limits set when the instance was created; -1 is no limit (Zeebe's `AgentInstanceLimits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentLimits {
    pub max_model_calls: i64,
    pub max_tool_calls: i64,
    pub max_tokens: i64,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            max_model_calls: -1,
            max_tool_calls: -1,
            max_tokens: -1,
        }
    }
}

/// One item of an agent instance's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryItem {
    pub role: HistoryRole,
    pub commit_status: CommitStatus,
    pub job_key: Key,
    pub element_instance_key: Key,
    /// The mock's model call the item belongs to (1-based, over every call of the mock).
    pub model_call: u32,
    /// The text: the user prompt, the assistant's text, a tool result's content as JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// For `TOOL_RESULT`: the call it answers; for `ASSISTANT`: the tools it called.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<HistoryToolCall>,
}

/// A tool call named by a history item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryToolCall {
    pub tool_call_id: String,
    pub tool_name: String,
}

/// One agent instance.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInstance {
    /// The key the connector writes to the context's `metadata.agentInstanceKey`: in baton the
    /// key of the element instance that created the agent instance.
    pub key: Key,
    /// The agent element.
    pub element_id: String,
    pub process_instance_key: Key,
    /// The element instances the agent ran in, first the one that created it.
    pub element_instance_keys: Vec<Key>,
    pub status: AgentStatus,
    pub metrics: AgentMetrics,
    pub limits: AgentLimits,
    /// Every item written, in order, whatever its commit status.
    pub history: Vec<HistoryItem>,
}

impl AgentInstance {
    /// The committed items: what Zeebe's history search returns by default.
    pub fn committed_history(&self) -> impl Iterator<Item = &HistoryItem> {
        self.history
            .iter()
            .filter(|i| i.commit_status == CommitStatus::Committed)
    }

    /// The roles of the committed items, in order.
    pub fn history_roles(&self) -> Vec<HistoryRole> {
        self.committed_history().map(|i| i.role).collect()
    }
}

/// One job the mock was handed: the raw fact the instances are derived from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HandedJob {
    pub job_key: Key,
    pub element_instance_key: Key,
    pub process_instance_key: Key,
    /// The engine's log position when the job was handed out: what the engine wrote after it
    /// is the job's fate.
    pub log_position: u64,
    /// The job's context was empty: the connector creates the agent instance.
    pub fresh_context: bool,
    /// The `metadata.agentInstanceKey` of the job's context: the instance it reports to.
    pub agent_instance_key: Option<Key>,
    /// `data.limits.maxModelCalls` of the job, when set.
    pub max_model_calls: Option<i64>,
    /// The model call this job made (an index into the mock's requests).
    pub request: Option<usize>,
    /// The answer started the tool discovery (the context went to `TOOL_DISCOVERY`).
    pub started_discovery: bool,
    /// An AI Agent Task's job: the connector reports the metrics before it sends the completion
    /// (`AgentTaskRequestHandler.shouldUpdateAgentInstanceBeforeJobCompletion`), as the
    /// sub-process does only on a turn without tool calls.
    pub task: bool,
}

impl HandedJob {
    /// The facts of a job as the connector reads them from its fetched variables.
    pub fn read(
        job_key: Key,
        element_instance_key: Key,
        process_instance_key: Key,
        log_position: u64,
        context: Option<JsonRef<'_>>,
        data: Option<JsonRef<'_>>,
    ) -> HandedJob {
        let fresh_context = context.is_none_or(|c| c.is_null());
        let agent_instance_key = context
            .and_then(|c| c.at(&["metadata", "agentInstanceKey"]))
            .and_then(|k| k.as_u64());
        let max_model_calls = data
            .and_then(|d| d.get("limits"))
            .and_then(|l| l.get("maxModelCalls"))
            .and_then(|m| m.as_i64());
        HandedJob {
            job_key,
            element_instance_key,
            process_instance_key,
            log_position,
            fresh_context,
            agent_instance_key,
            max_model_calls,
            request: None,
            started_discovery: false,
            task: false,
        }
    }
}

/// What the engine wrote about a job after it was handed to the mock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// The job was completed (by the answer of this activation).
    Completed,
    /// The job failed or threw an error (the connector's answer was a failure).
    Failed,
    /// The job was canceled before the answer arrived: the completion is refused.
    Canceled,
    /// The job was taken again (after a time-out): this activation's answer never arrived.
    Superseded,
    /// Nothing yet: the answer is on its way, or lost and the job not taken again.
    Unknown,
}

impl Fate {
    fn commit_status(self) -> CommitStatus {
        match self {
            Fate::Completed => CommitStatus::Committed,
            Fate::Failed | Fate::Canceled | Fate::Superseded => CommitStatus::Discarded,
            Fate::Unknown => CommitStatus::Pending,
        }
    }
}

/// The fate of the job handed out at `jobs[index]`: the first of the engine's records about it
/// after its position, or the mock being handed the same job again.
fn fate(records: &[Record], jobs: &[HandedJob], index: usize) -> Fate {
    let job = &jobs[index];
    let handed_again = jobs[index + 1..]
        .iter()
        .find(|j| j.job_key == job.job_key)
        .map(|j| j.log_position);
    let start = records.partition_point(|r| r.position <= job.log_position);
    // A worker that holds the job (an answer that comes late, or never) activates it after it
    // was asked: that activation is this one. Only one after a time-out takes the job again.
    let mut timed_out = false;
    for r in &records[start..] {
        if handed_again.is_some_and(|p| r.position > p) {
            return Fate::Superseded;
        }
        if r.record_type != RecordType::Event {
            continue;
        }
        match (&r.value, r.value_type, r.intent) {
            (RecordValue::JobBatch { job_keys, .. }, ValueType::JobBatch, _)
                if timed_out && job_keys.contains(&job.job_key) =>
            {
                return Fate::Superseded;
            }
            (_, ValueType::Job, Intent::Other(intent)) if r.key == Some(job.job_key) => {
                match intent {
                    OtherIntent::Completed => return Fate::Completed,
                    OtherIntent::Failed | OtherIntent::ErrorThrown => return Fate::Failed,
                    OtherIntent::Canceled => return Fate::Canceled,
                    OtherIntent::TimedOut => timed_out = true,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if handed_again.is_some() {
        Fate::Superseded
    } else {
        Fate::Unknown
    }
}

/// The agent instances of `element_id`, in the order they were created: from the jobs handed
/// to its mock and their requests, the engine's log (`records`), and whether a process instance
/// has ended.
pub(crate) fn derive(
    records: &[Record],
    ended: impl Fn(Key) -> bool,
    element_id: &str,
    jobs: &[HandedJob],
    requests: &[AgentRequest],
) -> Vec<AgentInstance> {
    let mut instances: Vec<AgentInstance> = Vec::new();
    for (index, job) in jobs.iter().enumerate() {
        let at = match instances.iter().rposition(|i| {
            i.process_instance_key == job.process_instance_key
                && i.element_instance_keys.contains(&job.element_instance_key)
        }) {
            Some(at) => Some(at),
            None if job.fresh_context => {
                instances.push(AgentInstance {
                    key: job.element_instance_key,
                    element_id: element_id.to_string(),
                    process_instance_key: job.process_instance_key,
                    element_instance_keys: vec![job.element_instance_key],
                    status: AgentStatus::Initializing,
                    metrics: AgentMetrics::default(),
                    limits: AgentLimits {
                        max_model_calls: job.max_model_calls.unwrap_or(-1),
                        ..AgentLimits::default()
                    },
                    history: Vec::new(),
                });
                Some(instances.len() - 1)
            }
            // A stored context re-entering: the instance its key names.
            None => instances
                .iter()
                .position(|i| Some(i.key) == job.agent_instance_key)
                .inspect(|&at| {
                    instances[at]
                        .element_instance_keys
                        .push(job.element_instance_key)
                }),
        };
        // A context without a key (from before 8.10, or made by the test) or with another
        // agent's: the connector skips its reports (`AgentInstanceClient`: no key, no update).
        let Some(at) = at else { continue };
        let instance = &mut instances[at];
        let fate = fate(records, jobs, index);
        let Some(request) = job.request.and_then(|r| requests.get(r)) else {
            if job.started_discovery && fate == Fate::Completed {
                instance.status = AgentStatus::ToolDiscovery;
            }
            continue;
        };
        instance.status = AgentStatus::Thinking;
        let commit_status = fate.commit_status();
        let item = |role, text, tool_calls| HistoryItem {
            role,
            commit_status,
            job_key: job.job_key,
            element_instance_key: job.element_instance_key,
            model_call: request.model_call,
            text,
            tool_calls,
        };
        let mut items = Vec::new();
        if let Some(prompt) = &request.user_prompt {
            items.push(item(HistoryRole::User, Some(prompt.clone()), Vec::new()));
        }
        if let Some(results) = request.tool_call_results.view().items() {
            for result in results {
                let text_of = |name: &str| {
                    result.get(name).map(|v| {
                        v.as_str()
                            .map_or_else(|| v.to_json().to_string(), str::to_string)
                    })
                };
                let call = HistoryToolCall {
                    tool_call_id: text_of("id").unwrap_or_default(),
                    tool_name: text_of("name").unwrap_or_default(),
                };
                items.push(item(
                    HistoryRole::ToolResult,
                    text_of("content"),
                    vec![call],
                ));
            }
        }
        for event in &request.events {
            let text = event
                .as_str()
                .map_or_else(|| event.to_string(), str::to_string);
            items.push(item(HistoryRole::User, Some(text), Vec::new()));
        }
        let answered = match &request.turn {
            // A failed model call, or an answer the provider's content filter blocked
            // (MODEL_RESPONSE_CONTENT_FILTERED before the answer is ingested).
            Some(Turn::Error(_) | Turn::ContentFiltered(_)) | None => None,
            Some(turn) => Some(turn),
        };
        if let Some(turn) = answered {
            let calls = match turn {
                Turn::ToolCalls(t) => {
                    t.calls
                        .iter()
                        .enumerate()
                        .map(|(k, c)| HistoryToolCall {
                            tool_call_id: c.id.clone().unwrap_or_else(|| {
                                format!("call_{}_{}", request.model_call, k + 1)
                            }),
                            tool_name: c.name.to_string(),
                        })
                        .collect()
                }
                _ => Vec::new(),
            };
            items.push(item(HistoryRole::Assistant, assistant_text(turn), calls));
            // Reported before the completion is sent, or by the completion's listener: after
            // a refused completion without the tool calls and `IDLE`.
            let before_completion = job.task || turn_tool_calls(turn) == 0;
            let reported = match fate {
                Fate::Completed => Some((turn_tool_calls(turn), tool_status(turn))),
                Fate::Canceled if before_completion => {
                    Some((turn_tool_calls(turn), tool_status(turn)))
                }
                Fate::Canceled => Some((0, AgentStatus::Idle)),
                Fate::Failed | Fate::Superseded | Fate::Unknown => None,
            };
            if let Some((tool_calls, status)) = reported {
                let usage = turn.usage().unwrap_or_default();
                instance.metrics.model_calls += 1;
                instance.metrics.input_tokens += usage.input_token_count;
                instance.metrics.output_tokens += usage.output_token_count;
                instance.metrics.tool_calls += tool_calls;
                instance.status = status;
            }
        }
        instance.history.extend(items);
    }
    for instance in &mut instances {
        if ended(instance.process_instance_key) {
            instance.status = AgentStatus::Completed;
        }
    }
    instances
}

/// The assistant's text as the turn gives it (a tool call written as text is left out).
fn assistant_text(turn: &Turn) -> Option<String> {
    match turn {
        Turn::ToolCalls(t) => t.text.clone(),
        Turn::Response(r) => r
            .text
            .clone()
            .or_else(|| r.json.as_ref().map(|j| j.to_string())),
        Turn::ToolCallAsText(_) | Turn::Error(_) | Turn::ContentFiltered(_) => None,
    }
}

fn turn_tool_calls(turn: &Turn) -> u64 {
    match turn {
        Turn::ToolCalls(t) => t.calls.len() as u64,
        _ => 0,
    }
}

fn tool_status(turn: &Turn) -> AgentStatus {
    if turn_tool_calls(turn) > 0 {
        AgentStatus::ToolCalling
    } else {
        AgentStatus::Idle
    }
}

/// Expected metrics: each field left `None` is not checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpectedMetrics {
    pub model_calls: Option<u64>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub tool_calls: Option<u64>,
}

impl ExpectedMetrics {
    pub fn new() -> Self {
        ExpectedMetrics::default()
    }

    pub fn model_calls(mut self, n: u64) -> Self {
        self.model_calls = Some(n);
        self
    }

    pub fn input_tokens(mut self, n: u64) -> Self {
        self.input_tokens = Some(n);
        self
    }

    pub fn output_tokens(mut self, n: u64) -> Self {
        self.output_tokens = Some(n);
        self
    }

    pub fn tool_calls(mut self, n: u64) -> Self {
        self.tool_calls = Some(n);
        self
    }

    fn fields(&self) -> [(&'static str, Option<u64>); 4] {
        [
            ("modelCalls", self.model_calls),
            ("inputTokens", self.input_tokens),
            ("outputTokens", self.output_tokens),
            ("toolCalls", self.tool_calls),
        ]
    }

    fn matches(&self, actual: &AgentMetrics) -> bool {
        self.fields()
            .into_iter()
            .zip(metric_fields(actual))
            .all(|((_, want), (_, have))| want.is_none_or(|w| w == have))
    }
}

fn metric_fields(m: &AgentMetrics) -> [(&'static str, u64); 4] {
    [
        ("modelCalls", m.model_calls),
        ("inputTokens", m.input_tokens),
        ("outputTokens", m.output_tokens),
        ("toolCalls", m.tool_calls),
    ]
}

/// What an agent instance is expected to be: each part left `None` is not checked. Which
/// instance is checked: the latest of the agent's, unless `process_instance` and `number` say
/// otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExpectedAgentInstance {
    pub status: Option<AgentStatus>,
    pub metrics: Option<ExpectedMetrics>,
    /// The roles of the committed history, in order.
    pub history_roles: Option<Vec<HistoryRole>>,
    /// Only the agent's instances in this process instance.
    pub process_instance: Option<Key>,
    /// The agent instance with this number (1 for the first, in the order they were created)
    /// among those selected, instead of the latest.
    pub number: Option<usize>,
}

impl ExpectedAgentInstance {
    pub fn new() -> Self {
        ExpectedAgentInstance::default()
    }

    pub fn status(mut self, status: AgentStatus) -> Self {
        self.status = Some(status);
        self
    }

    pub fn metrics(mut self, metrics: ExpectedMetrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    pub fn history_roles(mut self, roles: impl IntoIterator<Item = HistoryRole>) -> Self {
        self.history_roles = Some(roles.into_iter().collect());
        self
    }

    /// Checks only the agent's instances in the process instance `key`.
    pub fn process_instance(mut self, key: Key) -> Self {
        self.process_instance = Some(key);
        self
    }

    /// Checks the agent instance number `n` (1 for the first created) among those selected,
    /// instead of the latest.
    pub fn number(mut self, n: usize) -> Self {
        self.number = Some(n);
        self
    }

    /// Whether nothing is expected, not even that a selected instance exists.
    pub fn is_empty(&self) -> bool {
        *self == ExpectedAgentInstance::default()
    }

    /// Checks the selected one of `instances` (the agent `element_id`'s, in creation order).
    pub fn check(
        &self,
        element_id: &str,
        instances: &[AgentInstance],
    ) -> Result<(), AgentInstanceMismatch> {
        let instance = self.select(element_id, instances)?;
        let selected = instances
            .iter()
            .filter(|i| {
                self.process_instance
                    .is_none_or(|k| i.process_instance_key == k)
            })
            .count();
        let mut problems = Vec::new();
        if let Some(status) = self.status
            && status != instance.status
        {
            problems.push(format!(
                "status: expected {status}, but it is {}",
                instance.status
            ));
        }
        if let Some(metrics) = &self.metrics
            && !metrics.matches(&instance.metrics)
        {
            let expected: Vec<String> = metrics
                .fields()
                .into_iter()
                .filter_map(|(name, v)| v.map(|v| format!("{name} {v}")))
                .collect();
            let actual: Vec<String> = metric_fields(&instance.metrics)
                .into_iter()
                .map(|(name, v)| format!("{name} {v}"))
                .collect();
            problems.push(format!(
                "metrics: expected {}, but it has {}",
                expected.join(", "),
                actual.join(", ")
            ));
        }
        if let Some(roles) = &self.history_roles {
            let actual = instance.history_roles();
            if *roles != actual {
                problems.push(format!(
                    "committed history: expected {}, but it is {}",
                    role_list(roles),
                    role_list(&actual)
                ));
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        let which = match self.number {
            Some(n) => format!("agent instance {n} of {selected}"),
            None if selected > 1 => format!("the latest of {selected} agent instances"),
            None => "the agent instance".to_string(),
        };
        let mut report = format!(
            "{which} of \"{element_id}\" (process instance {}) differs:\n  {}",
            instance.process_instance_key,
            problems.join("\n  ")
        );
        report.push_str(&describe_history(instance));
        Err(AgentInstanceMismatch::Differs {
            element_id: element_id.to_string(),
            instance: Box::new(instance.clone()),
            report,
        })
    }
}

impl ExpectedAgentInstance {
    /// The instance the expectation is about, or why there is none.
    fn select<'a>(
        &self,
        element_id: &str,
        instances: &'a [AgentInstance],
    ) -> Result<&'a AgentInstance, AgentInstanceMismatch> {
        let selected: Vec<&AgentInstance> = instances
            .iter()
            .filter(|i| {
                self.process_instance
                    .is_none_or(|k| i.process_instance_key == k)
            })
            .collect();
        if selected.is_empty() {
            return Err(match self.process_instance {
                Some(process_instance) if !instances.is_empty() => {
                    let mut others: Vec<Key> =
                        instances.iter().map(|i| i.process_instance_key).collect();
                    others.sort_unstable();
                    others.dedup();
                    AgentInstanceMismatch::NoneInProcessInstance {
                        element_id: element_id.to_string(),
                        process_instance,
                        others,
                    }
                }
                _ => AgentInstanceMismatch::NoInstance {
                    element_id: element_id.to_string(),
                },
            });
        }
        match self.number {
            None => Ok(selected[selected.len() - 1]),
            Some(n) => n
                .checked_sub(1)
                .and_then(|i| selected.get(i))
                .copied()
                .ok_or(AgentInstanceMismatch::NoSuchNumber {
                    element_id: element_id.to_string(),
                    number: n,
                    count: selected.len(),
                }),
        }
    }
}

fn role_list(roles: &[HistoryRole]) -> String {
    let names: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
    format!("[{}]", names.join(", "))
}

/// The history grouped by model call: `model call 2 (job 22…): TOOL_RESULT, ASSISTANT DISCARDED`.
fn describe_history(instance: &AgentInstance) -> String {
    if instance.history.is_empty() {
        return "\n  history: no items (the model was not asked yet)".to_string();
    }
    let mut out = String::from("\n  history:");
    let mut rest = instance.history.as_slice();
    while let Some(first) = rest.first() {
        let n = rest
            .iter()
            .take_while(|i| i.model_call == first.model_call)
            .count();
        let (group, tail) = rest.split_at(n);
        let roles: Vec<&str> = group.iter().map(|i| i.role.as_str()).collect();
        out.push_str(&format!(
            "\n    model call {} (job {}): {} ({})",
            first.model_call,
            first.job_key,
            roles.join(", "),
            first.commit_status
        ));
        rest = tail;
    }
    out
}

/// An agent instance is not what a test expects.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AgentInstanceMismatch {
    /// The mock was handed no job of the agent yet, so there is no agent instance.
    #[error(
        "expected the agent \"{element_id}\" to have an agent instance\n    but it has none: the mock was handed no job of it yet"
    )]
    NoInstance { element_id: String },
    /// The agent has instances, none in the selected process instance.
    #[error(
        "expected the agent \"{element_id}\" to have an agent instance in process instance {process_instance}\n    but it has none there (its agent instances are in process instance{} {})",
        if others.len() == 1 { "" } else { "s" },
        others.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoneInProcessInstance {
        element_id: String,
        process_instance: Key,
        others: Vec<Key>,
    },
    /// Fewer instances than the number asked for (numbers start at 1).
    #[error(
        "expected the agent \"{element_id}\" to have an agent instance number {number}\n    but it has {count} (numbered from 1, in the order they were created)"
    )]
    NoSuchNumber {
        element_id: String,
        number: usize,
        count: usize,
    },
    /// The instance differs; `report` says how, with its history.
    #[error("{report}")]
    Differs {
        element_id: String,
        instance: Box<AgentInstance>,
        report: String,
    },
}
