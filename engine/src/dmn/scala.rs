//! Values as dmn-scala prints them in its failure messages: Scala's `toString` of its lists and
//! maps around feel-scala's values (`List(Map(discount -> 25), Map(discount -> 20))`).
//!
//! Messages such as "multiple values aren't allowed for UNIQUE hit policy. found: '...'" embed
//! these texts, and Zeebe passes them on in incidents and `evaluationFailureMessage`.

use std::fmt::Write;

use baton_feel::Value;

use super::model::Row;

/// A value as feel-scala's `Val.toString` prints it (since feel-scala 1.19 the FEEL text:
/// `25`, `"gold"`, `null`, `[1, 2]`, `{a:1}`).
pub(crate) fn val(value: &Value) -> String {
    value.to_string()
}

fn write_val(out: &mut String, value: &Value) {
    let _ = write!(out, "{value}");
}

/// The output values of matched rules as dmn-scala prints its `List[Map[String, Val]]`.
pub(crate) fn rule_outputs(rows: &[Row]) -> String {
    let mut out = String::from("List(");
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str("Map(");
        for (j, (name, value)) in row.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            out.push_str(name.as_deref().unwrap_or("null"));
            out.push_str(" -> ");
            write_val(&mut out, value);
        }
        out.push(')');
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn values_print_like_scala_collections_of_feel_values() {
        assert_eq!(val(&Value::int(25)), "25");
        assert_eq!(val(&Value::string("gold")), "\"gold\"");
        assert_eq!(val(&Value::Null), "null");
        assert_eq!(val(&Value::list(vec![Value::Boolean(true)])), "[true]");
        let rows = vec![
            vec![(Some(Arc::from("discount")), Value::int(25))],
            vec![(Some(Arc::from("discount")), Value::int(20))],
        ];
        assert_eq!(
            rule_outputs(&rows),
            "List(Map(discount -> 25), Map(discount -> 20))"
        );
    }
}
