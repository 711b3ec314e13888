//! The AI Agent Sub-process connector (`io.camunda.agenticai:aiagent-job-worker:1`) as a pure
//! state machine: one agent job in, one answer out (complete with an ad-hoc sub-process result,
//! or fail), with the model call in between left to the caller.
//!
//! [`prepare`] reads the job as the connector does (input validation, tool resolution, the
//! stored conversation, which tool results have arrived) and either answers at once (a no-op
//! completion while results are missing, a failure) or asks for a model call. [`finish`] takes the
//! model's turn and builds the completion: the `agentContext` the connector persists, the tools to
//! activate with their `toolCall`, or the final `agent` variable.
//!
//! What `agentContext` holds: `schemaVersion`, `state`, `metadata` (process definition and
//! instance keys, `lastIterationKey`), `metrics` (`modelCalls`, `tokenUsage`, `toolCalls`),
//! `toolDefinitions` and the in-process `conversation` (system, user, assistant and tool-result
//! messages). Left out: `metadata.agentInstanceKey` (no agent-instance records), the assistant
//! messages' provider fields (`modelId`, `messageId`, `metadata.framework`), and timestamps when
//! the job carries no clock. Memory stores other than in-process are played as in-process.
//!
//! MCP clients (gateway tools) are played as the connector plays them: the first job activates
//! each client with a `tools/list` call (state `TOOL_DISCOVERY`), the listed tools are offered as
//! `MCP_<client>___<tool>`, a call of one activates the client with `tools/call`, and a single
//! text block of its result reaches the model as text. A2A clients are not played (the mock says
//! so). Not played: migration of a context from another process definition, documents in tool
//! results. The `errorExpression` header is applied to the answer by [`super::error_expression`].

use std::borrow::{Borrow, Cow};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use baton_engine::runtime::{JsonRef, Part, SharedJson};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::tools::{ResolvedTools, ToolDefinition, read_elements, resolve_tools};
use super::turn::{Arguments, TextCallStyle, Turn};

/// Variables by name, in order (the engine's variable document).
pub type Variables = IndexMap<String, Value>;

/// Variables by name whose values are shared with the engine (a job's variables: reading a
/// job copies nothing; a completion's values share the parts of the job's it was built from).
pub type SharedVariables = baton_engine::runtime::SharedVariableDocument;

/// Variables whose values are shared (nothing is copied).
pub fn share_variables(variables: Variables) -> SharedVariables {
    baton_engine::runtime::share_document(variables)
}

/// The variables the connector's job worker fetches (`fetchVariables` of `AiAgentJobWorker`):
/// nothing else of the scope reaches it.
pub const FETCHED_VARIABLES: [&str; 5] = [
    "adHocSubProcessElements",
    "agentContext",
    "toolCallResults",
    "provider",
    "data",
];

/// The job's variables as the worker fetches them, out of every variable visible from the
/// job's element (outermost scope first, so a later one hides an earlier one of the same name):
/// only the [`FETCHED_VARIABLES`] are kept (shared, not copied).
pub fn fetch_variables<N: AsRef<str>, V: Borrow<SharedJson>>(
    visible: impl IntoIterator<Item = (N, V)>,
) -> FetchedVariables {
    let mut fetched = FetchedVariables::default();
    for (name, value) in visible {
        fetched.set(name.as_ref(), value.borrow());
    }
    fetched
}

/// The variables of one agent job as the worker fetches them: each of [`FETCHED_VARIABLES`],
/// or absent. A fixed slot per name; the values are shared with the engine.
#[derive(Debug, Clone, Default)]
pub struct FetchedVariables([Option<SharedJson>; FETCHED_VARIABLES.len()]);

impl FetchedVariables {
    /// The fetched variable `name` (`None` when it is not set or not fetched).
    pub fn get(&self, name: &str) -> Option<&SharedJson> {
        let i = FETCHED_VARIABLES.iter().position(|f| *f == name)?;
        self.0[i].as_ref()
    }

    /// Sets `name` when the worker fetches it (shares the value); `false` for a name it does
    /// not fetch.
    pub fn set(&mut self, name: &str, value: &SharedJson) -> bool {
        match FETCHED_VARIABLES.iter().position(|f| *f == name) {
            Some(i) => {
                self.0[i] = Some(value.clone());
                true
            }
            None => false,
        }
    }

    /// The variables that are set, in [`FETCHED_VARIABLES`] order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &SharedJson)> {
        FETCHED_VARIABLES
            .iter()
            .zip(&self.0)
            .filter_map(|(name, value)| Some((*name, value.as_ref()?)))
    }
}

/// One agent job, as the engine hands it to the worker.
#[derive(Debug, Clone)]
pub struct AgentJob<'a> {
    pub job_key: u64,
    /// The ad-hoc sub-process element id.
    pub element_id: &'a str,
    pub element_instance_key: u64,
    pub process_instance_key: u64,
    pub process_definition_key: u64,
    /// The retries of the activated job.
    pub retries: i32,
    /// The job's variables (the connector fetches `adHocSubProcessElements`, `agentContext`,
    /// `toolCallResults`, `provider`, `data`), shared with the engine.
    pub variables: FetchedVariables,
    /// The task headers (`retryBackoff`, `elementTemplateVersion`, ...).
    pub headers: &'a IndexMap<String, String>,
    /// The engine clock as an ISO-8601 date-time with offset, for message timestamps.
    pub now: Option<&'a str>,
}

/// What the worker answers.
#[derive(Debug, Clone, PartialEq)]
pub enum JobAnswer {
    Complete(JobCompletion),
    Fail(JobFailure),
    /// A BPMN error thrown from the job (the `errorExpression` header's `bpmnError(…)`).
    ThrowError(ThrownError),
}

/// A ThrowError command: caught by an error boundary event on the ad-hoc sub-process or an
/// outer scope, else an incident.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrownError {
    pub code: String,
    pub message: Option<String>,
    pub variables: Variables,
}

/// A job completion with an ad-hoc sub-process result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobCompletion {
    /// Merged into the ad-hoc sub-process scope (`agentContext`, `toolCallResults`, `agent`);
    /// the new context shares the stored conversation and tool definitions of the job's, and
    /// `agent.context` is the new context itself.
    pub variables: SharedVariables,
    pub activate_elements: Vec<ElementActivation>,
    pub completion_condition_fulfilled: bool,
    pub cancel_remaining_instances: bool,
}

/// One element to activate, with the local variables of its inner instance.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementActivation {
    pub element_id: String,
    /// The inner instance's variables (`toolCall`, `toolCallResult`).
    pub variables: SharedVariables,
}

/// A FailJob command, as the connector runtime sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobFailure {
    /// `max(retries - 1, 0)`, or 0 for input errors.
    pub retries: i32,
    /// The `retryBackoff` header in milliseconds (none when the header is absent).
    pub retry_backoff_ms: Option<u64>,
    /// `<message> | Error variables: {error={…}}`, as the incident will show it.
    pub error_message: String,
    /// `{error: {type, message, code?}}`.
    pub variables: Variables,
    /// The connector's error code (`FAILED_MODEL_CALL`, ...), if it has one.
    pub code: Option<String>,
    /// The exception message alone.
    pub message: String,
}

impl JobCompletion {
    /// A completion that changes nothing (the connector waits for more results).
    pub fn is_no_op(&self) -> bool {
        self.variables.is_empty()
            && self.activate_elements.is_empty()
            && !self.completion_condition_fulfilled
            && !self.cancel_remaining_instances
    }
}

