//! [`AgentState::Ready`](super::AgentState::Ready): a turn of the conversation. The results
//! that arrived are matched to the last assistant message's tool calls by id (the job waits
//! until every call has one, unless an event interrupts them); they, or the user prompt, become
//! this turn's input messages; the model-call limit is checked; then the model is asked.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use baton_engine::runtime::{JsonRef, Part, SharedJson};
use serde_json::{Value, json};

use super::cache::ElementEntry;
use super::config::Config;
use super::context::StoredContext;
use super::failure::FailureContext;
use super::job::{AgentInput, AgentJob, JobAnswer};
use super::mcp::{mcp_result_content, mcp_tool};
use super::messages::{
    SentMessages, content_blocks, event_content, id_text_ref, message, object, result_items, role,
    text_part,
};
use super::{Limits, ModelInput, PendingTurn, ReadyTools, Step};
use crate::agent::tools::ToolDefinition;

const CANCELLED_TOOL_CALL: &str = "Tool execution was canceled.";

/// What a turn is made of.
pub(super) struct TurnInput<'j, 'a> {
    pub(super) job: &'j AgentJob<'a>,
    pub(super) input: &'j AgentInput<'j>,
    pub(super) context: StoredContext<'j>,
    pub(super) tools: ReadyTools,
    pub(super) config: Arc<Config>,
    pub(super) cache: &'j ElementEntry,
    pub(super) failure: FailureContext,
}

/// The results of the turn: the events (results without an id) and the tool results by id.
struct Results<'v> {
    events: Vec<JsonRef<'v>>,
    /// A few results: scanned, not hashed.
    by_id: Vec<(Cow<'v, str>, JsonRef<'v>)>,
}

/// This turn's input messages when tool calls are pending: their results, then the events.
struct ToolCallResults {
    message: SharedJson,
    /// The results as the mock records them (`[{id, name, content}]`).
    seen: Vec<Value>,
    /// Some calls were cancelled by an interrupting event.
    interrupted: bool,
}

/// One turn of a ready agent: an answer now (a failure, a wait), or a model call.
pub(super) fn turn(turn: TurnInput<'_, '_>) -> Step {
    let TurnInput {
        job,
        input,
        context,
        tools,
        config,
        cache,
        failure,
    } = turn;
    let fail = |code: Option<&str>, message: String| {
        Step::Answer(JobAnswer::Fail(failure.connector(code, message)))
    };
    let stored = context.messages();
    let mcp_clients = context.mcp_clients();
    let results = match split_results(input, context, &tools.discovery_results) {
        Ok(results) => results,
        Err((code, message)) => return fail(code, message),
    };
    let pending_calls: Vec<JsonRef<'_>> = stored
        .iter()
        .rev()
        .find(|m| role(**m) == "assistant")
        .and_then(|m| m.get("toolCalls"))
        .and_then(JsonRef::items)
        .map(Iterator::collect)
        .unwrap_or_default();
    // Not every call has a result yet and no event interrupts them: wait for the next job.
    let interrupt = config.interrupt_on_events && !results.events.is_empty();
    if !interrupt
        && pending_calls.iter().any(|call| {
            let id = id_text_ref(call.get("id"));
            !results.by_id.iter().any(|(known, _)| *known == id)
        })
    {
        return Step::Answer(input.kind.waiting());
    }
    let (tools, tools_json) = match tools.resolved {
        Some(resolved) => (resolved.tools, resolved.definitions),
        None => stored_tools(context, cache),
    };
    let now = job.now.map(str::to_string);
    let (event_contents, event_messages) =
        event_messages(&results.events, config.interrupt_on_events, now.as_deref());

    let mut input_messages = Vec::new();
    let mut seen_results = Vec::new();
    let mut interrupted = false;
    let mut user_prompt = None;
    if pending_calls.is_empty() {
        let (message, prompt) = user_message(&config, now.as_deref());
        input_messages.extend(message);
        user_prompt = prompt;
    } else {
        let Some(results) = tool_call_results(
            &pending_calls,
            &results.by_id,
            interrupt,
            &mcp_clients,
            now.as_deref(),
        ) else {
            return Step::Answer(input.kind.waiting());
        };
        input_messages.push(results.message);
        seen_results = results.seen;
        interrupted = results.interrupted;
    }
    input_messages.extend(event_messages);
    if input_messages.is_empty() {
        return Step::Answer(input.kind.no_input(&failure));
    }

    // The model-call limit counts what earlier jobs persisted.
    let metrics = context.metrics();
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
        stored: context
            .has_conversation()
            .then(|| input.context.clone())
            .flatten(),
        input: input_messages,
        window: config.context_window_size,
        built: OnceLock::new(),
    };
    let model_input = ModelInput {
        system_prompt: config.system_prompt.clone(),
        user_prompt,
        tools,
        tool_call_results: SharedJson::new(Value::Array(seen_results)),
        events: event_contents,
        messages: sent,
        response_format: config.format.clone(),
        limits: Limits {
            max_model_calls: config.max_model_calls,
            context_window_size: config.context_window_size,
        },
    };
    Step::AskModel(Box::new(PendingTurn {
        input: model_input,
        tools_json,
        metrics,
        last_iteration_key: context.last_iteration_key(&stored),
        messages,
        conversation_id: context.conversation_id(job.element_instance_key),
        interrupted,
        mcp_clients,
        config,
        failure,
        process_definition_key: job.process_definition_key,
        process_instance_key: job.process_instance_key,
        agent_instance_key: input.agent_instance_key(job),
        now,
        kind: input.kind,
    }))
}

