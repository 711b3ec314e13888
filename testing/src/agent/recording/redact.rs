//! Redaction: what a written cassette must never hold. Strings that look like API keys or
//! bearer tokens become `[REDACTED]` — OpenAI and Anthropic keys (`sk-…`, `sk-ant-…`,
//! `sk-proj-…`), `Bearer …`, AWS access key ids, Google API keys, GitHub and Slack tokens and
//! JSON web tokens — and a test adds its own patterns or a closure.
//!
//! Redaction runs on every string a cassette stores (requests, turns, trajectories) when it is
//! written, and on the actual request when it is compared, so a redacted value still matches.
//! It is a safety net, not a guarantee: prompts, tool results and answers are stored as they
//! are.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_json::Value;

use super::normalize::map_strings;

/// What a redacted value reads as.
pub const REDACTED: &str = "[REDACTED]";

static SECRETS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?-u)\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}",
        r"|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}",
        r"|\bAKIA[0-9A-Z]{16}\b",
        r"|\bAIza[0-9A-Za-z_-]{35}",
        r"|\bgh[pousr]_[A-Za-z0-9]{36,}",
        r"|\bgithub_pat_[A-Za-z0-9_]{22,}",
        r"|\bxox[abposr]-[A-Za-z0-9-]{10,}",
        r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ))
    .expect("valid regex")
});

type Custom = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// The redaction of everything a cassette stores: the standard patterns plus a test's own.
#[derive(Clone, Default)]
pub struct Redactor {
    patterns: Vec<Regex>,
    custom: Vec<Custom>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field(
                "patterns",
                &self.patterns.iter().map(Regex::as_str).collect::<Vec<_>>(),
            )
            .field("custom", &self.custom.len())
            .finish()
    }
}

impl Redactor {
    /// The standard patterns only.
    pub fn standard() -> Redactor {
        Redactor::default()
    }

    /// Whether only the standard patterns apply.
    pub fn is_standard(&self) -> bool {
        self.patterns.is_empty() && self.custom.is_empty()
    }

    /// Every match of `pattern` becomes `[REDACTED]` as well.
    pub fn pattern(mut self, pattern: &str) -> Result<Redactor, regex::Error> {
        self.patterns.push(Regex::new(pattern)?);
        Ok(self)
    }

    /// Your own redaction, run on every string after the patterns (e.g. e-mail addresses to
    /// `<email>`).
    pub fn with(mut self, redact: impl Fn(&str) -> String + Send + Sync + 'static) -> Redactor {
        self.custom.push(Arc::new(redact));
        self
    }

    /// One string redacted; borrowed when nothing changed.
    pub fn redact_text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out = Cow::Borrowed(text);
        for re in std::iter::once(&*SECRETS).chain(&self.patterns) {
            if re.is_match(&out) {
                out = Cow::Owned(re.replace_all(&out, REDACTED).into_owned());
            }
        }
        for redact in &self.custom {
            let redacted = redact(&out);
            if redacted != *out {
                out = Cow::Owned(redacted);
            }
        }
        out
    }

    /// Every string of `value` redacted in place.
    pub fn redact(&self, value: &mut Value) {
        map_strings(value, &mut |text| match self.redact_text(text) {
            Cow::Owned(redacted) => Some(redacted),
            Cow::Borrowed(_) => None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_redacted() {
        let cases = [
            "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv and sk-proj-0123456789abcdefXYZ",
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc-def_123",
            "aws AKIAIOSFODNN7EXAMPLE google AIzaSyA-1234567890abcdefghijklmnopqrstu",
            "gh ghp_0123456789abcdefghijklmnopqrstuvwxyz slack xoxb-1234567890-abcdef",
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "not secret: sk-short, Bearer of bad news, ask-anything-you-like-today",
        ];
        let redactor = Redactor::standard();
        let out: Vec<String> = cases
            .iter()
            .map(|c| redactor.redact_text(c).into_owned())
            .collect();
        insta::assert_snapshot!(out.join("\n"), @r"
        key [REDACTED] and [REDACTED]
        Authorization: [REDACTED]
        aws [REDACTED] google [REDACTED]
        gh [REDACTED] slack [REDACTED]
        jwt [REDACTED]
        not secret: sk-short, Bearer of bad news, ask-anything-you-like-today
        ");
    }

    #[test]
    fn a_tests_own_redactions_reach_every_string() {
        let redactor = Redactor::standard()
            .pattern(r"\b\d{4}-\d{4}-\d{4}-\d{4}\b")
            .unwrap()
            .with(|text| text.replace("kim@example.com", "<email>"));
        let mut value =
            json!({"a": ["card 1234-5678-9012-3456", {"to": "kim@example.com"}], "n": 1});
        redactor.redact(&mut value);
        assert_eq!(
            value,
            json!({"a": ["card [REDACTED]", {"to": "<email>"}], "n": 1})
        );
    }
}
