//! The turns a model may answer with at one model call of an agent, simplest first: the given
//! responses, the responses generated from the response format, then tool calls — one tool, two
//! tools, ... up to the bound, each set in each order, with every combination of argument values.
//! The index of a turn in this list is the choice a trajectory records, so a smaller index is a
//! simpler answer (what shrinking prefers).

use serde_json::{Map, Value};

use super::values::{TooMany, combinations, values_of};
use crate::agent::arguments::check_arguments;
use crate::agent::tools::ToolDefinition;
use crate::agent::{ResponseFormat, ToolCall, Turn};

/// The part of an agent's space the turns are built from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnSpace {
    /// The tools the model may call, in the agent's document order.
    pub tools: Vec<String>,
    pub max_tools_per_turn: usize,
    pub every_order: bool,
    pub values: Vec<(String, String, Vec<Value>)>,
    pub responses: Vec<Turn>,
    pub generated_responses: bool,
}

/// Why the turns cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TurnsError {
    TooMany {
        tool: Option<String>,
        at: String,
        count: usize,
    },
    Empty,
}

/// The most turns one model call may branch into.
pub const MAX_TURNS: usize = 100_000;

/// The argument objects a tool may be called with, simplest first.
pub(crate) fn argument_sets(
    tool: &ToolDefinition,
    values: &[(String, String, Vec<Value>)],
) -> Result<Vec<Value>, TooMany> {
    let required: Vec<&str> = tool.required();
    let empty = Map::new();
    let properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut per_property: Vec<(&str, Vec<Option<Value>>)> = Vec::new();
    for (name, schema) in properties {
        let mut options: Vec<Option<Value>> = Vec::new();
        if !required.contains(&name.as_str()) {
            options.push(None);
        }
        let given = values
            .iter()
            .find(|(t, p, _)| *t == tool.name && p == name)
            .map(|(_, _, v)| v.clone());
        let drawn = match given {
            Some(v) => v,
            None => values_of(schema, name)?,
        };
        options.extend(drawn.into_iter().map(Some));
        per_property.push((name.as_str(), options));
    }
    combinations(&per_property, &tool.name)
}

/// A problem with a value set: the parameter is unknown, or a value breaks its schema.
pub(crate) fn check_value_set(
    tool: &ToolDefinition,
    parameter: &str,
    values: &[Value],
) -> Result<(), String> {
    let names = tool.parameter_names();
    if !names.contains(&parameter) {
        return Err(if names.is_empty() {
            format!("\"{}\" has no parameters", tool.name)
        } else {
            format!(
                "\"{}\" has no parameter \"{parameter}\"; its parameters: {}",
                tool.name,
                names.join(", ")
            )
        });
    }
    if values.is_empty() {
        return Err(format!(
            "the value set of \"{}\".\"{parameter}\" is empty: give at least one value",
            tool.name
        ));
    }
    for value in values {
        let mut arguments = Map::new();
        arguments.insert(parameter.to_string(), value.clone());
        let problems: Vec<String> = check_arguments(tool, &Value::Object(arguments))
            .into_iter()
            .filter(|p| {
                !matches!(
                    p,
                    crate::agent::arguments::ArgumentProblem::MissingRequired(_)
                )
            })
            .map(|p| p.to_string())
            .collect();
        if !problems.is_empty() {
            return Err(format!(
                "the value {value} for \"{}\".\"{parameter}\" does not fit the tool's schema: {}",
                tool.name,
                problems.join("; ")
            ));
        }
    }
    Ok(())
}

/// The answers generated from a response format: every value of a JSON schema, or one text.
fn generated_responses(format: &ResponseFormat) -> Result<Vec<Turn>, TooMany> {
    match format {
        ResponseFormat::Json {
            schema: Some(schema),
            ..
        } => Ok(values_of(&schema.to_json(), "")?
            .into_iter()
            .map(Turn::respond_json)
            .collect()),
        ResponseFormat::Json { schema: None, .. } => Ok(vec![Turn::respond_json(
            serde_json::json!({"response": "response"}),
        )]),
        ResponseFormat::Text { .. } => Ok(vec![Turn::respond_text("response")]),
    }
}

/// Every turn at a model call whose tools are `offered` and whose response format is `format`.
pub(crate) fn turns(
    space: &TurnSpace,
    offered: &[ToolDefinition],
    format: &ResponseFormat,
) -> Result<Vec<Turn>, TurnsError> {
    let mut turns: Vec<Turn> = space.responses.clone();
    if space.generated_responses {
        let generated = generated_responses(format).map_err(|e| TurnsError::TooMany {
            tool: None,
            at: if e.at.is_empty() {
                "the response".into()
            } else {
                e.at
            },
            count: e.count,
        })?;
        for turn in generated {
            if !turns.contains(&turn) {
                turns.push(turn);
            }
        }
    }
    // Each callable tool's argument sets, in document order.
    let mut callable: Vec<(&str, Vec<Value>)> = Vec::new();
    for name in &space.tools {
        let Some(tool) = offered.iter().find(|t| t.name == *name) else {
            continue;
        };
        let sets = argument_sets(tool, &space.values).map_err(|e| TurnsError::TooMany {
            tool: Some(name.clone()),
            at: e.at,
            count: e.count,
        })?;
        callable.push((name, sets));
    }
    let max = space.max_tools_per_turn.min(callable.len());
    for size in 1..=max {
        for chosen in subsets(callable.len(), size) {
            let orders = if space.every_order {
                permutations(&chosen)
            } else {
                vec![chosen.clone()]
            };
            for order in orders {
                push_calls(&mut turns, &callable, &order)?;
            }
        }
    }
    if turns.is_empty() {
        return Err(TurnsError::Empty);
    }
    Ok(turns)
}

