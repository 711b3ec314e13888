//! baton's `innerInstanceSelector` of ASSERT_VARIABLE(S) (camunda/camunda#50753): one inner
//! instance of an ad-hoc sub-process, the scope Zeebe creates for each element it activates
//! (for an AI agent, one per tool call, holding `toolCall` and, once the tool answered,
//! `toolCallResult`), chosen by the tool that ran in it or by a local variable's value. The
//! first inner instance in creation order that matches every given field is the scope.

use baton_engine::runtime::{
    BpmnElementType, ElementRef, Engine, Key, ProcessInstanceIntent, RecordValue,
};
use indexmap::IndexMap;
use serde_json::Value;

use super::model::InnerInstanceSelector;

/// One inner instance as the log tells it.
struct Inner {
    key: Key,
    /// The elements that ran in it, in order.
    ran: Vec<String>,
    /// Its local variables as last written.
    variables: IndexMap<String, Value>,
}

/// The value's text for `valueContains`: a string's own text, else its JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn matches(sel: &InnerInstanceSelector, inner: &Inner) -> bool {
    let ran = sel
        .tool_element_id
        .as_deref()
        .is_none_or(|tool| inner.ran.iter().any(|e| e == tool));
    let variable = sel.variable_name.as_deref().is_none_or(|name| {
        inner.variables.get(name).is_some_and(|v| {
            sel.value_contains
                .as_deref()
                .is_none_or(|text| text_of(v).contains(text))
        })
    });
    ran && variable
}

/// The selector as failure messages name it.
pub(crate) fn describe(sel: &InnerInstanceSelector) -> String {
    let mut parts = vec![format!("elementId: \"{}\"", sel.element_id)];
    if let Some(t) = &sel.tool_element_id {
        parts.push(format!("toolElementId: \"{t}\""));
    }
    if let Some(n) = &sel.variable_name {
        parts.push(format!("variableName: \"{n}\""));
    }
    if let Some(v) = &sel.value_contains {
        parts.push(format!("valueContains: \"{v}\""));
    }
    format!("inner instance [{}]", parts.join(", "))
}

/// The inner instances of `element_id` in a process instance, oldest first.
fn inner_instances(engine: &Engine, process_instance: Key, element_id: &str) -> Vec<Inner> {
    let mut found: Vec<Inner> = Vec::new();
    for r in engine.records() {
        match &r.value {
            RecordValue::ProcessInstance(v)
                if v.process_instance_key == process_instance
                    && r.process_instance_intent()
                        == Some(ProcessInstanceIntent::ElementActivating) =>
            {
                let Some(key) = r.key else { continue };
                if v.element_type == BpmnElementType::AdHocSubProcessInnerInstance {
                    let ElementRef::Element(e) = v.element_ref else {
                        continue;
                    };
                    let is_it = engine
                        .deployed_processes()
                        .nth(v.proc.0 as usize)
                        .is_some_and(|p| &**p.element_id(e) == element_id);
                    if is_it {
                        found.push(Inner {
                            key,
                            ran: Vec::new(),
                            variables: IndexMap::new(),
                        });
                    }
                } else if let Some(scope) = v.flow_scope_key
                    && let Some(inner) = found.iter_mut().find(|i| i.key == scope)
                    && let Some(id) = engine.record_element_id(r)
                {
                    inner.ran.push(id);
                }
            }
            _ => {}
        }
    }
    // A second pass: an inner instance's variables are written before its activation.
    for r in engine.records() {
        if let RecordValue::Variable(v) = &r.value
            && let Some(inner) = found.iter_mut().find(|i| i.key == v.scope_key)
        {
            inner
                .variables
                .insert(v.name.to_string(), v.value.to_json());
        }
    }
    found
}

/// The scope key of the inner instance the selector selects, or why there is none (with the
/// inner instances there are).
pub(crate) fn select(
    engine: &Engine,
    process_instance: Key,
    sel: &InnerInstanceSelector,
) -> Result<Key, String> {
    let all = inner_instances(engine, process_instance, &sel.element_id);
    if let Some(inner) = all.iter().find(|i| matches(sel, i)) {
        return Ok(inner.key);
    }
    if all.is_empty() {
        return Err(format!(
            "\"{}\" has no inner instance (no element of the ad-hoc sub-process was activated)",
            sel.element_id
        ));
    }
    let lines: Vec<String> = all
        .iter()
        .enumerate()
        .map(|(n, i)| {
            let ran = if i.ran.is_empty() {
                "nothing".to_owned()
            } else {
                i.ran.join(", ")
            };
            let shown = sel
                .variable_name
                .as_deref()
                .map(|name| match i.variables.get(name) {
                    Some(v) => format!("; {name} = {}", short(v)),
                    None => format!("; no {name}"),
                })
                .unwrap_or_default();
            format!("#{} ran {ran}{shown}", n + 1)
        })
        .collect();
    Err(format!(
        "no inner instance of \"{}\" matches; its inner instances:\n         {}",
        sel.element_id,
        lines.join("\n         ")
    ))
}

/// A value's JSON cut to a line.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 80 {
        text
    } else {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    }
}
