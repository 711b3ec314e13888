//! Patterns: java/XPath regexes compiled with fancy-regex, and what searching with them costs
//! the evaluation's step budget ([`crate::Limits::max_steps`]).
//!
//! One search is bounded on its own (fancy-regex's backtracking limit, the compiled size), but
//! a million bounded searches are not: every search is charged to the one budget of the
//! evaluation, before it runs, with an upper bound of its work. A pattern the regex crate runs
//! (no back-references, no look-around) works in time linear in the input times the pattern; a
//! pattern that needs the backtracking machine is first tried with a small backtracking limit
//! and charged that, and only when it runs out is it tried again with the large one, charged
//! that. A pattern that does not compile costs what compiling it up to the size limit costs.
//! Every charge is computed from the pattern and the input alone (never from what the cache of
//! compiled patterns holds), so the same evaluation always counts the same steps.

use std::cell::RefCell;

use fancy_regex::{Error as RegexError, Regex, RegexBuilder, RuntimeError};

use super::Fail;
use crate::eval::Eval;

/// Backtracking steps a search with a back-reference or look-around may take on its first try.
const QUICK_BACKTRACKS: usize = 1_000;
/// Backtracking steps the second try may take (the limit a search had before the budget).
const FULL_BACKTRACKS: usize = 1_000_000;
/// Evaluation steps one backtracking step costs (measured: a million take 34 ms, ten million
/// evaluation steps about 160 ms, in a release build).
const STEPS_PER_BACKTRACK: usize = 2;
/// The largest pattern, counted as characters and classes with every repetition written out
/// ([`expanded_size`]): `a{1000000}{1000000}` is refused before it is compiled, where building
/// its program up to the regex crate's size limit took 40 ms each time.
const MAX_EXPANDED_SIZE: usize = 100_000;
/// The largest compiled program (bytes; the regex crate's limit, which a pattern under
/// [`MAX_EXPANDED_SIZE`] may still reach with wide classes).
const COMPILED_SIZE_LIMIT: usize = 1 << 20;
/// Evaluation steps a linear search costs per input byte and unit of pattern size (measured:
/// the regex crate's PikeVM takes about 30 ns for each).
const STEPS_PER_BYTE_AND_SIZE: usize = 2;

/// How many compiled patterns each thread keeps.
const CACHE_SIZE: usize = 32;

/// A compiled pattern.
#[derive(Clone)]
pub(crate) struct Pattern {
    /// The pattern as given (for messages).
    source: String,
    flags: Option<String>,
    /// Compiled with [`QUICK_BACKTRACKS`].
    quick: Regex,
    /// Needs the backtracking machine (back-references, look-around, atomic groups).
    hard: bool,
    /// [`expanded_size`].
    size: usize,
}

/// A compiled pattern or why it does not compile, by pattern, flags and backtracking limit.
type CacheEntry = (String, Option<String>, usize, Result<Pattern, String>);

thread_local! {
    /// Recently compiled patterns, newest last. Expressions are evaluated many times with the
    /// same literal pattern, and compiling costs far more than matching a short FEEL string;
    /// the cache only memoizes (failures too), so it cannot change a result or a charge.
    static CACHE: RefCell<Vec<CacheEntry>> = const { RefCell::new(Vec::new()) };
}

/// Compiles a java/XPath pattern with flags (`s`, `m`, `i`, `x`; other letters are ignored, as
/// feel-scala does), charging the evaluation for it.
pub(crate) fn compile(ev: &mut Eval, pattern: &str, flags: Option<&str>) -> Result<Pattern, Fail> {
    let compiled = cached(pattern, flags, QUICK_BACKTRACKS);
    // Compiling costs about the size of the program it builds.
    let steps = match &compiled {
        Ok(p) => p.size,
        Err(_) => pattern.len() + 1,
    };
    ev.charge_steps(steps).map_err(Fail::Fatal)?;
    compiled.map_err(Fail::Msg)
}

fn cached(pattern: &str, flags: Option<&str>, backtracks: usize) -> Result<Pattern, String> {
    let hit = CACHE.with_borrow(|cache| {
        cache
            .iter()
            .rev()
            .find(|(p, f, b, _)| p == pattern && f.as_deref() == flags && *b == backtracks)
            .map(|(_, _, _, compiled)| compiled.clone())
    });
    if let Some(compiled) = hit {
        return compiled;
    }
    let compiled = build(pattern, flags, backtracks);
    CACHE.with_borrow_mut(|cache| {
        if cache.len() == CACHE_SIZE {
            let _evicted = cache.remove(0);
        }
        cache.push((
            pattern.to_string(),
            flags.map(str::to_string),
            backtracks,
            compiled.clone(),
        ));
    });
    compiled
}

