//! Searches over the read model, one algebra for every resource: a filter on the result's own
//! fields (a value for equality, or the operators `$eq $neq $exists $in $notIn $like $gt $gte
//! $lt $lte`), a sort (`[{field, order}]`, the key last as tiebreak), and a page (`limit`,
//! `from`, or the cursors `after`/`before` of an earlier answer).

use std::cmp::Ordering;

use baton_rest::search::{
    DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, SearchQueryPageResponse, SearchQueryRequest,
    SearchQueryResult,
};
use serde_json::Value;

/// What a resource's search allows.
pub(crate) struct Searchable<'a> {
    /// The fields a filter and a sort may name (the result's fields).
    pub fields: &'a [&'a str],
    /// The field that orders equal items (the entity's key).
    pub key: &'a str,
}

/// Filters, sorts and pages `items` (the results as JSON objects). An error is the detail of
/// a 400 answer.
pub(crate) fn search(
    items: Vec<Value>,
    request: &SearchQueryRequest,
    searchable: &Searchable<'_>,
) -> Result<SearchQueryResult<Value>, String> {
    let filter = request.filter.clone().unwrap_or_default();
    for (field, condition) in &filter {
        if !searchable.fields.contains(&field.as_str()) {
            return Err(format!(
                "Request property [filter.{field}] cannot be parsed"
            ));
        }
        check_condition(field, condition)?;
    }
    let mut sort = Vec::new();
    for s in &request.sort {
        if !searchable.fields.contains(&s.field.as_str()) {
            return Err(format!("Unknown sortBy: {}", s.field));
        }
        let descending = match s.order.as_deref().map(str::to_ascii_uppercase).as_deref() {
            None | Some("ASC") => false,
            Some("DESC") => true,
            Some(other) => {
                return Err(format!(
                    "The value for sort.order is '{other}' but must be one of ASC, DESC"
                ));
            }
        };
        sort.push((s.field.as_str(), descending));
    }
    let mut matched: Vec<Value> = items
        .into_iter()
        .filter(|item| {
            filter
                .iter()
                .all(|(f, c)| holds(item.get(f).unwrap_or(&Value::Null), c))
        })
        .collect();
    matched.sort_by(|a, b| {
        for (field, descending) in &sort {
            let o = compare(a.get(*field), b.get(*field));
            if o != Ordering::Equal {
                return if *descending { o.reverse() } else { o };
            }
        }
        compare(a.get(searchable.key), b.get(searchable.key))
    });
    page(matched, request)
}

fn page(
    matched: Vec<Value>,
    request: &SearchQueryRequest,
) -> Result<SearchQueryResult<Value>, String> {
    let p = &request.page;
    let limit = p.limit.unwrap_or(DEFAULT_PAGE_LIMIT);
    if limit > MAX_PAGE_LIMIT {
        return Err(format!(
            "The value for page.limit is '{limit}' but must be less than or equal to {MAX_PAGE_LIMIT}"
        ));
    }
    let cursor = |text: &str, name: &str| {
        text.strip_prefix("i")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| format!("The value for page.{name} is '{text}' but must be a cursor of an earlier answer"))
    };
    let total = matched.len();
    let (start, end) = match (&p.after, &p.before, p.from) {
        (Some(after), _, _) => {
            let s = (cursor(after, "after")? + 1).min(total);
            (s, (s + limit).min(total))
        }
        (None, Some(before), _) => {
            let e = cursor(before, "before")?.min(total);
            (e.saturating_sub(limit), e)
        }
        (None, None, from) => {
            let s = from.unwrap_or(0).min(total);
            (s, (s + limit).min(total))
        }
    };
    let items: Vec<Value> = matched.into_iter().skip(start).take(end - start).collect();
    let (start_cursor, end_cursor) = if items.is_empty() {
        (None, None)
    } else {
        (Some(format!("i{start}")), Some(format!("i{}", end - 1)))
    };
    Ok(SearchQueryResult {
        items,
        page: SearchQueryPageResponse {
            total_items: total as u64,
            has_more_total_items: false,
            start_cursor,
            end_cursor,
        },
    })
}

const OPERATORS: [&str; 10] = [
    "$eq", "$neq", "$exists", "$in", "$notIn", "$like", "$gt", "$gte", "$lt", "$lte",
];

fn check_condition(field: &str, condition: &Value) -> Result<(), String> {
    let Value::Object(ops) = condition else {
        return Ok(());
    };
    for (op, operand) in ops {
        let fine = match op.as_str() {
            "$in" | "$notIn" => operand.is_array(),
            "$exists" => operand.is_boolean(),
            "$like" => operand.is_string(),
            o => OPERATORS.contains(&o),
        };
        if !fine {
            return Err(format!(
                "Request property [filter.{field}.{op}] cannot be parsed"
            ));
        }
    }
    Ok(())
}

