//! MCP clients' names and wire forms, as the connector writes them: a listed tool is offered
//! as `MCP_<client>___<tool>`, a call of one becomes the client's `tools/call`, and a single
//! text block of its result reaches the model as text.

use baton_engine::runtime::SharedJson;
use serde_json::{Value, json};

/// `MCP_<client>___<tool>` of a known MCP client: (client, tool).
pub(super) fn mcp_tool<'n>(name: &'n str, clients: &[String]) -> Option<(&'n str, &'n str)> {
    let rest = name.strip_prefix("MCP_")?;
    let (client, tool) = rest.split_once("___")?;
    clients
        .iter()
        .any(|c| c == client)
        .then_some((client, tool))
}

/// The client's `toolCall` for a call of one of its tools.
pub(super) fn mcp_tool_call(id: &str, client: &str, tool: &str, arguments: Value) -> SharedJson {
    SharedJson::new(json!({
        "_meta": {"id": id, "name": client},
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }))
}

/// An MCP call result as the model sees it: the text of a single text block, else the content list.
pub(super) fn mcp_result_content(content: Value) -> Value {
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
