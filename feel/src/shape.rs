//! What a caller can know about an expression without evaluating it: its [`Shape`] (a constant,
//! a variable path, a context of paths, a comparison of a path with a literal) and the variables
//! it reads. The engine answers the common shapes from its own JSON, skipping the conversion
//! to FEEL values and back; the answers it gives must be FEEL's, which is why the analysis lives
//! here, beside the grammar it reads.

use std::sync::Arc;

use crate::ast::{Args, CmpOp, Expr, ExprKind, Iteration};
use crate::value::Value;

/// The most keys a [`VariablePath`] has.
pub const MAX_PATH_KEYS: usize = 8;

/// The most entries a [`Shape::ContextOfPaths`] has.
pub const MAX_CONTEXT_PARTS: usize = 16;

/// What kind of expression it is, for a caller that answers some kinds itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Reads nothing but its own literals: no variable, no function call, no input (`?`), no
    /// iteration or filter. Its value never changes.
    Constant,
    /// `name` or `name.key1.key2…` (up to [`MAX_PATH_KEYS`] keys). Zeebe's `fromAi(path,
    /// "description", "type", {schema}, {options})` is its first argument (the function returns
    /// it unchanged) when the others are plain literals, which evaluate without warnings.
    Path(VariablePath),
    /// A context literal (1 to [`MAX_CONTEXT_PARTS`] entries, keys distinct) whose values are
    /// variable paths that do not start at a key of the context, or `now()` (when no key is
    /// named `now`): `{id: toolCall._meta.id, content: toolCallResult, completedAt: now()}`.
    ContextOfPaths(Vec<(Arc<str>, ContextPart)>),
    /// `path = literal` or `path != literal` (either way round), the literal a boolean, a
    /// string or an integer that fits 64 bits.
    PathComparison(PathComparison),
    /// Anything else.
    General,
}

/// A variable and the keys of a path into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariablePath {
    /// The variable.
    pub root: Arc<str>,
    /// The keys into it, outermost first (none for the variable itself).
    pub keys: Vec<Arc<str>>,
}

/// A value of a [`Shape::ContextOfPaths`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContextPart {
    /// A variable path.
    Path(VariablePath),
    /// `now()`.
    Now,
}

/// A [`Shape::PathComparison`].
#[derive(Clone, Debug, PartialEq)]
pub struct PathComparison {
    /// The path compared.
    pub path: VariablePath,
    /// The literal: a boolean, a string or a number that is an integer of 64 bits.
    pub literal: Value,
    /// `!=` rather than `=`.
    pub negated: bool,
}

/// The shape of an expression's tree.
pub(crate) fn shape(e: &Expr) -> Shape {
    if is_constant(e) {
        return Shape::Constant;
    }
    if let Some(path) = variable_path(e) {
        return Shape::Path(path);
    }
    if let Some(parts) = context_of_paths(e) {
        return Shape::ContextOfPaths(parts);
    }
    if let Some(comparison) = path_comparison(e) {
        return Shape::PathComparison(comparison);
    }
    Shape::General
}

fn is_constant(e: &Expr) -> bool {
    use ExprKind::*;
    match &e.kind {
        Const(_) => true,
        List(_) | Context(_) | Path(..) | Neg(_) | InstanceOf(..) | Arith(..) | Compare(..)
        | And(..) | Or(..) | If(..) | Between(..) => e.children().all(is_constant),
        _ => false,
    }
}

fn variable_path(mut e: &Expr) -> Option<VariablePath> {
    if let ExprKind::Call(function, Args::Positional(args)) = &e.kind
        && &**function == "fromAi"
        && (1..=5).contains(&args.len())
        && args[1..].iter().all(plain_literal)
    {
        e = &args[0];
    }
    path_of(e)
}

/// `name` or `name.key1.key2…` (up to [`MAX_PATH_KEYS`] keys).
fn path_of(mut at: &Expr) -> Option<VariablePath> {
    let mut keys = Vec::new();
    loop {
        match &at.kind {
            ExprKind::Path(x, key) if keys.len() < MAX_PATH_KEYS => {
                keys.push(key.clone());
                at = x;
            }
            ExprKind::Name(root) => {
                keys.reverse();
                return Some(VariablePath {
                    root: root.clone(),
                    keys,
                });
            }
            _ => return None,
        }
    }
}

