//! The typical Zeebe expressions the FEEL benches measure (`benches/feel.rs`) and
//! `examples/feel_typical` repeats for instruction counts, with the variables they read.

use serde_json::{Map, Value, json};

/// (name, expression): conditions, mappings, a fromAi() call, a context build, a filter, a
/// loop, date arithmetic.
pub const TYPICAL_EXPRESSIONS: &[(&str, &str)] = &[
    ("condition", "amount > 1000"),
    (
        "condition-and",
        "order.total >= 100 and order.country = \"DE\"",
    ),
    (
        "condition-null-safe",
        "is defined(approved) and approved = true",
    ),
    ("mapping-path", "order.customer.name"),
    (
        "mapping-string",
        "\"Order \" + order.id + \" for \" + order.customer.name",
    ),
    (
        "from-ai",
        "fromAi(toolCall.email, \"The recipient's email address\", \"string\")",
    ),
    (
        "context-build",
        "{id: order.id, total: order.total * 1.19, items: count(order.items), first: order.items[1].sku}",
    ),
    ("filter", "order.items[price > 10].sku"),
    (
        "sum-for",
        "sum(for item in order.items return item.price * item.quantity)",
    ),
    (
        "date",
        "date and time(order.created) + duration(\"P3D\") > date and time(\"2024-01-01T00:00:00Z\")",
    ),
];

/// The variables the expressions read, as the engine holds them: JSON, converted on lookup (a
/// path of context entries converts only its end, `Variables::get_entry`).
pub fn typical_variables() -> Map<String, Value> {
    let v = json!({
        "amount": 1500,
        "approved": true,
        "order": {
            "id": "A-1001",
            "total": 250.5,
            "country": "DE",
            "created": "2024-03-01T10:00:00Z",
            "customer": {"name": "Ada", "email": "ada@example.com"},
            "items": [
                {"sku": "X-1", "price": 5, "quantity": 2},
                {"sku": "X-2", "price": 20.5, "quantity": 1},
                {"sku": "X-3", "price": 12, "quantity": 4}
            ]
        },
        "toolCall": {"email": "bob@example.com"}
    });
    v.as_object().expect("object").clone()
}
