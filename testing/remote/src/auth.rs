//! How requests authenticate: none, HTTP basic, or OAuth client credentials, read from the
//! environment variables Camunda's SDKs read. Secrets stay in memory: `Debug` and every
//! message name the variable, never its value.

use std::time::{Duration, Instant};

use base64::Engine as _;

/// The environment variables, as the official SDKs name them.
pub const ENV_BASIC_USER: &str = "CAMUNDA_BASIC_AUTH_USERNAME";
pub const ENV_BASIC_PASSWORD: &str = "CAMUNDA_BASIC_AUTH_PASSWORD";
pub const ENV_CLIENT_ID: &str = "CAMUNDA_CLIENT_ID";
pub const ENV_CLIENT_SECRET: &str = "CAMUNDA_CLIENT_SECRET";
pub const ENV_OAUTH_URL: &str = "CAMUNDA_OAUTH_URL";
pub const ENV_TOKEN_AUDIENCE: &str = "CAMUNDA_TOKEN_AUDIENCE";
pub const ENV_TOKEN_SCOPE: &str = "CAMUNDA_TOKEN_SCOPE";

/// The audience the SDKs ask a token for when none is configured.
const DEFAULT_AUDIENCE: &str = "zeebe.camunda.io";

/// How to authenticate.
#[derive(Clone, Default)]
pub enum Auth {
    #[default]
    None,
    Basic {
        user: String,
        password: String,
    },
    /// Client credentials: one form POST to the token URL, the token kept until shortly before
    /// it expires.
    OAuth(OAuthSettings),
}

#[derive(Clone)]
pub struct OAuthSettings {
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub audience: String,
    pub scope: Option<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::None => f.write_str("none"),
            Auth::Basic { user, .. } => write!(f, "basic ({user})"),
            Auth::OAuth(o) => write!(f, "oauth ({} at {})", o.client_id, o.token_url),
        }
    }
}

impl Auth {
    /// Reads `--auth`: `none`, `basic:USER:PASS`, `basic` (user and password from the
    /// environment), `oauth` (client credentials from the environment). `env` looks a variable
    /// up (the process environment in the CLI).
    pub fn parse(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Auth, String> {
        let required = |name: &str| {
            env(name)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("--auth {text}: the environment variable {name} is not set"))
        };
        match text {
            "none" => Ok(Auth::None),
            "basic" => Ok(Auth::Basic {
                user: required(ENV_BASIC_USER)?,
                password: required(ENV_BASIC_PASSWORD)?,
            }),
            "oauth" => Ok(Auth::OAuth(OAuthSettings {
                token_url: required(ENV_OAUTH_URL)?,
                client_id: required(ENV_CLIENT_ID)?,
                client_secret: required(ENV_CLIENT_SECRET)?,
                audience: env(ENV_TOKEN_AUDIENCE)
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| DEFAULT_AUDIENCE.to_owned()),
                scope: env(ENV_TOKEN_SCOPE).filter(|v| !v.is_empty()),
            })),
            _ => match text.strip_prefix("basic:").and_then(|r| r.split_once(':')) {
                Some((user, password)) if !user.is_empty() => Ok(Auth::Basic {
                    user: user.to_owned(),
                    password: password.to_owned(),
                }),
                _ => Err(format!(
                    "--auth must be none, basic:USER:PASS, basic (from {ENV_BASIC_USER} and {ENV_BASIC_PASSWORD}) or oauth (from {ENV_CLIENT_ID}, {ENV_CLIENT_SECRET}, {ENV_OAUTH_URL}), got \"{}\"",
                    text.split(':').next().unwrap_or_default()
                )),
            },
        }
    }
}

/// A token and when to fetch a new one.
pub(crate) struct Token {
    pub(crate) header: String,
    pub(crate) renew_at: Instant,
}

/// The `Authorization` header of basic auth.
pub(crate) fn basic_header(user: &str, password: &str) -> String {
    let raw = format!("{user}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

/// The form body of a client-credentials token request.
pub(crate) fn token_form(o: &OAuthSettings) -> String {
    let mut pairs = vec![
        ("grant_type", "client_credentials"),
        ("client_id", o.client_id.as_str()),
        ("client_secret", o.client_secret.as_str()),
        ("audience", o.audience.as_str()),
    ];
    if let Some(scope) = &o.scope {
        pairs.push(("scope", scope));
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", form_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Reads a token answer (`access_token`, `expires_in` seconds).
pub(crate) fn read_token(body: &str, now: Instant) -> Result<Token, String> {
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| format!("the token endpoint did not answer JSON: {e}"))?;
    let token = value
        .get("access_token")
        .and_then(|t| t.as_str())
        .ok_or("the token endpoint's answer has no access_token")?;
    let seconds = value
        .get("expires_in")
        .and_then(|e| e.as_u64())
        .unwrap_or(300);
    // Renewed a little early, so that no request goes out with a token about to expire.
    let life = Duration::from_secs(seconds.saturating_sub(30).max(1));
    Ok(Token {
        header: format!("Bearer {token}"),
        renew_at: now + life,
    })
}

fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn auth_reads_as_the_sdks_configure_it() {
        let none = env(&[]);
        assert!(matches!(Auth::parse("none", &none), Ok(Auth::None)));
        let Ok(Auth::Basic { user, password }) = Auth::parse("basic:demo:de:mo", &none) else {
            panic!()
        };
        assert_eq!((user.as_str(), password.as_str()), ("demo", "de:mo"));
        assert_eq!(
            Auth::parse("oauth", &none).unwrap_err(),
            "--auth oauth: the environment variable CAMUNDA_OAUTH_URL is not set"
        );
        let vars = [
            (ENV_OAUTH_URL, "https://login/oauth/token"),
            (ENV_CLIENT_ID, "id"),
            (ENV_CLIENT_SECRET, "s3cret&="),
        ];
        let Ok(Auth::OAuth(o)) = Auth::parse("oauth", &env(&vars)) else {
            panic!()
        };
        assert_eq!(o.audience, "zeebe.camunda.io");
        assert_eq!(
            token_form(&o),
            "grant_type=client_credentials&client_id=id&client_secret=s3cret%26%3D&audience=zeebe.camunda.io"
        );
        // The secret never shows.
        assert!(!format!("{:?}", Auth::OAuth(o)).contains("s3cret"));
        let err = Auth::parse("basic:pw-only-secret", &none).unwrap_err();
        assert!(!err.contains("secret"), "{err}");
        assert_eq!(basic_header("demo", "demo"), "Basic ZGVtbzpkZW1v");
    }

    #[test]
    fn a_token_is_renewed_before_it_expires() {
        let now = Instant::now();
        let t = read_token(r#"{"access_token":"abc","expires_in":3600}"#, now).unwrap();
        assert_eq!(t.header, "Bearer abc");
        assert_eq!(t.renew_at - now, Duration::from_secs(3570));
        assert!(read_token("{}", now).is_err());
        assert!(read_token("<html>", now).is_err());
    }
}