/// A literal whose evaluation cannot fail or warn: a constant, or a list or context (with
/// distinct keys) of such literals.
fn plain_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::List(_) => e.children().all(plain_literal),
        ExprKind::Context(entries) => entries.iter().enumerate().all(|(i, (key, value))| {
            plain_literal(value) && entries[..i].iter().all(|(earlier, _)| earlier != key)
        }),
        _ => false,
    }
}

fn context_of_paths(e: &Expr) -> Option<Vec<(Arc<str>, ContextPart)>> {
    let ExprKind::Context(entries) = &e.kind else {
        return None;
    };
    if entries.is_empty() || entries.len() > MAX_CONTEXT_PARTS {
        return None;
    }
    let is_key = |name: &str| entries.iter().any(|(key, _)| &**key == name);
    let mut parts = Vec::with_capacity(entries.len());
    for (i, (key, value)) in entries.iter().enumerate() {
        if entries[..i].iter().any(|(earlier, _)| earlier == key) {
            return None;
        }
        let part = match &value.kind {
            // A context entry named `now` holding a function would be called instead.
            ExprKind::Call(function, Args::Positional(args))
                if &**function == "now" && args.is_empty() && !is_key("now") =>
            {
                ContextPart::Now
            }
            _ => {
                let path = path_of(value)?;
                // An entry reads the context's earlier entries before the variables.
                if is_key(&path.root) {
                    return None;
                }
                ContextPart::Path(path)
            }
        };
        parts.push((key.clone(), part));
    }
    Some(parts)
}

fn path_comparison(e: &Expr) -> Option<PathComparison> {
    let ExprKind::Compare(op, a, b) = &e.kind else {
        return None;
    };
    let negated = match op {
        CmpOp::Eq => false,
        CmpOp::Ne => true,
        _ => return None,
    };
    let (path, literal) = match (&a.kind, &b.kind) {
        (_, ExprKind::Const(literal)) => (path_of(a)?, literal),
        (ExprKind::Const(literal), _) => (path_of(b)?, literal),
        _ => return None,
    };
    let comparable = match literal {
        Value::Boolean(_) | Value::String(_) => true,
        Value::Number(_) => literal.to_json().is_i64(),
        _ => false,
    };
    comparable.then(|| PathComparison {
        path,
        literal: literal.clone(),
        negated,
    })
}

/// The free variable names of an expression: the roots of paths, without the names bound by
/// `for`, `some`, `every`, function parameters, context entries and `item` in filters, in
/// first-use order.
pub(crate) fn referenced_variables(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    free_names(e, &mut Vec::new(), &mut out);
    out
}

