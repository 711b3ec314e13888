//! String functions, including the regex ones (java/XPath patterns through fancy-regex).

use base64::Engine as _;

use super::{Fail, Out, Registry, boolean, str_arg};
use crate::eval::Eval;
use crate::number::Number;
use crate::value::Value;

pub(crate) fn register(r: &mut Registry) {
    r.add("substring", &["string", "start position"], substring);
    r.add(
        "substring",
        &["string", "start position", "length"],
        substring,
    );
    r.add("string length", &["string"], |_, a| {
        Ok(Value::Number(Number::from(str_arg(&a[0])?.chars().count())))
    });
    r.add("upper case", &["string"], |_, a| {
        Ok(Value::string(str_arg(&a[0])?.to_uppercase()))
    });
    r.add("lower case", &["string"], |_, a| {
        Ok(Value::string(str_arg(&a[0])?.to_lowercase()))
    });
    r.add("substring before", &["string", "match"], |_, a| {
        let (s, m) = (str_arg(&a[0])?, str_arg(&a[1])?);
        Ok(Value::string(s.find(m).map(|i| &s[..i]).unwrap_or("")))
    });
    r.add("substring after", &["string", "match"], |_, a| {
        let (s, m) = (str_arg(&a[0])?, str_arg(&a[1])?);
        Ok(Value::string(
            s.find(m).map(|i| &s[i + m.len()..]).unwrap_or(""),
        ))
    });
    r.add("replace", &["input", "pattern", "replacement"], replace);
    r.add(
        "replace",
        &["input", "pattern", "replacement", "flags"],
        replace,
    );
    r.add("contains", &["string", "match"], |_, a| {
        boolean(str_arg(&a[0])?.contains(str_arg(&a[1])?))
    });
    r.add("starts with", &["string", "match"], |_, a| {
        boolean(str_arg(&a[0])?.starts_with(str_arg(&a[1])?))
    });
    r.add("ends with", &["string", "match"], |_, a| {
        boolean(str_arg(&a[0])?.ends_with(str_arg(&a[1])?))
    });
    r.add("matches", &["input", "pattern"], matches);
    r.add("matches", &["input", "pattern", "flags"], matches);
    r.add("split", &["string", "delimiter"], split);
    r.add("extract", &["input", "pattern"], extract);
    r.add("trim", &["string"], |_, a| {
        Ok(Value::string(str_arg(&a[0])?.trim()))
    });
    r.add("uuid", &[], uuid);
    r.add("to base64", &["value"], |_, a| {
        Ok(Value::string(
            base64::engine::general_purpose::STANDARD.encode(str_arg(&a[0])?),
        ))
    });
    r.add("from base64", &["value"], |_, a| {
        let s = str_arg(&a[0])?;
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .map(Value::string)
            .ok_or_else(|| Fail::Msg(format!("Invalid Base64 value '{s}'")))
    });
    r.add("is blank", &["string"], |_, a| {
        boolean(str_arg(&a[0])?.trim().is_empty())
    });
}

fn substring(_: &mut Eval, a: &[Value]) -> Out {
    let s = str_arg(&a[0])?;
    let start = super::int(&a[1])?;
    let chars: Vec<char> = s.chars().collect();
    let len = chars.len() as i64;
    let from = if start > 0 {
        start - 1
    } else if start < 0 {
        len + start
    } else {
        0
    };
    let from = from.clamp(0, len);
    let to = match a.get(2) {
        Some(l) => {
            let l = super::int(l)?;
            from.saturating_add(l.max(0)).min(len)
        }
        None => len,
    };
    Ok(Value::string(
        chars[from as usize..to.max(from) as usize]
            .iter()
            .collect::<String>(),
    ))
}

/// How many compiled patterns each thread keeps (see [`regex`]).
const REGEX_CACHE_SIZE: usize = 32;

thread_local! {
    /// Recently compiled patterns, newest last, keyed by pattern and flags. Expressions are
    /// evaluated many times with the same literal pattern, and compiling costs far more than
    /// matching a short FEEL string; the cache only memoizes, so it cannot change a result.
    static REGEX_CACHE: std::cell::RefCell<Vec<(String, Option<String>, fancy_regex::Regex)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Translates a java/XPath pattern with flags into a fancy-regex, reusing a recent compilation
/// of the same pattern and flags.
pub(crate) fn regex(pattern: &str, flags: Option<&str>) -> Result<fancy_regex::Regex, Fail> {
    let cached = REGEX_CACHE.with_borrow(|cache| {
        cache
            .iter()
            .rev()
            .find(|(p, f, _)| p == pattern && f.as_deref() == flags)
            .map(|(_, _, re)| re.clone())
    });
    if let Some(re) = cached {
        return Ok(re);
    }
    let re = compile_regex(pattern, flags)?;
    REGEX_CACHE.with_borrow_mut(|cache| {
        if cache.len() == REGEX_CACHE_SIZE {
            cache.remove(0);
        }
        cache.push((pattern.to_string(), flags.map(str::to_string), re.clone()));
    });
    Ok(re)
}

fn compile_regex(pattern: &str, flags: Option<&str>) -> Result<fancy_regex::Regex, Fail> {
    // feel-scala maps `s`, `m`, `i` and `x` to java's pattern flags and ignores other letters
    let mut prefix = String::new();
    for flag in ['s', 'm', 'i', 'x'] {
        if flags.is_some_and(|f| f.contains(flag)) {
            prefix.push(flag);
        }
    }
    let body = translate(pattern);
    let full = if prefix.is_empty() {
        body
    } else {
        format!("(?{prefix}){body}")
    };
    if full.len() > 10_000 {
        return Err(Fail::Msg("the pattern is too long".into()));
    }
    // FEEL strings are short and patterns are compiled often: building the lazy DFA
    // (a reverse NFA and its cache) costs more than it saves, the PikeVM/backtracker match
    fancy_regex::RegexBuilder::new(&full)
        .backtrack_limit(1_000_000)
        .delegate_dfa_size_limit(0)
        .build()
        .map_err(|_| Fail::Msg(format!("Invalid pattern '{pattern}'")))
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

fn matches(_: &mut Eval, a: &[Value]) -> Out {
    let input = str_arg(&a[0])?;
    let flags = match a.get(2) {
        Some(Value::String(f)) => Some(f.as_ref()),
        None | Some(Value::Null) => None,
        _ => return Err(Fail::Illegal),
    };
    let re = regex(str_arg(&a[1])?, flags)?;
    re.is_match(input)
        .map(Value::Boolean)
        .map_err(|e| Fail::Msg(e.to_string()))
}

/// java's replacement syntax (`$1`, `\$`) in fancy-regex's (`${1}`, `$$`).
fn replacement(r: &str) -> String {
    let mut out = String::with_capacity(r.len());
    let mut chars = r.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('$') => out.push_str("$$"),
                Some(o) => out.push(o),
                None => out.push('\\'),
            },
            '$' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(|d| d.is_ascii_digit()) {
                    digits.push(d);
                    chars.next();
                }
                if digits.is_empty() {
                    out.push_str("$$");
                } else {
                    out.push_str(&format!("${{{digits}}}"));
                }
            }
            other => out.push(other),
        }
    }
    out
}

