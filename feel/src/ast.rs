//! The syntax tree of a FEEL expression; every node carries its byte span in the source.

use std::sync::Arc;

use crate::value::Value;

/// A byte range `start..end` in the expression text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// An expression node.
#[derive(Debug)]
pub struct Expr {
    /// Where the node is in the source.
    pub span: Span,
    /// What it is.
    pub kind: ExprKind,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// Whether the operator holds for two values ordered so (`Less` for `a < b`).
    #[inline]
    pub fn holds(self, o: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CmpOp::Eq => o == Equal,
            CmpOp::Ne => o != Equal,
            CmpOp::Lt => o == Less,
            CmpOp::Le => o != Greater,
            CmpOp::Gt => o == Greater,
            CmpOp::Ge => o != Less,
        }
    }
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `**`
    Pow,
}

/// What a `for`/`some`/`every` iterator walks over.
#[derive(Debug)]
pub enum Iteration {
    /// `x in list`
    List(Expr),
    /// `x in 1..n`
    Range(Expr, Expr),
}

/// Arguments of a function call.
#[derive(Debug)]
pub enum Args {
    /// `f(1, 2)`
    Positional(Vec<Expr>),
    /// `f(a: 1, b: 2)`
    Named(Vec<(Arc<str>, Expr)>),
}

/// Node kinds.
#[derive(Debug)]
pub enum ExprKind {
    /// A constant: `null`, booleans, numbers, strings, temporal literals (already parsed).
    Const(Value),
    /// `?`, the input value of a unary test.
    Input,
    /// A variable reference.
    Name(Arc<str>),
    /// `x.name`
    Path(Box<Expr>, Arc<str>),
    /// `list[condition]` or `list[index]`
    Filter(Box<Expr>, Box<Expr>),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `{a: 1, b: a + 1}`
    Context(Vec<(Arc<str>, Expr)>),
    /// A range value `[a..b)` (function arguments only).
    Range {
        /// Lower end.
        start: Box<Expr>,
        /// `[` or not.
        start_closed: bool,
        /// Upper end.
        end: Box<Expr>,
        /// `]` or not.
        end_closed: bool,
    },
    /// `-x`
    Neg(Box<Expr>),
    /// `a + b`, ...
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    /// `a < b`, ...
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// `a and b`
    And(Box<Expr>, Box<Expr>),
    /// `a or b`
    Or(Box<Expr>, Box<Expr>),
    /// `x between a and b`
    Between(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `x in tests`: the tests are evaluated with `x` as input.
    In(Box<Expr>, Box<Expr>),
    /// `x instance of type`
    InstanceOf(Box<Expr>, Arc<str>),
    /// `if c then a else b`
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `for x in xs, y in 1..n return body`
    For(Vec<(Arc<str>, Iteration)>, Box<Expr>),
    /// `some x in xs satisfies c`
    Some(Vec<(Arc<str>, Iteration)>, Box<Expr>),
    /// `every x in xs satisfies c`
    Every(Vec<(Arc<str>, Iteration)>, Box<Expr>),
    /// `function(a, b) body`
    FunctionDef(Vec<Arc<str>>, Arc<Expr>),
    /// `f(args)` by name
    Call(Arc<str>, Args),
    /// `ctx.f(args)`: a function stored in a context
    MethodCall(Box<Expr>, Arc<str>, Args),
    /// `< x`, `<= x`, `> x`, `>= x` against the input.
    InputCompare(CmpOp, Box<Expr>),
    /// `[a..b]` against the input.
    InputInRange(Box<Expr>),
    /// A boolean literal / `null` as a unary test: input equals it.
    InputEqualTo(Box<Expr>),
    /// A positive unary test written as an expression: boolean result, list membership, range,
    /// or equality with the input.
    UnaryTest(Box<Expr>),
    /// `not(tests)`
    NotTests(Box<Expr>),
    /// `t1, t2, ...`: true if any test is.
    AnyOf(Vec<Expr>),
    /// `-`: any input.
    AnyInput,
}

impl Expr {
    /// A node.
    pub fn new(kind: ExprKind, start: usize, end: usize) -> Expr {
        Expr {
            span: Span { start, end },
            kind,
        }
    }
}