/// Every combination of the arguments of the tools in `order`, one turn each.
fn push_calls(
    turns: &mut Vec<Turn>,
    callable: &[(&str, Vec<Value>)],
    order: &[usize],
) -> Result<(), TurnsError> {
    let mut count: usize = 1;
    for &i in order {
        count = count.saturating_mul(callable[i].1.len());
    }
    if turns.len().saturating_add(count) > MAX_TURNS {
        return Err(TurnsError::TooMany {
            tool: None,
            at: "the turns of one model call".into(),
            count: turns.len().saturating_add(count),
        });
    }
    let mut calls: Vec<Vec<ToolCall>> = vec![Vec::new()];
    for &i in order {
        let (name, sets) = &callable[i];
        let mut next = Vec::with_capacity(calls.len() * sets.len());
        for prefix in &calls {
            for arguments in sets {
                let mut c = prefix.clone();
                c.push(ToolCall::new(*name, arguments.clone()));
                next.push(c);
            }
        }
        calls = next;
    }
    turns.extend(calls.into_iter().map(Turn::tool_calls));
    Ok(())
}

/// The `size`-element subsets of `0..n`, in lexicographic order.
fn subsets(n: usize, size: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut current = Vec::with_capacity(size);
    fn go(
        start: usize,
        n: usize,
        size: usize,
        current: &mut Vec<usize>,
        all: &mut Vec<Vec<usize>>,
    ) {
        if current.len() == size {
            all.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            go(i + 1, n, size, current, all);
            current.pop();
        }
    }
    go(0, n, size, &mut current, &mut all);
    all
}

/// The orders of `items`, the given order first, then lexicographic by position.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            all.push(tail);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Value) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: None,
            input_schema: schema,
        }
    }

    fn template_tools() -> Vec<ToolDefinition> {
        vec![
            tool(
                "search-kb",
                json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
            ),
            tool(
                "lookup-order",
                json!({"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"]}),
            ),
            tool(
                "create-ticket",
                json!({"type": "object", "properties": {"summary": {"type": "string"}, "priority": {"type": "string", "enum": ["low", "normal", "high"]}}, "required": ["summary"]}),
            ),
        ]
    }

    fn space(max: usize) -> TurnSpace {
        TurnSpace {
            tools: vec![
                "search-kb".into(),
                "lookup-order".into(),
                "create-ticket".into(),
            ],
            max_tools_per_turn: max,
            every_order: true,
            values: Vec::new(),
            responses: Vec::new(),
            generated_responses: true,
        }
    }

    fn format() -> ResponseFormat {
        ResponseFormat::Json {
            schema: Some(
                json!({"type": "object", "properties": {"answer": {"type": "string"}, "resolved": {"type": "boolean"}}, "required": ["answer", "resolved"]})
                    .into(),
            ),
            schema_name: None,
        }
    }

    #[test]
    fn the_templates_turns_simplest_first() {
        let all = turns(&space(2), &template_tools(), &format()).unwrap();
        // 2 answers; one tool: 1 + 1 + 4 (priority left out, low, normal, high); two tools in
        // each order: 2 × (1·1 + 1·4 + 1·4) = 18.
        assert_eq!(all.len(), 2 + 6 + 18);
        let described: Vec<String> = all
            .iter()
            .take(5)
            .map(super::super::fork::describe_turn)
            .collect();
        insta::assert_debug_snapshot!(described);
    }

    #[test]
    fn document_order_only_halves_the_pairs() {
        let mut s = space(2);
        s.every_order = false;
        assert_eq!(
            turns(&s, &template_tools(), &format()).unwrap().len(),
            2 + 6 + 9
        );
    }

    #[test]
    fn value_sets_replace_the_schemas_values_and_are_checked() {
        let tools = template_tools();
        let mut s = space(1);
        s.values = vec![(
            "create-ticket".into(),
            "priority".into(),
            vec![json!("high")],
        )];
        assert_eq!(turns(&s, &tools, &format()).unwrap().len(), 2 + 1 + 1 + 2);
        assert_eq!(
            check_value_set(&tools[2], "priority", &[json!("urgent")]).unwrap_err(),
            "the value \"urgent\" for \"create-ticket\".\"priority\" does not fit the tool's schema: \"priority\" must be one of \"low\", \"normal\", \"high\", got \"urgent\""
        );
        assert_eq!(
            check_value_set(&tools[2], "prio", &[json!("low")]).unwrap_err(),
            "\"create-ticket\" has no parameter \"prio\"; its parameters: summary, priority"
        );
    }

    #[test]
    fn subsets_and_orders() {
        assert_eq!(subsets(3, 2), vec![vec![0, 1], vec![0, 2], vec![1, 2]]);
        assert_eq!(permutations(&[0, 2]), vec![vec![0, 2], vec![2, 0]]);
        assert_eq!(permutations(&[0, 1, 2]).len(), 6);
    }
}
