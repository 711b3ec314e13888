//! String functions, including the regex ones (java/XPath patterns through fancy-regex).

use base64::Engine as _;

use super::{Fail, Out, Registry, boolean, pattern, str_arg};
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

fn matches(ev: &mut Eval, a: &[Value]) -> Out {
    let input = str_arg(&a[0])?;
    let flags = match a.get(2) {
        Some(Value::String(f)) => Some(f.as_ref()),
        None | Some(Value::Null) => None,
        _ => return Err(Fail::Illegal),
    };
    let pattern = pattern::compile(ev, str_arg(&a[1])?, flags)?;
    pattern.run(ev, |ev, searches| {
        searches.start(ev, input)?;
        searches
            .regex()
            .is_match(input)
            .map(Value::Boolean)
            .map_err(pattern::search_failed)
    })
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
    let pattern = pattern::compile(ev, str_arg(&a[1])?, flags)?;
    let rep = replacement(str_arg(&a[2])?);
    pattern.run(ev, |ev, searches| {
        let mut out = String::new();
        let mut last = 0;
        searches.start(ev, input)?;
        for caps in searches.regex().captures_iter(input) {
            let caps = caps.map_err(pattern::search_failed)?;
            let m = caps.get(0).expect("group 0");
            out.push_str(&input[last..m.start()]);
            caps.expand(&rep, &mut out);
            last = m.end();
            ev.check_string(out.len()).map_err(Fail::Fatal)?;
            searches.next(ev)?;
        }
        out.push_str(&input[last..]);
        Ok(Value::string(out))
    })
}

fn split(ev: &mut Eval, a: &[Value]) -> Out {
    let input = str_arg(&a[0])?;
    let delimiter = str_arg(&a[1])?;
    let pattern = pattern::compile(ev, delimiter, None).map_err(|f| match f {
        Fail::Msg(_) => Fail::Msg(format!("Invalid pattern for delimiter '{delimiter}'")),
        other => other,
    })?;
    pattern.run(ev, |ev, searches| {
        let mut parts = Vec::new();
        let mut last = 0;
        searches.start(ev, input)?;
        for m in searches.regex().find_iter(input) {
            let m = m.map_err(pattern::search_failed)?;
            searches.next(ev)?;
            if m.end() == 0 {
                continue;
            }
            parts.push(Value::string(&input[last..m.start()]));
            ev.check_items(parts.len()).map_err(Fail::Fatal)?;
            last = m.end();
        }
        parts.push(Value::string(&input[last..]));
        Ok(Value::list(parts))
    })
}

fn extract(ev: &mut Eval, a: &[Value]) -> Out {
    let input = str_arg(&a[0])?;
    let pattern = pattern::compile(ev, str_arg(&a[1])?, None)?;
    pattern.run(ev, |ev, searches| {
        let mut out = Vec::new();
        searches.start(ev, input)?;
        for m in searches.regex().find_iter(input) {
            let m = m.map_err(pattern::search_failed)?;
            out.push(Value::string(m.as_str()));
            ev.check_items(out.len()).map_err(Fail::Fatal)?;
            searches.next(ev)?;
        }
        Ok(Value::list(out))
    })
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
