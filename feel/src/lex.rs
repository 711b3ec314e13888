//! The tokens of FEEL: whitespace and comments, names (which may contain spaces when a fixed
//! character follows them), numbers and string literals, as nom parsers over the text. The parser
//! (`parse`) moves a cursor over the text and asks these what is at it.

use nom::IResult;
use nom::Parser as _;
use nom::bytes::complete::{tag, take_until, take_while, take_while1};
use nom::character::complete::{char as nchar, digit1};
use nom::combinator::{opt, recognize};
use nom::sequence::pair;

/// Words that are never a variable name.
pub(crate) fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "null"
            | "true"
            | "false"
            | "function"
            | "in"
            | "return"
            | "then"
            | "else"
            | "satisfies"
            | "and"
            | "or"
            | "some"
            | "every"
            | "if"
            | "for"
            | "between"
            | "instance"
            | "of"
            | "not"
    )
}

/// Built-in function names that contain a reserved word (`date and time`, `get or else`, ...).
pub(crate) const BUILTIN_NAMES_WITH_SPACES: &[&str] = &[
    "years and months duration",
    "date and time",
    "get or else",
    "is defined",
    "string length",
    "upper case",
    "lower case",
    "substring before",
    "substring after",
    "starts with",
    "ends with",
    "list contains",
    "insert before",
    "index of",
    "distinct values",
    "duplicate values",
    "get entries",
    "get value",
    "context put",
    "context merge",
    "put all",
    "day of year",
    "day of week",
    "month of year",
    "week of year",
    "last day of month",
    "round up",
    "round down",
    "round half up",
    "round half down",
    "random number",
    "met by",
    "overlaps before",
    "overlaps after",
    "finished by",
    "started by",
    "string join",
    "is blank",
    "to base64",
    "from base64",
    "from json",
    "to json",
    "date and time",
];

/// FEEL whitespace: java's whitespace plus the DMN whitespace characters feel-scala accepts.
pub fn is_feel_whitespace(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\n'
            | '\r'
            | '\u{0B}'
            | '\u{0C}'
            | '\u{85}'
            | '\u{A0}'
            | '\u{1680}'
            | '\u{180E}'
            | '\u{2000}'
            ..='\u{200B}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

#[inline]
pub(crate) fn is_name_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic() || c == '_' || c == '$';
    }
    c.is_alphabetic()
        || c == '_'
        || c == '$'
        || (!c.is_ascii() && !is_feel_whitespace(c) && !c.is_control() && is_symbolic_name_char(c))
}

pub(crate) fn is_symbolic_name_char(c: char) -> bool {
    // java's isJavaIdentifierStart also admits currency symbols and connecting punctuation
    matches!(c, '\u{A2}'..='\u{A5}' | '\u{203F}' | '\u{2040}' | '\u{20A0}'..='\u{20CF}')
}

#[inline]
pub(crate) fn is_name_part(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_' || c == '$';
    }
    is_name_start(c) || c.is_numeric() || c == '\u{200C}' || c == '\u{200D}'
}

pub(crate) fn line_comment(i: &str) -> IResult<&str, &str> {
    recognize(pair(tag("//"), take_while(|c| c != '\n'))).parse(i)
}

pub(crate) fn block_comment(i: &str) -> IResult<&str, &str> {
    recognize((tag("/*"), take_until("*/"), tag("*/"))).parse(i)
}

pub(crate) fn whitespace(i: &str) -> IResult<&str, &str> {
    take_while1(is_feel_whitespace).parse(i)
}

pub(crate) fn ident_token(i: &str) -> IResult<&str, &str> {
    // ASCII names without decoding characters
    let bytes = i.as_bytes();
    if bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'$')
    {
        let end = bytes
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$'))
            .unwrap_or(bytes.len());
        if bytes.get(end).is_none_or(|b| b.is_ascii()) {
            return Ok((&i[end..], &i[..end]));
        }
    }
    let mut chars = i.char_indices();
    match chars.next() {
        Some((_, c)) if is_name_start(c) => {}
        _ => {
            return Err(nom::Err::Error(nom::error::Error::new(
                i,
                nom::error::ErrorKind::Alpha,
            )));
        }
    }
    let end = chars
        .find(|(_, c)| !is_name_part(*c))
        .map(|(p, _)| p)
        .unwrap_or(i.len());
    Ok((&i[end..], &i[..end]))
}

pub(crate) fn number_token(i: &str) -> IResult<&str, &str> {
    let frac = |i| recognize(pair(nchar('.'), digit1)).parse(i);
    nom::branch::alt((recognize(pair(digit1, opt(frac))), recognize(frac))).parse(i)
}

/// The raw text between the quotes of a string literal (escapes still in it).
pub(crate) fn string_token(i: &str) -> IResult<&str, &str> {
    let (rest, _) = nchar('"').parse(i)?;
    let bytes = rest.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => k += 2,
            b'"' => return Ok((&rest[k + 1..], &rest[..k])),
            _ => k += 1,
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(
        i,
        nom::error::ErrorKind::Char,
    )))
}

/// feel-scala's escapes: `\"`, `\\`, `\'`, `\n`, `\r`, `\t`, `\b`, `\f`, `\uXXXX`; any other
/// backslash sequence (e.g. `\d`, `\U101EF`) stays as written.
pub fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    let mut pending_high: Option<u16> = None;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('"') => {
                chars.next();
                out.push('"');
            }
            Some('\\') => {
                chars.next();
                out.push('\\');
            }
            Some('\'') => {
                chars.next();
                out.push('\'');
            }
            Some('n') => {
                chars.next();
                out.push('\n');
            }
            Some('r') => {
                chars.next();
                out.push('\r');
            }
            Some('t') => {
                chars.next();
                out.push('\t');
            }
            Some('b') => {
                chars.next();
                out.push('\u{8}');
            }
            Some('f') => {
                chars.next();
                out.push('\u{C}');
            }
            Some('u') => {
                let look: String = chars.clone().skip(1).take(4).collect();
                if look.len() == 4 && look.chars().all(|c| c.is_ascii_hexdigit()) {
                    chars.next();
                    for _ in 0..4 {
                        chars.next();
                    }
                    let unit = u16::from_str_radix(&look, 16).unwrap_or(0xFFFD);
                    if (0xD800..0xDC00).contains(&unit) {
                        pending_high = Some(unit);
                    } else if let (Some(high), true) =
                        (pending_high.take(), (0xDC00..0xE000).contains(&unit))
                    {
                        out.extend(
                            char::decode_utf16([high, unit]).map(|r| r.unwrap_or('\u{FFFD}')),
                        );
                    } else {
                        out.push(char::from_u32(unit as u32).unwrap_or('\u{FFFD}'));
                    }
                } else {
                    out.push('\\');
                }
            }
            _ => out.push('\\'),
        }
    }
    out
}