fn build(pattern: &str, flags: Option<&str>, backtracks: usize) -> Result<Pattern, String> {
    let mut prefix = String::new();
    for flag in ['s', 'm', 'i', 'x'] {
        if flags.is_some_and(|f| f.contains(flag)) {
            prefix.push(flag);
        }
    }
    let body = translate(pattern);
    let translated = if prefix.is_empty() {
        body
    } else {
        format!("(?{prefix}){body}")
    };
    if translated.len() > 10_000 {
        return Err("the pattern is too long".into());
    }
    let invalid = || format!("Invalid pattern '{pattern}'");
    let tree = fancy_regex::Expr::parse_tree(&translated).map_err(|_| invalid())?;
    let size = expanded_size(&tree.expr);
    if size > MAX_EXPANDED_SIZE {
        return Err(format!(
            "the pattern '{pattern}' is {size} characters and classes long with its repetitions written out, more than the limit of {MAX_EXPANDED_SIZE}"
        ));
    }
    let hard =
        fancy_regex::internal::analyze(&tree, Default::default()).map_or(true, |info| info.hard);
    // FEEL strings are short and patterns are compiled often: building the lazy DFA (a reverse
    // NFA and its cache) costs more than it saves; the PikeVM/backtracker match instead.
    let quick = RegexBuilder::new(&translated)
        .backtrack_limit(backtracks)
        .delegate_size_limit(COMPILED_SIZE_LIMIT)
        .delegate_dfa_size_limit(0)
        .build()
        .map_err(|_| invalid())?;
    Ok(Pattern {
        source: pattern.to_string(),
        flags: flags.map(str::to_string),
        quick,
        hard,
        size,
    })
}

/// The characters and classes a pattern matches with every repetition written out (`a{3}b` is
/// 4, `((ab){2}){3}` is 12, `a+` counts its item twice): about the size of the program compiling
/// it builds, known before compiling.
fn expanded_size(expr: &fancy_regex::Expr) -> usize {
    use fancy_regex::Expr as E;
    match expr {
        E::Literal { val, .. } => val.chars().count().max(1),
        E::Concat(items) | E::Alt(items) => items
            .iter()
            .fold(0usize, |sum, e| sum.saturating_add(expanded_size(e))),
        E::Group(child) => expanded_size(child),
        E::LookAround(child, _) | E::AtomicGroup(child) => expanded_size(child),
        E::Repeat { child, lo, hi, .. } => {
            let times = if *hi == usize::MAX {
                lo.saturating_add(1)
            } else {
                (*hi).max(1)
            };
            expanded_size(child).saturating_mul(times)
        }
        E::Conditional {
            condition,
            true_branch,
            false_branch,
        } => expanded_size(condition)
            .saturating_add(expanded_size(true_branch))
            .saturating_add(expanded_size(false_branch)),
        _ => 1,
    }
}

/// XPath character-class subtraction `[a-z-[aeiou]]` becomes `[a-z--[aeiou]]`; java's
/// `\d`, `\s`, `\w` (and their negations) are ASCII classes, as they are in java.
fn translate(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 8);
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('d') => out.push_str("[0-9]"),
                Some('D') => out.push_str("[^0-9]"),
                Some('s') => out.push_str("[\\t\\n\\x0B\\f\\r\\x20]"),
                Some('S') => out.push_str("[^\\t\\n\\x0B\\f\\r\\x20]"),
                Some('w') => out.push_str("[a-zA-Z_0-9]"),
                Some('W') => out.push_str("[^a-zA-Z_0-9]"),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push('\\'),
            },
            '-' if chars.as_str().starts_with('[') => out.push_str("--"),
            c => out.push(c),
        }
    }
    out
}

/// The searches of one built-in call with one pattern: each is charged before it runs.
pub(crate) struct Searches<'p> {
    pattern: &'p Pattern,
    /// The compiled pattern this round uses.
    regex: Regex,
    /// Its backtracking limit (for a hard pattern).
    backtracks: usize,
}

