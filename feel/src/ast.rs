//! The syntax tree of a FEEL expression; every node carries its byte span in the source.
//!
//! [`Expr::children`] is the one walk over the tree: analyses (what an expression reads, whether
//! it is constant, which `fromAi` calls it makes) match the nodes they care about and hand the
//! rest to it.

use std::sync::{Arc, LazyLock};

use crate::value::Value;

/// The name the evaluator binds to each item of a filter (`list[item > 3]`). The parser hands
/// this very allocation to every reference to `item`, so a scope lookup finds it by pointer.
pub(crate) static ITEM: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("item"));
/// The name of the results so far inside a `for` body; shared like [`ITEM`].
pub(crate) static PARTIAL: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("partial"));

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
    /// The number of nodes on the longest path down from here (1 for a leaf). The parser bounds
    /// it, so that walking, evaluating and dropping a tree never recurse deeper than that.
    height: u32,
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
        let height = 1u32.saturating_add(kind.child_height());
        Expr {
            span: Span { start, end },
            kind,
            height,
        }
    }

    /// The same node with another span (parentheses around it).
    pub(crate) fn with_span(self, start: usize, end: usize) -> Expr {
        Expr {
            span: Span { start, end },
            ..self
        }
    }

    /// The number of nodes on the longest path from this node down to a leaf.
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// The direct sub-expressions, in source order (a `for`'s iterations before its body, a
    /// method call's target before its arguments).
    pub fn children(&self) -> Children<'_> {
        self.kind.children()
    }
}

impl ExprKind {
    /// The direct sub-expressions of a node of this kind ([`Expr::children`]).
    fn children(&self) -> Children<'_> {
        use ExprKind as K;
        let of = Children::of;
        let fixed = |children| of(children, Rest::None, None);
        match self {
            K::Const(_) | K::Input | K::Name(_) | K::AnyInput => fixed([None; 3]),
            K::Path(x, _)
            | K::Neg(x)
            | K::InstanceOf(x, _)
            | K::InputCompare(_, x)
            | K::InputInRange(x)
            | K::InputEqualTo(x)
            | K::UnaryTest(x)
            | K::NotTests(x) => fixed([Some(x), None, None]),
            K::FunctionDef(_, body) => fixed([Some(body), None, None]),
            K::Filter(a, b)
            | K::Arith(_, a, b)
            | K::Compare(_, a, b)
            | K::And(a, b)
            | K::Or(a, b)
            | K::In(a, b)
            | K::Range {
                start: a, end: b, ..
            } => fixed([Some(a), Some(b), None]),
            K::Between(a, b, c) | K::If(a, b, c) => fixed([Some(a), Some(b), Some(c)]),
            K::List(xs) | K::AnyOf(xs) => of([None; 3], Rest::Exprs(xs.iter()), None),
            K::Context(entries) => of([None; 3], Rest::Entries(entries.iter()), None),
            K::For(its, body) | K::Some(its, body) | K::Every(its, body) => {
                of([None; 3], Rest::Iterations(its.iter()), Some(body))
            }
            K::Call(_, args) => of([None; 3], Rest::args(args), None),
            K::MethodCall(target, _, args) => {
                of([Some(target), None, None], Rest::args(args), None)
            }
        }
    }

    /// The height of the highest child (0 for a leaf).
    fn child_height(&self) -> u32 {
        use ExprKind as K;
        let max = |xs: &[Expr]| xs.iter().map(|x| x.height).max().unwrap_or(0);
        match self {
            K::Const(_) | K::Input | K::Name(_) | K::AnyInput => 0,
            K::Path(x, _)
            | K::Neg(x)
            | K::InstanceOf(x, _)
            | K::InputCompare(_, x)
            | K::InputInRange(x)
            | K::InputEqualTo(x)
            | K::UnaryTest(x)
            | K::NotTests(x) => x.height,
            K::Filter(a, b)
            | K::Arith(_, a, b)
            | K::Compare(_, a, b)
            | K::And(a, b)
            | K::Or(a, b)
            | K::In(a, b)
            | K::Range {
                start: a, end: b, ..
            } => a.height.max(b.height),
            K::Between(a, b, c) | K::If(a, b, c) => a.height.max(b.height).max(c.height),
            K::List(xs) | K::AnyOf(xs) => max(xs),
            _ => self.children().map(|c| c.height).max().unwrap_or(0),
        }
    }
}

impl Args {
    /// The argument expressions, in order.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let (positional, named) = match self {
            Args::Positional(xs) => (xs.as_slice(), &[][..]),
            Args::Named(xs) => (&[][..], xs.as_slice()),
        };
        positional.iter().chain(named.iter().map(|(_, x)| x))
    }

    /// How many arguments there are.
    pub fn len(&self) -> usize {
        match self {
            Args::Positional(xs) => xs.len(),
            Args::Named(xs) => xs.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The direct sub-expressions of a node ([`Expr::children`]).
#[derive(Clone)]
pub struct Children<'e> {
    /// Leading children of fixed arity, then `rest`, then `last`.
    fixed: [Option<&'e Expr>; 3],
    next: usize,
    rest: Rest<'e>,
    last: Option<&'e Expr>,
}

#[derive(Clone)]
enum Rest<'e> {
    None,
    Exprs(std::slice::Iter<'e, Expr>),
    Entries(std::slice::Iter<'e, (Arc<str>, Expr)>),
    Iterations(std::slice::Iter<'e, (Arc<str>, Iteration)>),
    /// The upper end of a range iteration, after its lower end.
    RangeEnd(&'e Expr, std::slice::Iter<'e, (Arc<str>, Iteration)>),
}

impl<'e> Children<'e> {
    fn of(fixed: [Option<&'e Expr>; 3], rest: Rest<'e>, last: Option<&'e Expr>) -> Self {
        Children {
            fixed,
            next: 0,
            rest,
            last,
        }
    }
}

impl<'e> Rest<'e> {
    fn args(args: &'e Args) -> Rest<'e> {
        match args {
            Args::Positional(xs) => Rest::Exprs(xs.iter()),
            Args::Named(xs) => Rest::Entries(xs.iter()),
        }
    }
}

impl<'e> Iterator for Children<'e> {
    type Item = &'e Expr;

    fn next(&mut self) -> Option<&'e Expr> {
        while self.next < self.fixed.len() {
            let child = self.fixed[self.next].take();
            self.next += 1;
            if child.is_some() {
                return child;
            }
        }
        let from_rest = match &mut self.rest {
            Rest::None => None,
            Rest::Exprs(xs) => xs.next(),
            Rest::Entries(xs) => xs.next().map(|(_, x)| x),
            Rest::Iterations(its) => match its.next() {
                None => None,
                Some((_, Iteration::List(x))) => Some(x),
                Some((_, Iteration::Range(a, b))) => {
                    self.rest = Rest::RangeEnd(b, its.clone());
                    return Some(a);
                }
            },
            Rest::RangeEnd(b, its) => {
                let b = *b;
                self.rest = Rest::Iterations(its.clone());
                return Some(b);
            }
        };
        from_rest.or_else(|| self.last.take())
    }
}