/// The response format of the final answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    Text {
        parse_json: bool,
    },
    Json {
        /// Shared: every request of a job carries it.
        schema: Option<SharedJson>,
        schema_name: Option<String>,
    },
}

/// What the model is asked on one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInput {
    pub system_prompt: Option<String>,
    /// The user prompt, when this call carries it (the first call, or a re-entry).
    pub user_prompt: Option<String>,
    /// The tools offered.
    pub tools: Arc<[ToolDefinition]>,
    /// The tool results of this call, in tool-call order: `[{id, name, content}]` (and
    /// `interrupted: true` for calls cancelled by an event).
    pub tool_call_results: SharedJson,
    /// The contents of the events (event sub-process results) this call carries.
    pub events: Vec<Value>,
    /// The conversation as sent: the stored messages plus this call's input, cut to the context
    /// window.
    pub messages: SentMessages,
    pub response_format: ResponseFormat,
}

/// The conversation as sent on one model call: the system message, the stored conversation
/// and this call's input messages, cut to the context window. Reads as a slice of messages; it
/// holds the job's stored context (shared with the engine) and is put together when first read
/// (most tests never read it).
#[derive(Clone, Default)]
pub struct SentMessages {
    /// The system message of the configuration.
    system: Option<SharedJson>,
    /// The job's `agentContext`, whose `conversation.messages` were stored.
    stored: Option<SharedJson>,
    /// This call's input messages, shared with the context they are stored in.
    input: Vec<SharedJson>,
    window: usize,
    built: OnceLock<Vec<Value>>,
}

impl SentMessages {
    /// Messages already put together.
    pub fn new(messages: Vec<Value>) -> SentMessages {
        SentMessages {
            built: OnceLock::from(messages),
            ..SentMessages::default()
        }
    }

    fn put_together(&self) -> Vec<Value> {
        let stored = self
            .stored
            .as_ref()
            .and_then(|c| c.view().at(&["conversation", "messages"]))
            .and_then(JsonRef::items);
        let all: Vec<JsonRef<'_>> = self
            .system
            .iter()
            .map(SharedJson::view)
            .chain(
                stored
                    .into_iter()
                    .flatten()
                    .filter(|m| role(*m) != "system"),
            )
            .chain(self.input.iter().map(SharedJson::view))
            .collect();
        window(&all, self.window)
    }
}

impl Deref for SentMessages {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        self.built.get_or_init(|| self.put_together())
    }
}

impl PartialEq for SentMessages {
    fn eq(&self, other: &SentMessages) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for SentMessages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The connector is waiting for the model.
#[derive(Debug, Clone)]
pub struct PendingTurn {
    pub input: ModelInput,
    config: Arc<Config>,
    /// `toolDefinitions` as the next context stores them (shared with the job's context).
    tools_json: SharedJson,
    metrics: Metrics,
    last_iteration_key: u64,
    /// The stored messages (system first) plus this call's input messages, shared.
    messages: Vec<SharedJson>,
    conversation_id: String,
    interrupted: bool,
    mcp_clients: Vec<String>,
    failure: FailureContext,
    process_definition_key: u64,
    process_instance_key: u64,
    now: Option<String>,
}

/// The first half of a job: answer now, or ask the model.
#[derive(Debug, Clone)]
pub enum Step {
    Answer(JobAnswer),
    AskModel(Box<PendingTurn>),
}

/// Something the connector does that the mock cannot play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

#[derive(Debug, Clone)]
struct Config {
    system_prompt: Option<String>,
    /// The system message of a non-blank system prompt, shared by every conversation.
    system_message: Option<SharedJson>,
    user_prompt: Option<String>,
    user_documents: Vec<Value>,
    max_model_calls: u64,
    context_window_size: usize,
    interrupt_on_events: bool,
    format: ResponseFormat,
    include_assistant_message: bool,
    include_agent_context: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Metrics {
    model_calls: u64,
    tool_calls: u64,
    usage: super::turn::Usage,
}

#[derive(Debug, Clone)]
struct FailureContext {
    retries: i32,
    /// The `retryBackoff` header, read only when the job fails.
    backoff_header: Option<String>,
}

const CONNECTOR_EXCEPTION: &str = "io.camunda.connector.api.error.ConnectorException";
const INPUT_EXCEPTION: &str = "io.camunda.connector.api.error.ConnectorInputException";
const MCP_DISCOVERY_PREFIX: &str = "MCP_toolsList_";
const CANCELLED_TOOL_CALL: &str = "Tool execution was canceled.";
const EMPTY_EVENT: &str = "An event was triggered but no content was returned.";

/// What the connector read for the agent elements it served, kept by the caller from one job
/// to the next and keyed by process definition and element: the tools resolved from an
/// element's `adHocSubProcessElements` and the configuration read from its `provider` and
/// `data`, each used again only for equal inputs.
#[derive(Debug, Clone, Default)]
pub struct ElementCache(Vec<ElementEntry>);

#[derive(Debug, Clone)]
struct ElementEntry {
    process_definition_key: u64,
    element_id: String,
    tools: Option<ToolsRead>,
    config: Option<ConfigRead>,
}

thread_local! {
    /// The tools resolved from the `adHocSubProcessElements` values this thread saw last, newest
    /// first: every instance of a deployed ad-hoc sub-process hands out the same value, so the
    /// tests of a deployment resolve its tools once.
    static RESOLVED: RefCell<VecDeque<ToolsRead>> = const { RefCell::new(VecDeque::new()) };
}

/// How many resolved element lists a thread keeps.
const RESOLVED_KEPT: usize = 16;

/// Tools resolved from an `adHocSubProcessElements` value.
#[derive(Debug, Clone)]
struct ToolsRead {
    elements: SharedJson,
    tools: Arc<[ToolDefinition]>,
    /// `toolDefinitions` as a context stores them (shared by the contexts).
    definitions: SharedJson,
}

/// The configuration read from `provider` and `data`.
#[derive(Debug, Clone)]
struct ConfigRead {
    provider: Option<SharedJson>,
    data: Option<SharedJson>,
    config: Arc<Config>,
}

impl ElementCache {
    /// The entry of the job's element (a new one when the element was not served before).
    fn entry(&mut self, job: &AgentJob<'_>) -> &mut ElementEntry {
        let found = self.0.iter().position(|entry| {
            entry.process_definition_key == job.process_definition_key
                && entry.element_id == job.element_id
        });
        let index = found.unwrap_or_else(|| {
            self.0.push(ElementEntry {
                process_definition_key: job.process_definition_key,
                element_id: job.element_id.to_string(),
                tools: None,
                config: None,
            });
            self.0.len() - 1
        });
        &mut self.0[index]
    }
}

impl ElementEntry {
    /// The configuration of `provider` and `data` (read again when they are other values).
    fn config(
        &mut self,
        provider: Option<&SharedJson>,
        data: Option<&SharedJson>,
    ) -> Result<Arc<Config>, Vec<String>> {
        if let Some(read) = &self.config
            && read.provider.as_ref() == provider
            && read.data.as_ref() == data
        {
            return Ok(read.config.clone());
        }
        let config = Arc::new(read_config(provider.map(|p| &**p), data.map(|d| &**d))?);
        self.config = Some(ConfigRead {
            provider: provider.cloned(),
            data: data.cloned(),
            config: config.clone(),
        });
        Ok(config)
    }