impl Pattern {
    /// Runs `op` (one or more searches, each announced with [`Searches::charge`]) with the small
    /// backtracking limit, and when a search runs out of it, once more with the large one.
    pub(crate) fn run<T>(
        &self,
        ev: &mut Eval,
        op: impl Fn(&mut Eval, &Searches<'_>) -> Result<T, Fail>,
    ) -> Result<T, Fail> {
        let quick = Searches {
            pattern: self,
            regex: self.quick.clone(),
            backtracks: QUICK_BACKTRACKS,
        };
        match op(ev, &quick) {
            Err(Fail::Msg(m)) if self.hard && m == backtracking_exceeded() => {
                let full = cached(&self.source, self.flags.as_deref(), FULL_BACKTRACKS)
                    .map_err(Fail::Msg)?;
                let full = Searches {
                    pattern: self,
                    regex: full.quick,
                    backtracks: FULL_BACKTRACKS,
                };
                op(ev, &full)
            }
            other => other,
        }
    }
}

impl Searches<'_> {
    /// The compiled pattern to search with.
    pub(crate) fn regex(&self) -> &Regex {
        &self.regex
    }

    /// Charges the first search over `input` before it runs: its backtracking limit for a
    /// pattern that needs the backtracking machine, else the whole input times the pattern (a
    /// linear scan, however many matches it finds).
    pub(crate) fn start(&self, ev: &mut Eval, input: &str) -> Result<(), Fail> {
        let steps = if self.pattern.hard {
            self.backtracks.saturating_mul(STEPS_PER_BACKTRACK)
        } else {
            (input.len() + 1)
                .saturating_mul(self.pattern.size + 1)
                .saturating_mul(STEPS_PER_BYTE_AND_SIZE)
        };
        self.charge(ev, steps)
    }

    /// Charges the next search of an iteration (after a match): its backtracking limit for a
    /// pattern that needs the backtracking machine; the scan was charged by [`Searches::start`].
    pub(crate) fn next(&self, ev: &mut Eval) -> Result<(), Fail> {
        if self.pattern.hard {
            self.charge(ev, self.backtracks.saturating_mul(STEPS_PER_BACKTRACK))
        } else {
            Ok(())
        }
    }

    fn charge(&self, ev: &mut Eval, steps: usize) -> Result<(), Fail> {
        ev.charge_steps_for(steps, || {
            format!(
                "a search with the pattern '{}' counts up to {steps} of them",
                self.pattern.source
            )
        })
        .map_err(Fail::Fatal)
    }
}

/// A search's error as a function's failure.
pub(crate) fn search_failed(e: RegexError) -> Fail {
    match e {
        RegexError::RuntimeError(RuntimeError::BacktrackLimitExceeded) => {
            Fail::Msg(backtracking_exceeded())
        }
        other => Fail::Msg(other.to_string()),
    }
}

fn backtracking_exceeded() -> String {
    RegexError::RuntimeError(RuntimeError::BacktrackLimitExceeded).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_the_latest_patterns_and_tells_flags_apart() {
        for n in 0..CACHE_SIZE + 8 {
            let Ok(p) = cached(&format!("^a{{{n}}}$"), None, QUICK_BACKTRACKS) else {
                panic!("pattern {n} did not compile")
            };
            assert!(p.quick.is_match(&"a".repeat(n)).unwrap());
        }
        CACHE.with_borrow(|cache| {
            assert_eq!(cache.len(), CACHE_SIZE);
            assert_eq!(
                cache.last().unwrap().0,
                format!("^a{{{}}}$", CACHE_SIZE + 7)
            );
        });
        let matches = |flags| {
            cached("abc", flags, QUICK_BACKTRACKS).is_ok_and(|p| p.quick.is_match("ABC").unwrap())
        };
        assert!(matches(Some("i")));
        assert!(!matches(None));
        assert!(cached("(", None, QUICK_BACKTRACKS).is_err());
        assert!(
            cached("(", None, QUICK_BACKTRACKS).is_err(),
            "a failed compilation is cached as a failure"
        );
    }

    #[test]
    fn back_references_and_look_around_need_the_backtracking_machine() {
        let hard = |p: &str| cached(p, None, QUICK_BACKTRACKS).unwrap().hard;
        assert!(hard("(a+)\\1+b"));
        assert!(hard("a(?=b)"));
        assert!(!hard("^[a-z]+[0-9]*$"));
        assert!(!hard("\\d{3}-\\w+"));
    }

    #[test]
    fn the_size_of_a_pattern_counts_its_repetitions() {
        let size = |p: &str| cached(p, None, QUICK_BACKTRACKS).map(|p| p.size);
        assert_eq!(size("abc"), Ok(3));
        assert_eq!(size("a{3}b"), Ok(4));
        assert_eq!(size("((ab){2}){3}"), Ok(12));
        assert_eq!(size("[a-z]+x*"), Ok(3));
        assert_eq!(
            size("(a{1000000}){1000000}"),
            Err("the pattern '(a{1000000}){1000000}' is 1000000000000 characters and classes long with its repetitions written out, more than the limit of 100000".to_string())
        );
    }
}