fn replace(ev: &mut Eval, a: &[Value]) -> Out {
    let input = str_arg(&a[0])?;
    let flags = match a.get(3) {
        Some(Value::String(f)) => Some(f.as_ref()),
        None | Some(Value::Null) => None,
        _ => return Err(Fail::Illegal),
    };
    let re = regex(str_arg(&a[1])?, flags)?;
    let rep = replacement(str_arg(&a[2])?);
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(input) {
        let caps = caps.map_err(|e| Fail::Msg(e.to_string()))?;
        let m = caps.get(0).expect("group 0");
        out.push_str(&input[last..m.start()]);
        caps.expand(&rep, &mut out);
        last = m.end();
        ev.check_string(out.len()).map_err(Fail::Fatal)?;
    }
    out.push_str(&input[last..]);
    Ok(Value::string(out))
}

fn split(ev: &mut Eval, a: &[Value]) -> Out {
    let input = str_arg(&a[0])?;
    let delimiter = str_arg(&a[1])?;
    let re = regex(delimiter, None)
        .map_err(|_| Fail::Msg(format!("Invalid pattern for delimiter '{delimiter}'")))?;
    let mut parts = Vec::new();
    let mut last = 0;
    for m in re.find_iter(input) {
        let m = m.map_err(|e| Fail::Msg(e.to_string()))?;
        if m.end() == 0 {
            continue;
        }
        parts.push(Value::string(&input[last..m.start()]));
        ev.check_items(parts.len()).map_err(Fail::Fatal)?;
        last = m.end();
    }
    parts.push(Value::string(&input[last..]));
    Ok(Value::list(parts))
}

fn extract(ev: &mut Eval, a: &[Value]) -> Out {
    let input = str_arg(&a[0])?;
    let re = regex(str_arg(&a[1])?, None)?;
    let mut out = Vec::new();
    for m in re.find_iter(input) {
        let m = m.map_err(|e| Fail::Msg(e.to_string()))?;
        out.push(Value::string(m.as_str()));
        ev.check_items(out.len()).map_err(Fail::Fatal)?;
    }
    Ok(Value::list(out))
}

/// A version 7 UUID, as feel-scala generates them (`timeBasedEpochRandomGenerator`): the
/// milliseconds of the evaluation's clock, then bits from the seeded generator, so a run
/// repeats its UUIDs and they sort by the virtual time they were made at.
fn uuid(ev: &mut Eval, _: &[Value]) -> Out {
    let millis = ev
        .env
        .now
        .timestamp()
        .as_millisecond()
        .clamp(0, (1 << 48) - 1) as u64;
    let mut b = [0u8; 16];
    b[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
    b[6..14].copy_from_slice(&ev.next_random().to_be_bytes());
    b[14..].copy_from_slice(&ev.next_random().to_be_bytes()[..2]);
    b[6] = (b[6] & 0x0f) | 0x70;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(Value::string(format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_regex_cache_keeps_the_latest_patterns_and_tells_flags_apart() {
        for n in 0..REGEX_CACHE_SIZE + 8 {
            let Ok(re) = regex(&format!("^a{{{n}}}$"), None) else {
                panic!("pattern {n} did not compile")
            };
            assert!(re.is_match(&"a".repeat(n)).unwrap());
        }
        REGEX_CACHE.with_borrow(|cache| {
            assert_eq!(cache.len(), REGEX_CACHE_SIZE);
            assert_eq!(
                cache.last().unwrap().0,
                format!("^a{{{}}}$", REGEX_CACHE_SIZE + 7)
            );
        });
        let matches = |flags| regex("abc", flags).is_ok_and(|re| re.is_match("ABC").unwrap());
        assert!(matches(Some("i")));
        assert!(!matches(None));
        assert!(regex("(", None).is_err());
        assert!(
            regex("(", None).is_err(),
            "a failed compilation is not cached as a success"
        );
    }
}