/// Whether a field's value meets a condition.
fn holds(value: &Value, condition: &Value) -> bool {
    let Value::Object(ops) = condition else {
        return equal(value, condition);
    };
    ops.iter().all(|(op, operand)| match op.as_str() {
        "$eq" => equal(value, operand),
        "$neq" => !equal(value, operand),
        "$exists" => operand.as_bool() == Some(!value.is_null()),
        "$in" => operand
            .as_array()
            .is_some_and(|a| a.iter().any(|o| equal(value, o))),
        "$notIn" => operand
            .as_array()
            .is_some_and(|a| !a.iter().any(|o| equal(value, o))),
        "$like" => match (value.as_str(), operand.as_str()) {
            (Some(v), Some(pattern)) => like(v, pattern),
            _ => false,
        },
        "$gt" => !value.is_null() && compare(Some(value), Some(operand)) == Ordering::Greater,
        "$gte" => !value.is_null() && compare(Some(value), Some(operand)) != Ordering::Less,
        "$lt" => !value.is_null() && compare(Some(value), Some(operand)) == Ordering::Less,
        "$lte" => !value.is_null() && compare(Some(value), Some(operand)) != Ordering::Greater,
        _ => false,
    })
}

/// Equality as a filter means it: enums in any case, numbers by value.
fn equal(value: &Value, operand: &Value) -> bool {
    match (value, operand) {
        (Value::String(a), Value::String(b)) => a == b || (is_enum(a) && a.eq_ignore_ascii_case(b)),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        // A key filter may come as a number from a lenient client.
        (Value::String(a), Value::Number(b)) => *a == b.to_string(),
        _ => value == operand,
    }
}

fn is_enum(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
}

/// `*` any run of characters, `?` one; `\` escapes.
fn like(value: &str, pattern: &str) -> bool {
    let v: Vec<char> = value.chars().collect();
    let mut p: Vec<(char, bool)> = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => p.push((chars.next().unwrap_or('\\'), false)),
            '*' | '?' => p.push((c, true)),
            _ => p.push((c, false)),
        }
    }
    // Dynamic programming over (pattern, value) prefixes: linear in their product.
    let mut row = vec![false; v.len() + 1];
    row[0] = true;
    for (c, wild) in &p {
        let mut next = vec![false; v.len() + 1];
        for i in 0..=v.len() {
            next[i] = match (c, wild) {
                ('*', true) => row[i] || (i > 0 && next[i - 1]),
                ('?', true) => i > 0 && row[i - 1],
                _ => i > 0 && row[i - 1] && v[i - 1] == *c,
            };
        }
        row = next;
    }
    row[v.len()]
}

/// Orders JSON values: numbers by value, keys (digit strings) by value, times and text as
/// text; `null` last.
fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    let a = a.unwrap_or(&Value::Null);
    let b = b.unwrap_or(&Value::Null);
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Value::String(x), Value::String(y)) => match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            _ => x.cmp(y),
        },
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => a.to_string().cmp(&b.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn like_patterns() {
        for (value, pattern, expected) in [
            ("order-lookup", "order*", true),
            ("order-lookup", "*lookup", true),
            ("order-lookup", "order?lookup", true),
            ("order-lookup", "order", false),
            ("a*b", "a\\*b", true),
            ("axb", "a\\*b", false),
            ("", "*", true),
        ] {
            assert_eq!(like(value, pattern), expected, "{value} {pattern}");
        }
    }

    #[test]
    fn filter_sort_and_cursor_pages() {
        let items: Vec<Value> = (1..=5)
            .map(|i| json!({"key": i.to_string(), "state": if i % 2 == 0 { "ACTIVE" } else { "COMPLETED" }, "n": i}))
            .collect();
        let searchable = Searchable {
            fields: &["key", "state", "n"],
            key: "key",
        };
        let request: SearchQueryRequest = serde_json::from_value(json!({
            "filter": {"state": {"$in": ["COMPLETED"]}, "n": {"$gte": 2}},
            "sort": [{"field": "n", "order": "desc"}],
            "page": {"limit": 1}
        }))
        .unwrap();
        let first = search(items.clone(), &request, &searchable).unwrap();
        assert_eq!(first.items, vec![items[4].clone()]);
        assert_eq!(first.page.total_items, 2);
        let mut next = request.clone();
        next.page.after = first.page.end_cursor.clone();
        let second = search(items.clone(), &next, &searchable).unwrap();
        assert_eq!(second.items, vec![items[2].clone()]);
        let mut bad = request;
        bad.sort[0].field = "nope".into();
        assert_eq!(
            search(items, &bad, &searchable).unwrap_err(),
            "Unknown sortBy: nope"
        );
    }
}