fn free_names<'e>(e: &'e Expr, bound: &mut Vec<&'e str>, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => {
            if !bound.contains(&&**n) && !out.iter().any(|o| **o == **n) {
                out.push(n.to_string());
            }
        }
        ExprKind::Filter(list, condition) => {
            free_names(list, bound, out);
            // Inside a filter, `item` and the item's fields are not variables.
            bound.push("item");
            free_names(condition, bound, out);
            bound.pop();
        }
        ExprKind::Context(entries) => {
            let depth = bound.len();
            for (key, value) in entries {
                free_names(value, bound, out);
                bound.push(key);
            }
            bound.truncate(depth);
        }
        ExprKind::For(iterations, body)
        | ExprKind::Some(iterations, body)
        | ExprKind::Every(iterations, body) => {
            let depth = bound.len();
            for (name, iteration) in iterations {
                match iteration {
                    Iteration::List(x) => free_names(x, bound, out),
                    Iteration::Range(a, b) => {
                        free_names(a, bound, out);
                        free_names(b, bound, out);
                    }
                }
                bound.push(name);
            }
            free_names(body, bound, out);
            bound.truncate(depth);
        }
        ExprKind::FunctionDef(params, body) => {
            let depth = bound.len();
            bound.extend(params.iter().map(|p| &**p));
            free_names(body, bound, out);
            bound.truncate(depth);
        }
        _ => e.children().for_each(|child| free_names(child, bound, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Expression;

    fn shape_of(text: &str) -> Shape {
        Expression::parse(text).unwrap().shape()
    }

    fn path(root: &str, keys: &[&str]) -> VariablePath {
        VariablePath {
            root: root.into(),
            keys: keys.iter().map(|k| Arc::from(*k)).collect(),
        }
    }

    #[test]
    fn constants_read_only_their_literals() {
        for text in [
            "20",
            r#""a" + "b""#,
            r#"{type: "object", n: -1}"#,
            "1 + \"a\"",
        ] {
            assert_eq!(shape_of(text), Shape::Constant, "{text}");
        }
        // `{a: 1, b: a}` reads an entry: not a constant.
        for text in ["x + 1", "now()", "{a: 1, b: a}", "[1, 2][item > 1]", "?"] {
            assert_ne!(shape_of(text), Shape::Constant, "{text}");
        }
    }

    #[test]
    fn paths_and_from_ai_with_plain_literals() {
        assert_eq!(shape_of("a"), Shape::Path(path("a", &[])));
        assert_eq!(shape_of("a.b.c"), Shape::Path(path("a", &["b", "c"])));
        assert_eq!(
            shape_of(r#"fromAi(toolCall.p, "d", "string", {enum: ["a", "b"]}, {required: false})"#),
            Shape::Path(path("toolCall", &["p"]))
        );
        assert_eq!(
            shape_of("a.b.c.d.e.f.g.h.i"),
            Shape::Path(path("a", &["b", "c", "d", "e", "f", "g", "h", "i"]))
        );
        assert_eq!(shape_of("a.b.c.d.e.f.g.h.i.j"), Shape::General);
        assert_eq!(
            shape_of(r#"fromAi(toolCall.q, description)"#),
            Shape::General
        );
        assert_eq!(
            shape_of(r#"fromAi(toolCall.q, "d", "t", {a: 1, a: 2})"#),
            Shape::General
        );
        assert_eq!(shape_of(r#"fromAi(value: toolCall.q)"#), Shape::General);
    }

    #[test]
    fn contexts_of_paths_and_now() {
        assert_eq!(
            shape_of("{id: call._meta.id, at: now()}"),
            Shape::ContextOfPaths(vec![
                (
                    "id".into(),
                    ContextPart::Path(path("call", &["_meta", "id"]))
                ),
                ("at".into(), ContextPart::Now),
            ])
        );
        for text in [
            "{a: x, b: a.y}",
            "{a: x, a: y}",
            "{a: today()}",
            "{now: x, t: now()}",
        ] {
            assert_eq!(shape_of(text), Shape::General, "{text}");
        }
    }

    #[test]
    fn comparisons_of_a_path_with_a_literal() {
        let comparison = |text: &str| match shape_of(text) {
            Shape::PathComparison(c) => Some((c.path, c.literal, c.negated)),
            _ => None,
        };
        assert_eq!(
            comparison("true = a.b"),
            Some((path("a", &["b"]), Value::Boolean(true), false))
        );
        assert_eq!(
            comparison(r#"s != "x""#),
            Some((path("s", &[]), Value::string("x"), true))
        );
        assert_eq!(comparison("n = 3").map(|c| c.1), Some(Value::int(3)));
        assert_eq!(comparison("n = 3.5"), None);
        assert_eq!(comparison("n < 3"), None);
        assert_eq!(comparison("n = null"), None);
    }

    #[test]
    fn referenced_variables_are_the_free_names() {
        let vars = |text: &str| Expression::parse(text).unwrap().referenced_variables();
        assert_eq!(vars("x > 1 and y < 5"), ["x", "y"]);
        assert_eq!(
            vars("for i in items return i * factor"),
            ["items", "factor"]
        );
        assert_eq!(
            vars("some o in orders satisfies o.total > limit"),
            ["orders", "limit"]
        );
        assert_eq!(vars("orders[item.total > limit]"), ["orders", "limit"]);
        assert_eq!(vars("{a: base, b: a + 1}.b"), ["base"]);
        assert_eq!(vars("function(a) a + b"), ["b"]);
        assert_eq!(vars("for i in 1..n, j in 1..i return j"), ["n"]);
    }
}