/// A ready context's tools and their definitions (shared by the next context).
fn stored_tools(
    context: StoredContext<'_>,
    cache: &ElementEntry,
) -> (Arc<[ToolDefinition]>, SharedJson) {
    let stored = context.tool_definitions();
    (
        cache.stored_tools(stored),
        stored.map_or_else(|| SharedJson::new(json!([])), JsonRef::to_shared),
    )
}

/// The events' contents and their user messages.
fn event_messages(
    events: &[JsonRef<'_>],
    interrupt: bool,
    now: Option<&str>,
) -> (Vec<Value>, Vec<SharedJson>) {
    let contents: Vec<Value> = events
        .iter()
        .map(|e| e.get("content").map_or(Value::Null, JsonRef::to_json))
        .collect();
    let messages = contents
        .iter()
        .map(|content| {
            let content = event_content(content, interrupt);
            message(
                vec![
                    ("role", Value::from("user").into()),
                    ("content", content.into()),
                ],
                now,
            )
        })
        .collect();
    (contents, messages)
}

/// The turn's results (without the tool discovery's): events apart, tool results by id. `Err`
/// is the connector's failure: results without a conversation, two results of one id.
fn split_results<'v>(
    input: &'v AgentInput<'_>,
    context: StoredContext<'_>,
    discovery_results: &[String],
) -> Result<Results<'v>, (Option<&'static str>, String)> {
    let results: Vec<JsonRef<'v>> = result_items(input.tool_call_results.as_ref())
        .unwrap_or_default()
        .into_iter()
        .filter(|r| {
            !r.get("id")
                .and_then(JsonRef::as_str)
                .is_some_and(|id| discovery_results.iter().any(|d| d == id))
        })
        .collect();
    if !context.has_conversation() && !results.is_empty() {
        return Err((
            Some("TOOL_CALL_RESULTS_ON_EMPTY_CONTEXT"),
            "Agent received tool call results, but the agent context was empty (no previous conversation). Is the context configured correctly?"
                .to_string(),
        ));
    }
    let (events, tool_results): (Vec<JsonRef<'v>>, Vec<JsonRef<'v>>) = results
        .into_iter()
        .partition(|r| r.get("id").is_none_or(JsonRef::is_null));
    let mut by_id: Vec<(Cow<'v, str>, JsonRef<'v>)> = Vec::with_capacity(tool_results.len());
    for result in tool_results {
        let id = id_text_ref(result.get("id"));
        if by_id.iter().any(|(known, _)| *known == id) {
            return Err((
                None,
                format!(
                    "Duplicate key {id} (attempted merging values of two tool call results with this id)"
                ),
            ));
        }
        by_id.push((id, result));
    }
    Ok(Results { events, by_id })
}

/// The results of the pending tool calls, in call order, as a `tool_call_result` message: a
/// call without a result is cancelled when an event interrupts, else the job waits (`None`).
fn tool_call_results(
    pending_calls: &[JsonRef<'_>],
    by_id: &[(Cow<'_, str>, JsonRef<'_>)],
    interrupt: bool,
    mcp_clients: &[String],
    now: Option<&str>,
) -> Option<ToolCallResults> {
    let mut blocks = Vec::with_capacity(pending_calls.len());
    let mut seen = Vec::with_capacity(pending_calls.len());
    let mut interrupted = false;
    for call in pending_calls {
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
                let content = if mcp_tool(name, mcp_clients).is_some() {
                    mcp_result_content(content)
                } else {
                    content
                };
                let mut block: Vec<(&str, Part)> = vec![
                    ("id", Value::from(id.as_ref()).into()),
                    ("name", Value::from(name).into()),
                    ("content", content_blocks(&content).into()),
                    ("elementId", Value::from(element_id).into()),
                ];
                if let Some(completed_at) = result.get("completedAt").filter(|c| !c.is_null()) {
                    block.push(("completedAt", completed_at.to_shared().into()));
                } else if let Some(now) = now {
                    block.push(("completedAt", Value::from(now).into()));
                }
                blocks.push(SharedJson::object(block));
                seen.push(object([
                    ("id", id.into_owned().into()),
                    ("name", name.into()),
                    ("content", content),
                ]));
            }
            None if interrupt => {
                interrupted = true;
                let mut block = json!({"id": id, "name": name, "content": content_blocks(&CANCELLED_TOOL_CALL.into()), "elementId": name, "interrupted": true});
                if let Some(now) = now {
                    block["completedAt"] = now.into();
                }
                blocks.push(SharedJson::new(block));
                seen.push(json!({"id": id, "name": name, "content": CANCELLED_TOOL_CALL, "interrupted": true}));
            }
            // Not every call has a result yet: wait for the next job.
            None => return None,
        }
    }
    let message = message(
        vec![
            ("role", Value::from("tool_call_result").into()),
            ("results", SharedJson::array(blocks).into()),
        ],
        now,
    );
    Some(ToolCallResults {
        message,
        seen,
        interrupted,
    })
}

/// The user message of a turn without pending tool calls (the first, or a re-entry): the
/// prompt unless it is blank, and the documents; with the prompt the model was given.
fn user_message(config: &Config, now: Option<&str>) -> (Option<SharedJson>, Option<String>) {
    let mut content = Vec::new();
    let mut user_prompt = None;
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
    let message = (!content.is_empty()).then(|| {
        message(
            vec![
                ("role", Value::from("user").into()),
                ("content", Value::Array(content).into()),
            ],
            now,
        )
    });
    (message, user_prompt)
}
