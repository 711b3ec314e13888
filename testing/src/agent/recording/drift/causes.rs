//! The causes of a request difference, read from the two requests: the tools and their
//! `fromAi()` parameters, the prompts and configuration, the tool results, the conversation.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Cause, DriftContext};
use crate::agent::recording::diff::same_json;
use crate::agent::recording::format::RecordedRequest;

pub(super) fn result_names(results: Option<&Value>) -> Vec<String> {
    results
        .and_then(Value::as_array)
        .map(|results| {
            results
                .iter()
                .map(|r| {
                    r.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("(an event)")
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn differs(recorded: &RecordedRequest, actual: &RecordedRequest, field: &str) -> bool {
    match (recorded.get(field), actual.get(field)) {
        (Some(r), Some(a)) => !same_json(r, a),
        (Some(_), None) => true,
        _ => false,
    }
}

pub(super) fn request_causes(
    context: &DriftContext,
    recorded: &RecordedRequest,
    actual: &RecordedRequest,
) -> Vec<Cause> {
    let mut causes = Vec::new();
    if let (Some(r), Some(a)) = (recorded.get("tools"), actual.get("tools")) {
        causes.extend(tool_causes(r, a));
    }
    if differs(recorded, actual, "systemPrompt") {
        causes.push(Cause::SystemPromptChanged);
    }
    if differs(recorded, actual, "userPrompt") {
        causes.push(Cause::UserPromptChanged);
    }
    if differs(recorded, actual, "responseFormat") {
        causes.push(Cause::ResponseFormatChanged);
    }
    if differs(recorded, actual, "limits") {
        causes.push(Cause::LimitsChanged);
    }
    if differs(recorded, actual, "toolCallResults") {
        let recorded_names = result_names(recorded.get("toolCallResults"));
        let actual_names = result_names(actual.get("toolCallResults"));
        if recorded_names != actual_names {
            causes.push(Cause::OtherToolResults {
                recorded: recorded_names,
                actual: actual_names,
            });
        } else {
            let items = |r: &RecordedRequest| {
                r.get("toolCallResults")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            };
            for (r, a) in items(recorded).iter().zip(items(actual).iter()) {
                if !same_json(r, a) {
                    let tool = r
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("(an event)")
                        .to_string();
                    let kind = context.tool_kinds.get(&tool).cloned();
                    causes.push(Cause::ToolResultChanged { tool, kind });
                }
            }
        }
    }
    if differs(recorded, actual, "events") {
        let count = |r: &RecordedRequest| {
            r.get("events")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        };
        causes.push(Cause::EventsChanged {
            recorded: count(recorded),
            actual: count(actual),
        });
    }
    if causes.is_empty() && differs(recorded, actual, "messages") {
        causes.push(match earlier_tool_result(recorded, actual) {
            Some(tool) => {
                let kind = context.tool_kinds.get(&tool).cloned();
                Cause::EarlierToolResultChanged { tool, kind }
            }
            None if first_differing_message_is_an_answer(recorded, actual) => {
                Cause::EarlierAnswerChanged
            }
            None => Cause::ConversationChanged,
        });
    }
    causes
}

/// The tool whose result differs in the first differing message, when that message carries
/// tool results.
fn earlier_tool_result(recorded: &RecordedRequest, actual: &RecordedRequest) -> Option<String> {
    let items = |r: &RecordedRequest| r.get("messages").and_then(Value::as_array).cloned();
    let (recorded, actual) = (items(recorded)?, items(actual)?);
    let (r, a) = recorded
        .iter()
        .zip(&actual)
        .find(|(r, a)| !same_json(r, a))?;
    let results = |m: &Value| m.get("results").and_then(Value::as_array).cloned();
    let (r, a) = (results(r)?, results(a)?);
    r.iter()
        .zip(&a)
        .find(|(r, a)| !same_json(r, a))
        .and_then(|(r, _)| r.get("name")?.as_str().map(str::to_string))
}

/// Whether the first message that differs is one of the model's (an assistant message).
fn first_differing_message_is_an_answer(
    recorded: &RecordedRequest,
    actual: &RecordedRequest,
) -> bool {
    let items = |r: &RecordedRequest| r.get("messages").and_then(Value::as_array).cloned();
    let (Some(recorded), Some(actual)) = (items(recorded), items(actual)) else {
        return false;
    };
    recorded
        .iter()
        .zip(&actual)
        .find(|(r, a)| !same_json(r, a))
        .is_some_and(|(r, a)| {
            let role = |m: &Value| m.get("role").and_then(Value::as_str).map(str::to_string);
            role(r).as_deref() == Some("assistant") && role(a).as_deref() == Some("assistant")
        })
}

fn tool_causes(recorded: &Value, actual: &Value) -> Vec<Cause> {
    let by_name = |tools: &Value| -> BTreeMap<String, Value> {
        tools
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| Some((t.get("name")?.as_str()?.to_string(), t.clone())))
            .collect()
    };
    let recorded = by_name(recorded);
    let actual = by_name(actual);
    let mut removed: Vec<String> = recorded
        .keys()
        .filter(|n| !actual.contains_key(*n))
        .cloned()
        .collect();
    let mut added: Vec<String> = actual
        .keys()
        .filter(|n| !recorded.contains_key(*n))
        .cloned()
        .collect();
    let mut causes = Vec::new();
    // A removed and an added tool with the same parameters: a rename.
    let schema = |t: &Value| t.get("inputSchema").cloned().unwrap_or(Value::Null);
    let mut renamed = Vec::new();
    for from in &removed {
        if let Some(to) = added
            .iter()
            .find(|to| same_json(&schema(&recorded[from]), &schema(&actual[*to])))
            .filter(|to| !renamed.iter().any(|(_, t): &(String, String)| t == *to))
        {
            renamed.push((from.clone(), to.clone()));
        }
    }
    removed.retain(|n| !renamed.iter().any(|(from, _)| from == n));
    added.retain(|n| !renamed.iter().any(|(_, to)| to == n));
    if !added.is_empty() {
        causes.push(Cause::ToolsAdded(added));
    }
    if !removed.is_empty() {
        causes.push(Cause::ToolsRemoved(removed));
    }
    for (from, to) in renamed {
        causes.push(Cause::ToolRenamed { from, to });
    }
    for (name, r) in &recorded {
        let Some(a) = actual.get(name) else {
            continue;
        };
        if !same_json(
            r.get("description").unwrap_or(&Value::Null),
            a.get("description").unwrap_or(&Value::Null),
        ) {
            causes.push(Cause::ToolDocumentationChanged { tool: name.clone() });
        }
        causes.extend(parameter_causes(name, &schema(r), &schema(a)));
    }
    causes
}

fn parameter_causes(tool: &str, recorded: &Value, actual: &Value) -> Vec<Cause> {
    let properties = |schema: &Value| {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let required = |schema: &Value, name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)))
    };
    let (rp, ap) = (properties(recorded), properties(actual));
    let mut causes = Vec::new();
    for name in ap.keys().filter(|n| !rp.contains_key(*n)) {
        causes.push(Cause::ParameterAdded {
            tool: tool.to_string(),
            parameter: name.clone(),
        });
    }
    for name in rp.keys().filter(|n| !ap.contains_key(*n)) {
        causes.push(Cause::ParameterRemoved {
            tool: tool.to_string(),
            parameter: name.clone(),
        });
    }
    for (name, r) in &rp {
        let Some(a) = ap.get(name) else {
            continue;
        };
        let type_of = |p: &Value| {
            p.get("type")
                .map_or_else(|| "(none)".to_string(), |t| t.to_string())
        };
        if !same_json(
            r.get("type").unwrap_or(&Value::Null),
            a.get("type").unwrap_or(&Value::Null),
        ) {
            causes.push(Cause::ParameterTypeChanged {
                tool: tool.to_string(),
                parameter: name.clone(),
                recorded: type_of(r),
                actual: type_of(a),
            });
        } else if !same_json(r, a) {
            causes.push(Cause::ParameterChanged {
                tool: tool.to_string(),
                parameter: name.clone(),
            });
        } else if required(recorded, name) != required(actual, name) {
            causes.push(Cause::ParameterRequiredChanged {
                tool: tool.to_string(),
                parameter: name.clone(),
                required: required(actual, name),
            });
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::super::tests::context;
    use super::*;
    use serde_json::json;

    fn tool(name: &str, properties: Value) -> Value {
        let required: Vec<&String> = properties.as_object().unwrap().keys().collect();
        json!({"name": name, "description": format!("{name} does it"), "inputSchema": {"type": "object", "properties": properties, "required": required}})
    }

    fn mismatch(recorded: Value, actual: Value) -> String {
        let (r, a) = (
            RecordedRequest::new(&recorded),
            RecordedRequest::new(&actual),
        );
        let difference = r.first_difference(&a).expect("the requests differ");
        context()
            .mismatch(2, difference, &r, &a, &[], &[])
            .to_string()
    }

    #[test]
    fn a_tool_result_names_the_tool_and_its_job_type() {
        insta::assert_snapshot!(mismatch(
            json!({"toolCallResults": [{"name": "lookup-order", "content": {"status": "delivered"}}]}),
            json!({"toolCallResults": [{"name": "lookup-order", "content": {"status": "shipped"}}]}),
        ), @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.toolCallResults[0].content.status
            recorded: "delivered"
            actual:   "shipped"
          the tool lookup-order (job type order-lookup) returned something else than when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#);
    }

    #[test]
    fn tool_set_changes() {
        let order = tool("lookup-order", json!({"orderId": {"type": "string"}}));
        let kb = tool("search-kb", json!({"query": {"type": "string"}}));
        let ticket = tool("create-ticket", json!({"summary": {"type": "string"}}));
        let mut renamed = ticket.clone();
        renamed["name"] = json!("open-ticket");
        insta::assert_snapshot!(
            [
                mismatch(json!({"tools": [order, kb]}), json!({"tools": [order, kb, ticket]})),
                mismatch(json!({"tools": [order, kb, ticket]}), json!({"tools": [order, kb]})),
                mismatch(json!({"tools": [ticket, order]}), json!({"tools": [renamed, order]})),
            ]
            .join("\n---\n"),
            @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[2]
            recorded: (nothing)
            actual:   {"name":"create-ticket","description":"create-ticket does it","inputSchema":{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}}
          the ad-hoc sub-process has a tool that was not there when this was recorded: create-ticket (the definition changed since recording).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[2]
            recorded: {"name":"create-ticket","description":"create-ticket does it","inputSchema":{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}}
            actual:   (nothing)
          the ad-hoc sub-process no longer has the tool create-ticket (removed since recording).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[0].name
            recorded: "create-ticket"
            actual:   "open-ticket"
          the tool create-ticket was renamed to open-ticket since recording (same parameters).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#
        );
    }

    #[test]
    fn parameter_changes() {
        let before = tool("create-ticket", json!({"summary": {"type": "string"}}));
        let added = tool(
            "create-ticket",
            json!({"summary": {"type": "string"}, "priority": {"type": "string"}}),
        );
        let retyped = tool("create-ticket", json!({"summary": {"type": "number"}}));
        insta::assert_snapshot!(
            [
                mismatch(json!({"tools": [before]}), json!({"tools": [added]})),
                mismatch(json!({"tools": [before]}), json!({"tools": [retyped]})),
            ]
            .join("\n---\n"),
            @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[0].inputSchema.properties.priority
            recorded: (nothing)
            actual:   {"type":"string"}
          the tool create-ticket has a new fromAi() parameter priority (toolCall.priority) since recording.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[0].inputSchema.properties.summary.type
            recorded: "string"
            actual:   "number"
          the fromAi() parameter summary of the tool create-ticket changed its type from "string" to "number" since recording.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#
        );
    }

    #[test]
    fn prompts_and_configuration() {
        insta::assert_snapshot!(
            [
                mismatch(
                    json!({"systemPrompt": "Be brief.", "userPrompt": "Where is 1042?"}),
                    json!({"systemPrompt": "Be brief.", "userPrompt": "Where is 7?"}),
                ),
                mismatch(
                    json!({"systemPrompt": "Be brief.", "limits": {"maxModelCalls": 10, "contextWindowSize": 20}}),
                    json!({"systemPrompt": "Be kind.", "limits": {"maxModelCalls": 5, "contextWindowSize": 20}}),
                ),
                mismatch(
                    json!({"responseFormat": {"type": "text", "parseJson": false}}),
                    json!({"responseFormat": {"type": "json", "schemaName": "Answer"}}),
                ),
                mismatch(
                    json!({"events": [{"escalated": true}]}),
                    json!({"events": [{"escalated": true}, {"escalated": false}]}),
                ),
                mismatch(
                    json!({"events": [{"escalated": true}]}),
                    json!({"events": [{"escalated": false}]}),
                ),
                mismatch(
                    json!({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "toolCalls": [{"name": "lookup-order", "arguments": {"orderId": "1042"}}]}]}),
                    json!({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "toolCalls": [{"name": "lookup-order", "arguments": {"orderId": "7"}}]}]}),
                ),
                mismatch(
                    json!({"messages": [{"role": "user", "content": "Hi"}]}),
                    json!({"messages": [{"role": "user", "content": "Hello"}]}),
                ),
            ]
            .join("\n---\n"),
            @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.userPrompt
            recorded: "Where is 1042?"
            actual:   "Where is 7?"
          the user prompt changed: the input mapping data.userPrompt.prompt (or a variable it reads, e.g. a start variable) gives another text than when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.systemPrompt
            recorded: "Be brief."
            actual:   "Be kind."
          the system prompt changed: the input mapping data.systemPrompt.prompt (or a variable it reads) gives another text than when this was recorded.
          the agent's limits changed: the input mappings data.limits.maxModelCalls or data.memory.contextWindowSize differ from when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.responseFormat.type
            recorded: "text"
            actual:   "json"
          the response format changed: the input mappings data.response.format.* of the agent differ from when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.events[1]
            recorded: (nothing)
            actual:   {"escalated":false}
          the events that reached the agent (an event sub-process of the ad-hoc sub-process) differ: recorded 1 event, this run 2.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.events[0].escalated
            recorded: true
            actual:   false
          the events that reached the agent (an event sub-process of the ad-hoc sub-process) carry other content than when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.messages[1].toolCalls[0].arguments.orderId
            recorded: "1042"
            actual:   "7"
          the conversation carries an earlier answer of the model that is not the one recorded (the model answered otherwise before).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.messages[0].content
            recorded: "Hi"
            actual:   "Hello"
          the conversation sent to the model differs: the agentContext the agent started with (its input mapping agentContext), or the context window.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#
        );
    }
}