    /// The tools resolved from these `adHocSubProcessElements`, with their definitions: this
    /// element's, else the ones this thread resolved from an equal value.
    fn resolved(&mut self, elements: &SharedJson) -> Option<(Arc<[ToolDefinition]>, SharedJson)> {
        if !self
            .tools
            .as_ref()
            .is_some_and(|read| read.elements == *elements)
        {
            let kept = RESOLVED
                .with_borrow(|kept| kept.iter().find(|read| read.elements == *elements).cloned());
            self.tools = Some(kept?);
        }
        self.tools
            .as_ref()
            .map(|read| (read.tools.clone(), read.definitions.clone()))
    }

    fn remember(&mut self, elements: &SharedJson, tools: &Arc<[ToolDefinition]>) -> SharedJson {
        let definitions = tool_definitions(tools);
        let read = ToolsRead {
            elements: elements.clone(),
            tools: tools.clone(),
            definitions: definitions.clone(),
        };
        RESOLVED.with_borrow_mut(|kept| {
            kept.truncate(RESOLVED_KEPT - 1);
            kept.push_front(read.clone());
        });
        self.tools = Some(read);
        definitions
    }

    /// The tools of a context's `toolDefinitions`: the resolved ones when the definitions are
    /// the ones written from them, else read from the definitions.
    fn stored_tools(&self, definitions: Option<JsonRef<'_>>) -> Arc<[ToolDefinition]> {
        let definitions = definitions.unwrap_or(JsonRef::Plain(&Value::Null));
        if let Some(read) = &self.tools
            && read.definitions.view() == definitions
        {
            return read.tools.clone();
        }
        read_tool_definitions(definitions).into()
    }
}

/// The first job of an agent with MCP clients: each client is activated with a `tools/list`
/// call, and the context waits in state `TOOL_DISCOVERY` for their results.
fn start_tool_discovery(
    job: &AgentJob<'_>,
    tools: &[ToolDefinition],
    clients: &[String],
) -> JobCompletion {
    let context = json!({
        "schemaVersion": 1,
        "state": "TOOL_DISCOVERY",
        "metadata": {
            "processDefinitionKey": job.process_definition_key,
            "processInstanceKey": job.process_instance_key,
        },
        "metrics": {"modelCalls": 0, "tokenUsage": super::turn::Usage::default().to_json(), "toolCalls": 0},
        "toolDefinitions": tools.iter().map(ToolDefinition::to_json).collect::<Vec<_>>(),
        "properties": {"mcpClients": clients},
    });
    let mut completion = JobCompletion::default();
    completion
        .variables
        .insert("agentContext".into(), SharedJson::new(context));
    completion
        .variables
        .insert("toolCallResults".into(), SharedJson::new(json!([])));
    for client in clients {
        let mut variables = SharedVariables::new();
        variables.insert(
            "toolCall".into(),
            SharedJson::new(json!({"_meta": {"id": format!("{MCP_DISCOVERY_PREFIX}{client}"), "name": client}, "method": "tools/list"})),
        );
        variables.insert("toolCallResult".into(), SharedJson::new("".into()));
        completion.activate_elements.push(ElementActivation {
            element_id: client.clone(),
            variables,
        });
    }
    completion
}

/// Reads one agent job. `Err` is a connector feature the mock does not play. `cache` carries
/// what earlier jobs read.
pub fn prepare(job: &AgentJob<'_>, cache: &mut ElementCache) -> Result<Step, Unsupported> {
    let failure = FailureContext {
        retries: job.retries,
        backoff_header: job.headers.get("retryBackoff").cloned(),
    };
    let fail = |code: Option<&str>, message: String| {
        Ok(Step::Answer(JobAnswer::Fail(failure.fail(
            CONNECTOR_EXCEPTION,
            code,
            message,
        ))))
    };
    let vars = &job.variables;
    // Read in place: a context the connector built shares its parts, and is never copied whole.
    let view = |name: &str| vars.get(name).map(SharedJson::view);

    // Input binding and validation by the connector runtime: failures are incidents at once.
    let cache = cache.entry(job);
    let config = match cache.config(vars.get("provider"), vars.get("data")) {
        Ok(config) => config,
        Err(violations) => {
            let message = format!(
                "jakarta.validation.ValidationException: Found constraints violated while validating input: \n{}",
                violations
                    .iter()
                    .map(|v| format!(" - {v}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            let mut failure = failure.fail(INPUT_EXCEPTION, None, message);
            failure.retries = 0;
            return Ok(Step::Answer(JobAnswer::Fail(failure)));
        }
    };

    // Initialisation: an empty context resolves the tools from the engine's variable.
    let context = view("agentContext").filter(|c| c.is_object() && !c.is_empty());
    let state = context
        .and_then(|c| c.get("state"))
        .and_then(JsonRef::as_str)
        .unwrap_or("INITIALIZING");
    let stored_tools = || -> Vec<ToolDefinition> {
        context
            .and_then(|c| c.get("toolDefinitions"))
            .map(read_tool_definitions)
            .unwrap_or_default()
    };
    let mcp_clients: Vec<String> = context
        .and_then(|c| c.at(&["properties", "mcpClients"]))
        .and_then(JsonRef::items)
        .map(|ids| {
            ids.filter_map(JsonRef::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut discovery_ids: Vec<String> = Vec::new();
    // The tools and their stored definitions; a ready context's are read after the waits.
    let resolved: Option<(Arc<[ToolDefinition]>, SharedJson)> = match state {
        "INITIALIZING" => {
            let elements_value = vars.get("adHocSubProcessElements");
            if let Some(resolved) = elements_value.and_then(|e| cache.resolved(e)) {
                Some(resolved)
            } else {
                let elements = match elements_value {
                    Some(value) => read_elements(value).map_err(Unsupported)?,
                    None => Vec::new(),
                };
                let ResolvedTools { tools, gateways } = match resolve_tools(&elements) {
                    Ok(resolved) => resolved,
                    Err(error) => return fail(Some("AD_HOC_TOOL_SCHEMA_INVALID"), error.message),
                };
                let unsupported: Vec<String> = gateways
                    .iter()
                    .filter(|g| g.gateway_type != "mcpClient")
                    .map(|g| format!("{} ({})", g.element_id, g.gateway_type))
                    .collect();
                if !unsupported.is_empty() {
                    return Err(Unsupported(format!(
                        "the agent \"{}\" has A2A client tools ({}); the mock does not play their agent-card discovery yet",
                        job.element_id,
                        unsupported.join(", ")
                    )));
                }
                if !gateways.is_empty() {
                    // MCP clients list their tools first: one discovery call per client.
                    let clients: Vec<String> =
                        gateways.iter().map(|g| g.element_id.clone()).collect();
                    return Ok(Step::Answer(JobAnswer::Complete(start_tool_discovery(
                        job, &tools, &clients,
                    ))));
                }
                let tools: Arc<[ToolDefinition]> = tools.into();
                let definitions = match elements_value {
                    Some(elements) => cache.remember(elements, &tools),
                    None => tool_definitions(&tools),
                };
                Some((tools, definitions))
            }
        }
        "TOOL_DISCOVERY" => {
            let mut tools = stored_tools();
            let results = result_items(vars.get("toolCallResults")).unwrap_or_default();
            for client in &mcp_clients {
                let id = format!("{MCP_DISCOVERY_PREFIX}{client}");
                let Some(result) = results
                    .iter()
                    .find(|r| r.get("id").and_then(JsonRef::as_str) == Some(id.as_str()))
                else {
                    // Discovery still running: wait.
                    return Ok(Step::Answer(JobAnswer::Complete(JobCompletion::default())));
                };
                let listed = result
                    .at(&["content", "toolDefinitions"])
                    .and_then(|l| with_plain(l, |l| l.as_array().cloned()))
                    .unwrap_or_default();
                for definition in listed {
                    let Some(name) = definition.get("name").and_then(Value::as_str) else {
                        continue;
                    };
                    tools.push(ToolDefinition {
                        name: format!("MCP_{client}___{name}"),
                        description: definition
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        input_schema: definition
                            .get("inputSchema")
                            .cloned()
                            .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
                    });
                }
                discovery_ids.push(id);
            }
            let tools: Arc<[ToolDefinition]> = tools.into();
            let definitions = tool_definitions(&tools);
            Some((tools, definitions))
        }
        "READY" => None,
        other => {
            return Err(Unsupported(format!(
                "the agent context of \"{}\" is in state {other}, which the mock does not play",
                job.element_id
            )));
        }
    };

    let metrics = context.map(read_metrics).unwrap_or_default();
    let last_iteration_key = context
        .and_then(|c| c.at(&["metadata", "lastIterationKey"]))
        .and_then(JsonRef::as_u64);
    let conversation = context.and_then(|c| c.get("conversation"));
    let stored: Vec<JsonRef<'_>> = conversation
        .and_then(|c| c.get("messages"))
        .and_then(JsonRef::items)
        .map(Iterator::collect)
        .unwrap_or_default();
    let conversation_id = conversation
        .and_then(|c| c.get("conversationId"))
        .and_then(JsonRef::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| conversation_id_for(job.element_instance_key));
    let assistant_count = stored.iter().filter(|m| role(**m) == "assistant").count() as u64;
    let last_iteration_key = last_iteration_key.unwrap_or(assistant_count);

    // Split the results: entries without an id are events.
    let results: Vec<JsonRef<'_>> = result_items(vars.get("toolCallResults"))
        .unwrap_or_default()
        .into_iter()
        .filter(|r| {
            !r.get("id")
                .and_then(JsonRef::as_str)
                .is_some_and(|id| discovery_ids.iter().any(|d| d == id))
        })
        .collect();
    if conversation.is_none() && !results.is_empty() {
        return fail(
            Some("TOOL_CALL_RESULTS_ON_EMPTY_CONTEXT"),
            "Agent received tool call results, but the agent context was empty (no previous conversation). Is the context configured correctly?"
                .to_string(),
        );
    }
    let (events, tool_results): (Vec<JsonRef<'_>>, Vec<JsonRef<'_>>) = results
        .into_iter()
        .partition(|r| r.get("id").is_none_or(JsonRef::is_null));
    // A few results: scanned, not hashed.
    let mut by_id: Vec<(Cow<'_, str>, JsonRef<'_>)> = Vec::with_capacity(tool_results.len());
    for result in &tool_results {
        let id = id_text_ref(result.get("id"));
        if by_id.iter().any(|(known, _)| *known == id) {
            return fail(
                None,
                format!(
                    "Duplicate key {id} (attempted merging values of two tool call results with this id)"
                ),
            );
        }
        by_id.push((id, *result));
    }

    let pending_calls: Vec<JsonRef<'_>> = stored
        .iter()
        .rev()
        .find(|m| role(**m) == "assistant")
        .and_then(|m| m.get("toolCalls"))
        .and_then(JsonRef::items)
        .map(Iterator::collect)
        .unwrap_or_default();
    // Not every call has a result yet and no event interrupts them: wait for the next job.
    let interrupt = config.interrupt_on_events && !events.is_empty();
    if !interrupt
        && pending_calls.iter().any(|call| {
            let id = id_text_ref(call.get("id"));
            !by_id.iter().any(|(known, _)| *known == id)
        })
    {
        return Ok(Step::Answer(JobAnswer::Complete(JobCompletion::default())));
    }
    // A ready context's tool definitions are shared by the next context.
    let (tools, tools_json) = resolved.unwrap_or_else(|| {
        let stored = context.and_then(|c| c.get("toolDefinitions"));
        (
            cache.stored_tools(stored),
            stored.map_or_else(|| SharedJson::new(json!([])), JsonRef::to_shared),
        )
    });

    let now = job.now.map(str::to_string);
    let event_contents: Vec<Value> = events
        .iter()
        .map(|e| e.get("content").map_or(Value::Null, JsonRef::to_json))
        .collect();
    let event_messages: Vec<SharedJson> = event_contents
        .iter()
        .map(|content| {
            message(
                vec![
                    ("role", Value::from("user").into()),
                    (
                        "content",
                        event_content(content, config.interrupt_on_events).into(),
                    ),
                ],
                now.as_deref(),
            )
        })
        .collect();

    let mut input_messages = Vec::new();
    let mut seen_results = Vec::new();
    let mut interrupted = false;
    let mut user_prompt = None;
    if !pending_calls.is_empty() {
        let mut blocks = Vec::new();
        for call in &pending_calls {
            let id = id_text_ref(call.get("id"));
            let name = call
                .get("name")
                .and_then(JsonRef::as_str)
                .unwrap_or_default();
            match by_id.iter().find(|(known, _)| *known == id).map(|(_, r)| r) {
                Some(result) => {
                    let content = result.get("content").map_or(Value::Null, JsonRef::to_json);
                    let element_id = result
                        .get("name")
                        .and_then(JsonRef::as_str)
                        .unwrap_or(name)
                        .to_string();
                    // The mock's record of the result: an MCP result's content is what the
                    // connector makes of it.
                    let seen_content = if mcp_tool(name, &mcp_clients).is_some() {
                        mcp_result_content(content)
                    } else {
                        content
                    };
                    let mut block: Vec<(&str, Part)> = vec![
                        ("id", Value::from(id.as_ref()).into()),
                        ("name", Value::from(name).into()),
                        ("content", content_blocks(&seen_content).into()),
                        ("elementId", Value::from(element_id).into()),
                    ];
                    if let Some(completed_at) = result.get("completedAt").filter(|c| !c.is_null()) {
                        block.push(("completedAt", completed_at.to_shared().into()));
                    } else if let Some(now) = &now {
                        block.push(("completedAt", Value::from(now.as_str()).into()));
                    }
                    blocks.push(SharedJson::object(block));
                    seen_results.push(object([
                        ("id", id.into_owned().into()),
                        ("name", name.into()),
                        ("content", seen_content),
                    ]));
                }
                None if interrupt => {
                    interrupted = true;
                    let mut block = json!({"id": id, "name": name, "content": content_blocks(&CANCELLED_TOOL_CALL.into()), "elementId": name, "interrupted": true});
                    if let Some(now) = &now {
                        block["completedAt"] = now.clone().into();
                    }
                    blocks.push(SharedJson::new(block));
                    seen_results.push(json!({"id": id, "name": name, "content": CANCELLED_TOOL_CALL, "interrupted": true}));
                }
                // Not every call has a result yet: wait for the next job.
                None => return Ok(Step::Answer(JobAnswer::Complete(JobCompletion::default()))),
            }
        }
        input_messages.push(message(
            vec![
                ("role", Value::from("tool_call_result").into()),
                ("results", SharedJson::array(blocks).into()),
            ],
            now.as_deref(),
        ));
        input_messages.extend(event_messages);
    } else {
        let mut content = Vec::new();
        if let Some(prompt) = config
            .user_prompt
            .as_deref()
            .filter(|p| !p.trim().is_empty())
        {
            content.push(text_part(prompt));
            user_prompt = Some(prompt.to_string());
        }
        for document in &config.user_documents {
            content.push(json!({"type": "document", "document": document}));
        }
        if !content.is_empty() {
            input_messages.push(message(
                vec![
                    ("role", Value::from("user").into()),
                    ("content", Value::Array(content).into()),
                ],
                now.as_deref(),
            ));
        }
        input_messages.extend(event_messages);
    }
    if input_messages.is_empty() {
        return Ok(Step::Answer(JobAnswer::Complete(JobCompletion::default())));
    }

    // The model-call limit counts what earlier jobs persisted.
    if metrics.model_calls >= config.max_model_calls {
        return fail(
            Some("MAXIMUM_NUMBER_OF_MODEL_CALLS_REACHED"),
            format!(
                "Maximum number of model calls reached (modelCalls: {}, limit: {})",
                metrics.model_calls, config.max_model_calls
            ),
        );
    }

    let mut messages = Vec::with_capacity(stored.len() + input_messages.len() + 1);
    messages.extend(config.system_message.clone());
    // The stored messages are shared by the next context (copied only when the stored context
    // is plain JSON, e.g. one a test set).
    messages.extend(
        stored
            .iter()
            .filter(|m| role(**m) != "system")
            .map(|m| m.to_shared()),
    );
    messages.extend(input_messages.iter().cloned());
    let sent = SentMessages {
        system: config.system_message.clone(),
        stored: conversation
            .is_some()
            .then(|| job.variables.get("agentContext").cloned())
            .flatten(),
        input: input_messages,
        window: config.context_window_size,
        built: OnceLock::new(),
    };
    let input = ModelInput {
        system_prompt: config.system_prompt.clone(),
        user_prompt,
        tools,
        tool_call_results: SharedJson::new(Value::Array(seen_results)),
        events: event_contents,
        messages: sent,
        response_format: config.format.clone(),
    };
    Ok(Step::AskModel(Box::new(PendingTurn {
        input,
        config,
        tools_json,
        metrics,
        last_iteration_key,
        messages,
        conversation_id,
        interrupted,
        mcp_clients,
        failure,
        process_definition_key: job.process_definition_key,
        process_instance_key: job.process_instance_key,
        now,
    })))
}

/// A tool call as the mock sends it on: id assigned, name and arguments as the model wrote
/// them (borrowed from the turn).
#[derive(Debug, Clone, PartialEq)]
pub struct SentToolCall<'t> {
    pub id: String,
    pub name: &'t str,
    pub arguments: &'t Arguments,
}

impl PendingTurn {
    /// Takes what the model is asked (leaves an empty input behind).
    pub fn take_input(&mut self) -> ModelInput {
        std::mem::replace(
            &mut self.input,
            ModelInput {
                system_prompt: None,
                user_prompt: None,
                tools: Arc::new([]),
                tool_call_results: SharedJson::default(),
                events: Vec::new(),
                messages: SentMessages::default(),
                response_format: ResponseFormat::Text { parse_json: false },
            },
        )
    }

    /// The model calls persisted before this one.
    pub fn persisted_model_calls(&self) -> u64 {
        self.metrics.model_calls
    }
}

/// The second half of a job: the model answered with `turn`; `calls` are its tool calls with ids.
pub fn finish(pending: PendingTurn, turn: &Turn, calls: &[SentToolCall<'_>]) -> JobAnswer {
    let PendingTurn {
        config,
        tools_json,
        mut metrics,
        last_iteration_key,
        mut messages,
        conversation_id,
        interrupted,
        mcp_clients,
        failure,
        process_definition_key,
        process_instance_key,
        now,
        input: _,
    } = pending;
    let fail = |code: Option<&str>, message: String| {
        JobAnswer::Fail(failure.fail(CONNECTOR_EXCEPTION, code, message))
    };

    let (text, parsed_json): (Option<String>, Option<Value>) = match turn {
        Turn::Error(error) => {
            let message = if error.message.trim().is_empty() {
                "RuntimeException".to_string()
            } else {
                error.message.clone()
            };
            return fail(
                Some("FAILED_MODEL_CALL"),
                format!("Model call failed: {message}"),
            );
        }
        Turn::ToolCalls(turn) => (turn.text.clone(), None),
        Turn::Response(response) => match (&response.text, &response.json) {
            (Some(text), json) => (Some(text.clone()), json.clone()),
            (None, Some(json)) => (Some(json.to_string()), Some(json.clone())),
            (None, None) => (None, None),
        },
        Turn::ToolCallAsText(call) => (
            Some(tool_call_text(&call.name, &call.arguments, call.style)),
            None,
        ),
    };

    // The provider's tool calls become the assistant message; arguments must be a JSON object.
    let mut assistant_calls = Vec::with_capacity(calls.len());
    for call in calls {
        let arguments = match &call.arguments {
            Arguments::Json(Value::Object(arguments)) => Value::Object(arguments.clone()),
            Arguments::Json(other) => {
                return fail(
                    None,
                    format!(
                        "Failed to deserialize tool call results for tool '{}': {}",
                        call.name,
                        not_an_object(other)
                    ),
                );
            }
            Arguments::Raw(raw) => match serde_json::from_str::<Value>(raw) {
                Ok(Value::Object(arguments)) => Value::Object(arguments),
                Ok(other) => {
                    return fail(
                        None,
                        format!(
                            "Failed to deserialize tool call results for tool '{}': {}",
                            call.name,
                            not_an_object(&other)
                        ),
                    );
                }
                Err(error) => {
                    return fail(
                        None,
                        format!(
                            "Failed to deserialize tool call results for tool '{}': {}",
                            call.name,
                            parser_message(&error)
                        ),
                    );
                }
            },
        };
        assistant_calls.push(composed([
            ("id", call.id.as_str().into()),
            ("name", call.name.into()),
            ("arguments", arguments),
        ]));
    }

    let mut assistant: Vec<(&str, Part)> = Vec::with_capacity(5);
    assistant.push(("role", Value::from("assistant").into()));
    if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
        assistant.push(("content", Value::Array(vec![text_part(text)]).into()));
    }
    if !assistant_calls.is_empty() {
        assistant.push(("toolCalls", SharedJson::array(assistant_calls).into()));
    }
    let stop_reason = if calls.is_empty() { "STOP" } else { "TOOL_USE" };
    assistant.push(("stopReason", Value::from(stop_reason).into()));
    // Shared by the final response when it carries it.
    let assistant = message(assistant, now.as_deref());
    let response_message =
        (calls.is_empty() && config.include_assistant_message).then(|| assistant.clone());
    messages.push(assistant);

    metrics.model_calls += 1;
    metrics.tool_calls += calls.len() as u64;
    if let Some(usage) = turn.usage() {
        metrics.usage.add(&usage);
    }
    // Composed of shared parts: the stored messages and the tool definitions are the job's.
    let mut context: Vec<(&str, Part)> = vec![
        ("schemaVersion", Value::from(1).into()),
        ("state", Value::from("READY").into()),
        (
            "metadata",
            composed([
                ("processDefinitionKey", process_definition_key.into()),
                ("processInstanceKey", process_instance_key.into()),
                ("lastIterationKey", (last_iteration_key + 1).into()),
            ])
            .into(),
        ),
        (
            "metrics",
            composed([
                ("modelCalls", metrics.model_calls.into()),
                ("tokenUsage", metrics.usage.to_json()),
                ("toolCalls", metrics.tool_calls.into()),
            ])
            .into(),
        ),
        ("toolDefinitions", tools_json.into()),
        (
            "conversation",
            SharedJson::object([
                ("type", Part::from(Value::from("in-process"))),
                ("conversationId", Value::from(conversation_id).into()),
                ("messages", SharedJson::array(messages).into()),
            ])
            .into(),
        ),
    ];
    if !mcp_clients.is_empty() {
        context.push(("properties", json!({"mcpClients": mcp_clients}).into()));
    }
    let agent_context = SharedJson::object(context);

    // The response handler runs on every turn: with the JSON format, any text must be JSON.
    let first_text = text.as_deref().filter(|t| !t.trim().is_empty());
    let mut response: Vec<(&str, Part)> = Vec::with_capacity(4);
    if let Some(first_text) = first_text {
        match &config.format {
            ResponseFormat::Text { parse_json } => {
                response.push(("responseText", Value::from(first_text).into()));
                if *parse_json
                    && let Some(json) = parsed_json
                        .clone()
                        .or_else(|| parse_response_json(first_text).ok())
                {
                    response.push(("responseJson", json.into()));
                }
            }
            ResponseFormat::Json { .. } => match parsed_json
                .clone()
                .map(Ok)
                .unwrap_or_else(|| parse_response_json(first_text))
            {
                Ok(json) => response.push(("responseJson", json.into())),
                Err(message) => {
                    return fail(
                        Some("FAILED_TO_PARSE_RESPONSE_CONTENT"),
                        format!("Failed to parse response content as JSON: {message}"),
                    );
                }
            },
        }
    }

    let mut completion = JobCompletion {
        cancel_remaining_instances: interrupted,
        ..JobCompletion::default()
    };
    let context_for_agent =
        (calls.is_empty() && config.include_agent_context).then(|| agent_context.clone());
    completion
        .variables
        .insert("agentContext".into(), agent_context);
    if calls.is_empty() {
        if let Some(message) = response_message {
            response.push(("responseMessage", message.into()));
        }
        if let Some(context) = context_for_agent {
            response.push(("context", context.into()));
        }
        completion
            .variables
            .insert("agent".into(), SharedJson::object(response));
        completion.completion_condition_fulfilled = true;
    } else {
        completion
            .variables
            .insert("toolCallResults".into(), SharedJson::new(json!([])));
        for call in calls {
            if let Some((client, mcp_name)) = mcp_tool(call.name, &mcp_clients) {
                let arguments = match &call.arguments {
                    Arguments::Json(arguments) => arguments.clone(),
                    Arguments::Raw(raw) => serde_json::from_str(raw).unwrap_or(Value::Null),
                };
                let mut variables = SharedVariables::new();
                variables.insert(
                    "toolCall".into(),
                    SharedJson::new(json!({"_meta": {"id": call.id, "name": client}, "method": "tools/call", "params": {"name": mcp_name, "arguments": arguments}})),
                );
                variables.insert("toolCallResult".into(), SharedJson::new("".into()));
                completion.activate_elements.push(ElementActivation {
                    element_id: client.to_string(),
                    variables,
                });
                continue;
            }
            let mut variables = SharedVariables::with_capacity(2);
            variables.insert("toolCall".into(), tool_call(call));
            variables.insert("toolCallResult".into(), SharedJson::new("".into()));
            completion.activate_elements.push(ElementActivation {
                element_id: call.name.to_string(),
                variables,
            });
        }
    }
    JobAnswer::Complete(completion)
}

/// A tool's `toolCall`: `{_meta: {id, name}, ...arguments}`; an argument named `_meta`
/// replaces it in place, as a map insert does.
fn tool_call(call: &SentToolCall<'_>) -> SharedJson {
    let parsed;
    let arguments = match &call.arguments {
        Arguments::Json(Value::Object(arguments)) => Some(arguments),
        Arguments::Raw(raw) => {
            parsed = serde_json::from_str::<Value>(raw).ok();
            parsed.as_ref().and_then(Value::as_object)
        }
        Arguments::Json(_) => None,
    };
    let mut entries: Vec<(Cow<'static, str>, Part)> =
        Vec::with_capacity(1 + arguments.map_or(0, Map::len));
    let meta = composed([("id", call.id.as_str().into()), ("name", call.name.into())]);
    entries.push(("_meta".into(), meta.into()));
    for (key, value) in arguments.into_iter().flatten() {
        if key == "_meta" {
            entries[0].1 = value.clone().into();
        } else {
            entries.push((key.clone().into(), value.clone().into()));
        }
    }
    SharedJson::object(entries)
}

impl FailureContext {
    fn fail(&self, exception: &str, code: Option<&str>, message: String) -> JobFailure {
        let mut error = Map::new();
        error.insert("type".into(), exception.into());
        error.insert("message".into(), message.clone().into());
        if let Some(code) = code {
            error.insert("code".into(), code.into());
        }
        let rendered = format!(
            "{{error={{type={exception}, message={message}{}}}}}",
            code.map(|c| format!(", code={c}")).unwrap_or_default()
        );
        let mut variables = Variables::new();
        variables.insert("error".into(), Value::Object(error));
        let (retries, retry_backoff_ms, message_text) =
            match parse_backoff(self.backoff_header.as_deref()) {
                Ok(backoff) => ((self.retries - 1).max(0), backoff, message.clone()),
                // An unreadable backoff header fails the job for good, with its own message.
                Err(header_message) => (0, None, header_message),
            };
        let mut error_message = format!("{message_text} | Error variables: {rendered}");
        if error_message.chars().count() > 6000 {
            error_message = error_message.chars().take(6000).collect();
        }
        JobFailure {
            retries,
            retry_backoff_ms,
            error_message,
            variables,
            code: code.map(str::to_string),
            message: message_text,
        }
    }
}

/// Reads `provider` and `data` (the connector's input binding).
fn read_config(provider: Option<&Value>, data: Option<&Value>) -> Result<Config, Vec<String>> {
    let mut violations = Vec::new();
    if provider.is_none_or(Value::is_null) {
        violations.push("provider: must not be null".to_string());
    }
    let Some(data) = data.filter(|d| d.is_object()) else {
        violations.push("data: must not be null".to_string());
        return Err(violations);
    };
    let data_at = |path: &[&str]| at(data, path);
    let text = |path: &[&str]| data_at(path).and_then(Value::as_str).map(str::to_string);
    let user_prompt = text(&["userPrompt", "prompt"]);
    if user_prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
        violations.push("data.userPrompt.prompt: must not be blank".to_string());
    }
    let max_model_calls = match data_at(&["limits", "maxModelCalls"]) {
        None | Some(Value::Null) => 10,
        Some(value) => match value.as_i64() {
            Some(n) if n >= 1 => n as u64,
            _ => {
                violations.push(
                    "data.limits.maxModelCalls: must be greater than or equal to 1".to_string(),
                );
                10
            }
        },
    };
    let interrupt_on_events = match data.get("events").filter(|e| !e.is_null()) {
        None => false,
        Some(events) => match events.get("behavior").and_then(Value::as_str) {
            Some("INTERRUPT_TOOL_CALLS") => true,
            Some(_) => false,
            None => {
                violations.push("data.events.behavior: must not be null".to_string());
                false
            }
        },
    };
    let context_window_size = data_at(&["memory", "contextWindowSize"])
        .and_then(Value::as_u64)
        .unwrap_or(20) as usize;
    let format = match text(&["response", "format", "type"]).as_deref() {
        Some("json") => ResponseFormat::Json {
            schema: data_at(&["response", "format", "schema"])
                .filter(|s| !s.is_null())
                .map(|s| SharedJson::new(s.clone())),
            schema_name: text(&["response", "format", "schemaName"]),
        },
        _ => ResponseFormat::Text {
            parse_json: data_at(&["response", "format", "parseJson"])
                .and_then(Value::as_bool)
                .unwrap_or(false),
        },
    };
    let flag = |path: &[&str]| data_at(path).and_then(Value::as_bool).unwrap_or(false);
    if !violations.is_empty() {
        return Err(violations);
    }
    let system_prompt = text(&["systemPrompt", "prompt"]);
    Ok(Config {
        system_message: system_prompt.as_deref().and_then(system_message),
        system_prompt,
        user_prompt,
        user_documents: data_at(&["userPrompt", "documents"])
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        max_model_calls,
        context_window_size,
        interrupt_on_events,
        format,
        include_assistant_message: flag(&["response", "includeAssistantMessage"]),
        include_agent_context: flag(&["response", "includeAgentContext"]),
    })
}

fn read_metrics(context: JsonRef<'_>) -> Metrics {
    let Some(metrics) = context.get("metrics") else {
        return Metrics::default();
    };
    let count = |object: Option<JsonRef<'_>>, key: &str| {
        object
            .and_then(|o| o.get(key))
            .and_then(JsonRef::as_u64)
            .unwrap_or(0)
    };
    let usage = metrics.get("tokenUsage");
    Metrics {
        model_calls: count(Some(metrics), "modelCalls"),
        tool_calls: count(Some(metrics), "toolCalls"),
        usage: super::turn::Usage {
            input_token_count: count(usage, "inputTokenCount"),
            output_token_count: count(usage, "outputTokenCount"),
            cache_read_token_count: count(usage, "cacheReadTokenCount"),
            cache_creation_token_count: count(usage, "cacheCreationTokenCount"),
            reasoning_token_count: count(usage, "reasoningTokenCount"),
        },
    }
}

/// `MCP_<client>___<tool>` of a known MCP client: (client, tool).
fn mcp_tool<'n>(name: &'n str, clients: &[String]) -> Option<(&'n str, &'n str)> {
    let rest = name.strip_prefix("MCP_")?;
    let (client, tool) = rest.split_once("___")?;
    clients
        .iter()
        .any(|c| c == client)
        .then_some((client, tool))
}

/// An MCP call result as the model sees it: the text of a single text block, else the content list.
fn mcp_result_content(content: Value) -> Value {
    let Some(list) = content.get("content").and_then(Value::as_array) else {
        return content;
    };
    match list.as_slice() {
        [single] if single.get("type").and_then(Value::as_str) == Some("text") => {
            single.get("text").cloned().unwrap_or(Value::Null)
        }
        _ => Value::Array(list.clone()),
    }
}

/// The entry at a path of object keys.
fn at<'v>(value: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().try_fold(value, |value, key| value.get(key))
}

fn role(message: JsonRef<'_>) -> &str {
    message
        .get("role")
        .and_then(JsonRef::as_str)
        .unwrap_or_default()
}

/// A result id as text (the connector reads ids as strings): a string id is borrowed, not
/// copied (ids are compared more often than kept); a missing id reads as `null`.
fn id_text_ref(id: Option<JsonRef<'_>>) -> Cow<'_, str> {
    let Some(id) = id else {
        return Cow::Borrowed("null");
    };
    match id.as_str() {
        Some(text) => Cow::Borrowed(text),
        None => Cow::Owned(id.to_json().to_string()),
    }
}

/// The items of an array variable (`toolCallResults`), read in place. `None` when the value
/// is not an array.
fn result_items(value: Option<&SharedJson>) -> Option<Vec<JsonRef<'_>>> {
    Some(value?.view().items()?.collect())
}

/// `read` of a part as plain JSON: in place when it is plain, else of a copy.
fn with_plain<T>(part: JsonRef<'_>, read: impl FnOnce(&Value) -> Option<T>) -> Option<T> {
    match part.plain() {
        Some(plain) => read(plain),
        None => read(&part.to_json()),
    }
}

/// Stored tool definitions read back (a definition without a name is skipped).
fn read_tool_definitions(definitions: JsonRef<'_>) -> Vec<ToolDefinition> {
    definitions
        .items()
        .map(|defs| {
            defs.filter_map(|d| with_plain(d, ToolDefinition::from_json))
                .collect()
        })
        .unwrap_or_default()
}

/// `toolDefinitions` as a context stores them.
fn tool_definitions(tools: &[ToolDefinition]) -> SharedJson {
    SharedJson::new(Value::Array(
        tools.iter().map(ToolDefinition::to_json).collect(),
    ))
}

/// A stable stand-in for the connector's random conversation UUID.
fn conversation_id_for(element_instance_key: u64) -> String {
    format!(
        "00000000-0000-4000-8000-{:012x}",
        element_instance_key & 0xffff_ffff_ffff
    )
}

/// The system message of a system prompt that is not blank.
fn system_message(prompt: &str) -> Option<SharedJson> {
    (!prompt.trim().is_empty()).then(|| {
        SharedJson::new(object([
            ("role", "system".into()),
            ("content", Value::Array(vec![text_part(prompt)])),
        ]))
    })
}

/// A message's text content part: `{"type": "text", "text": …}`.
fn text_part(text: &str) -> Value {
    object([("type", "text".into()), ("text", text.into())])
}

/// A composed object of plain entries with literal keys (no `String` per key, no hash table).
fn composed<const N: usize>(entries: [(&'static str, Value); N]) -> SharedJson {
    SharedJson::object(entries)
}

/// A JSON object of these entries, built in place (`json!` would serialize every value it is
/// given into a copy).
fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    let mut map = Map::with_capacity(N);
    for (key, value) in entries {
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

/// A tool result's content as the connector stores it: text, object, or nothing.
fn content_blocks(content: &Value) -> Value {
    let (kind, key, value) = match content {
        Value::Null => return Value::Array(Vec::new()),
        Value::String(text) if text.trim().is_empty() => return Value::Array(Vec::new()),
        Value::String(_) => ("text", "text", content.clone()),
        other => ("object", "content", other.clone()),
    };
    Value::Array(vec![object([("type", kind.into()), (key, value)])])
}

/// The content of the user message for an event (an event sub-process result).
fn event_content(content: &Value, interrupt: bool) -> Value {
    let empty = match content {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    let block = if empty {
        let detail = if interrupt {
            "All in-flight tool executions were canceled."
        } else {
            "Execution waited for all in-flight tool executions to complete before proceeding."
        };
        json!({"type": "text", "text": format!("{EMPTY_EVENT} {detail}")})
    } else if let Value::String(text) = content {
        json!({"type": "text", "text": text})
    } else {
        json!({"type": "object", "content": content})
    };
    Value::Array(vec![block])
}

/// A message the connector writes: its entries, then `metadata.timestamp` when the job carries
/// the clock.
fn message(mut entries: Vec<(&'static str, Part)>, now: Option<&str>) -> SharedJson {
    if let Some(now) = now {
        entries.push((
            "metadata",
            SharedJson::object([("timestamp", Value::from(now))]).into(),
        ));
    }
    SharedJson::object(entries)
}

/// The connector's context window: at most `size` messages, the system message kept, the oldest
/// dropped first, and tool results whose tool-call message was dropped go with it.
fn window(messages: &[JsonRef<'_>], size: usize) -> Vec<Value> {
    if messages.len() <= size {
        return messages.iter().map(|m| m.to_json()).collect();
    }
    let (system, rest): (Vec<JsonRef<'_>>, Vec<JsonRef<'_>>) =
        messages.iter().partition(|m| role(**m) == "system");
    let keep = size.saturating_sub(system.len());
    let mut rest = &rest[rest.len().saturating_sub(keep)..];
    while rest.first().is_some_and(|m| role(*m) == "tool_call_result") {
        rest = &rest[1..];
    }
    system.iter().chain(rest).map(|m| m.to_json()).collect()
}

/// The text a model writes when it puts a tool call into its reply.
fn tool_call_text(name: &str, arguments: &Value, style: TextCallStyle) -> String {
    let call = json!({"name": name, "arguments": arguments}).to_string();
    match style {
        TextCallStyle::Json => call,
        TextCallStyle::Tagged => format!("<tool_call>\n{call}\n</tool_call>"),
        TextCallStyle::Fenced => format!("```json\n{call}\n```"),
    }
}

/// Parses a response text as JSON, after removing a Markdown code fence around it.
fn parse_response_json(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix("```")
        .and_then(|rest| rest.strip_suffix("```"))
        .map(|body| {
            body.split_once('\n').map_or(body, |(first, after)| {
                if first.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
                    after
                } else {
                    body
                }
            })
        })
        .unwrap_or(trimmed);
    serde_json::from_str(inner).map_err(|e| parser_message(&e))
}

fn parser_message(error: &serde_json::Error) -> String {
    error.to_string()
}

fn not_an_object(value: &Value) -> String {
    let kind = match value {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "an object",
    };
    format!("expected a JSON object, got {kind}")
}

/// Reads an ISO-8601 duration as Java's `Duration.parse` does (`PT30S`, `PT5M`, `P1DT2H`, `PT0.5S`).
pub(crate) fn parse_backoff(header: Option<&str>) -> Result<Option<u64>, String> {
    let Some(header) = header else {
        return Ok(None);
    };
    let invalid = || {
        format!(
            "Failed to parse retry backoff header. Expected ISO-8601 duration, e.g. PT5M, got: {header}"
        )
    };
    let text = header.trim().to_ascii_uppercase();
    let Some(rest) = text.strip_prefix('P') else {
        return Err(invalid());
    };
    let (days, time) = match rest.split_once('T') {
        Some((days, time)) => (days, Some(time)),
        None => (rest, None),
    };
    let mut millis: f64 = 0.0;
    let mut any = false;
    if !days.is_empty() {
        let n: f64 = days
            .strip_suffix('D')
            .and_then(|d| d.parse().ok())
            .ok_or_else(invalid)?;
        millis += n * 86_400_000.0;
        any = true;
    }
    if let Some(mut time) = time {
        if time.is_empty() {
            return Err(invalid());
        }
        for (unit, factor) in [('H', 3_600_000.0), ('M', 60_000.0), ('S', 1_000.0)] {
            if let Some(at) = time.find(unit) {
                let n: f64 = time[..at]
                    .replace(',', ".")
                    .parse()
                    .map_err(|_| invalid())?;
                millis += n * factor;
                time = &time[at + 1..];
                any = true;
            }
        }
        if !time.is_empty() {
            return Err(invalid());
        }
    }
    if !any || millis < 0.0 {
        return Err(invalid());
    }
    Ok(Some(millis.round() as u64))
}

impl JobAnswer {
    /// The answer as JSON, in the shape of Zeebe's REST API (`result.type = "adHocSubProcess"`,
    /// FailJob's `retries`, `errorMessage`, `retryBackOff`, `variables`, ThrowError's
    /// `errorCode`, `errorMessage`, `variables`).
    pub fn to_json(&self) -> Value {
        match self {
            JobAnswer::Complete(completion) => json!({
                "complete": {
                    "variables": completion.variables,
                    "result": {
                        "type": "adHocSubProcess",
                        "activateElements": completion.activate_elements.iter().map(|a| json!({"elementId": a.element_id, "variables": a.variables})).collect::<Vec<_>>(),
                        "isCompletionConditionFulfilled": completion.completion_condition_fulfilled,
                        "isCancelRemainingInstances": completion.cancel_remaining_instances,
                    }
                }
            }),
            JobAnswer::ThrowError(thrown) => json!({
                "throwError": {
                    "errorCode": thrown.code,
                    "errorMessage": thrown.message,
                    "variables": thrown.variables,
                }
            }),
            JobAnswer::Fail(failure) => json!({
                "fail": {
                    "retries": failure.retries,
                    "retryBackOff": failure.retry_backoff_ms,
                    "errorMessage": failure.error_message,
                    "variables": failure.variables,
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_fetched_variables_reach_the_worker_the_innermost_one_wins() {
        let outer_context = SharedJson::new(json!({"state": "OUTER"}));
        let inner_context = SharedJson::new(json!({"state": "READY"}));
        let data = SharedJson::new(json!({"userPrompt": {"prompt": "hi"}}));
        let other = SharedJson::new(json!("not fetched"));
        let fetched = fetch_variables([
            ("agentContext", &outer_context),
            ("customerMessage", &other),
            ("data", &data),
            ("agentContext", &inner_context),
        ]);
        assert_eq!(
            fetched.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            ["agentContext", "data"]
        );
        assert!(fetched.get("agentContext").unwrap().ptr_eq(&inner_context));
        assert!(fetched.get("customerMessage").is_none());
    }

    #[test]
    fn backoff_headers_read_like_java_durations() {
        assert_eq!(parse_backoff(None), Ok(None));
        assert_eq!(parse_backoff(Some("PT30S")), Ok(Some(30_000)));
        assert_eq!(parse_backoff(Some("PT0S")), Ok(Some(0)));
        assert_eq!(parse_backoff(Some("PT5M")), Ok(Some(300_000)));
        assert_eq!(parse_backoff(Some("P1DT1H")), Ok(Some(90_000_000)));
        assert_eq!(parse_backoff(Some("PT0.5S")), Ok(Some(500)));
        assert!(parse_backoff(Some("30s")).is_err());
        assert!(parse_backoff(Some("PT")).is_err());
    }

    #[test]
    fn window_keeps_the_system_message_and_drops_orphaned_results() {
        let sys = json!({"role": "system"});
        let u1 = json!({"role": "user", "n": 1});
        let a1 = json!({"role": "assistant", "toolCalls": [{}]});
        let tcr = json!({"role": "tool_call_result"});
        let a2 = json!({"role": "assistant", "n": 2});
        fn refs<'v>(messages: &[&'v Value]) -> Vec<JsonRef<'v>> {
            messages.iter().map(|m| JsonRef::Plain(m)).collect()
        }
        assert_eq!(window(&refs(&[&u1, &a1, &tcr, &a2]), 2), vec![a2.clone()]);
        assert_eq!(
            window(&refs(&[&sys, &u1, &a1, &tcr, &a2]), 3),
            vec![sys.clone(), a2.clone()]
        );
        assert_eq!(window(&refs(&[&sys, &u1]), 20), vec![sys, u1]);
    }

    #[test]
    fn fenced_json_answers_parse() {
        assert_eq!(
            parse_response_json("```json\n{\"a\": 1}\n```"),
            Ok(json!({"a": 1}))
        );
        assert_eq!(parse_response_json("  {\"a\": 1} "), Ok(json!({"a": 1})));
        assert!(parse_response_json("<tool_call>\n{}\n</tool_call>").is_err());
    }
}
