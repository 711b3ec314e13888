//! The benches' typical Zeebe expressions, parsed and evaluated `N` times each, for instruction
//! counts under callgrind (`valgrind --tool=callgrind target/release/examples/typical [NAME] [N]`).
use std::hint::black_box;

use baton_feel::{Env, Expression};
use serde_json::json;

const EXPRESSIONS: &[(&str, &str)] = &[
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args.first().filter(|a| *a != "all").cloned();
    let n: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
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
    let vars = v.as_object().expect("object").clone();
    let env = Env::default();
    for (name, src) in EXPRESSIONS {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        for _ in 0..n {
            black_box(Expression::parse(black_box(src)).expect("parses"));
        }
        let e = Expression::parse(src).expect("parses");
        for _ in 0..n {
            black_box(e.evaluate(black_box(&vars), &env));
        }
        println!("{name}: {}", e.evaluate(&vars, &env).value());
    }
}
