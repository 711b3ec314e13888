//! The four wire formats: each builds the HTTP request of a conversation and reads the answer.
//!
//! - [`openai`] — chat completions (`openai`, `openaiCompatible`, Azure OpenAI).
//! - [`anthropic`] — Messages.
//! - [`bedrock`] — Converse, signed with SigV4 or a Bedrock API key.
//! - [`gemini`] — `generateContent` (Vertex AI, and Gemini's own API).

pub mod anthropic;
pub mod bedrock;
pub mod gemini;
pub mod openai;

use serde_json::{Map, Value};

use crate::conversation::{Conversation, RequestError};
use crate::error::{ErrorKind, ProviderError, short};
use crate::http::{HttpRequest, HttpResponse};
use crate::reply::Reply;
use crate::select::{Auth, ProviderKind, Target};

/// The request for `conversation`; `amz_date` (`YYYYMMDD'T'HHMMSS'Z'`) signs a Bedrock request.
pub fn build(
    target: &Target,
    conversation: &Conversation,
    amz_date: &str,
) -> Result<HttpRequest, RequestError> {
    Ok(match target.provider {
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible | ProviderKind::AzureOpenAi => {
            openai::request(target, conversation)
        }
        ProviderKind::Anthropic => anthropic::request(target, conversation)?,
        ProviderKind::Bedrock => bedrock::request(target, conversation, amz_date),
        ProviderKind::VertexAi | ProviderKind::Gemini => gemini::request(target, conversation),
    })
}

/// The answer of a response, or the provider's error.
pub fn parse(target: &Target, response: &HttpResponse) -> Result<Reply, ProviderError> {
    let model = target.label();
    let body: Option<Value> = serde_json::from_str(&response.body).ok();
    if !(200..300).contains(&response.status) {
        let (message, code) = match &body {
            Some(body) => match target.provider {
                ProviderKind::OpenAi
                | ProviderKind::OpenAiCompatible
                | ProviderKind::AzureOpenAi => openai::error(body),
                ProviderKind::Anthropic => anthropic::error(body),
                ProviderKind::Bedrock => bedrock::error(body, response),
                ProviderKind::VertexAi | ProviderKind::Gemini => gemini::error(body),
            },
            None => (None, None),
        };
        let message = message.unwrap_or_else(|| {
            if response.body.trim().is_empty() {
                "(no body)".to_string()
            } else {
                response.body.clone()
            }
        });
        return Err(ProviderError::Status {
            model,
            status: response.status,
            kind: ErrorKind::of_status(response.status),
            code,
            message: short(&message, 300),
            retry_after: response.header("retry-after").map(|r| {
                if r.chars().all(|c| c.is_ascii_digit()) {
                    format!("{r} s")
                } else {
                    r.to_string()
                }
            }),
        });
    }
    let Some(body) = body else {
        return Err(ProviderError::BadResponse {
            model,
            message: format!("not JSON: {}", short(&response.body, 120)),
        });
    };
    match target.provider {
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible | ProviderKind::AzureOpenAi => {
            openai::reply(&body)
        }
        ProviderKind::Anthropic => anthropic::reply(&body),
        ProviderKind::Bedrock => bedrock::reply(&body),
        ProviderKind::VertexAi | ProviderKind::Gemini => gemini::reply(&body),
    }
    .map_err(|message| ProviderError::BadResponse { model, message })
}

/// A JSON object of these entries, in order.
pub(crate) fn object<const N: usize>(entries: [(&str, Value); N]) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// `POST {base}{path}?{query}` with a JSON body, the target's authentication (not SigV4, which
/// signs the finished request) and its extra headers.
pub(crate) fn json_request(target: &Target, path: &str, body: &Value) -> HttpRequest {
    let mut url = format!("{}{path}", target.base_url);
    if !target.query.is_empty() {
        let query: Vec<String> = target
            .query
            .iter()
            .map(|(k, v)| format!("{}={}", query_encode(k), query_encode(v)))
            .collect();
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&query.join("&"));
    }
    let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
    match &target.auth {
        Auth::Bearer(token) => headers.push(("authorization".into(), format!("Bearer {token}"))),
        Auth::Header(name, value) => headers.push((name.to_string(), value.clone())),
        Auth::None | Auth::SigV4 { .. } => {}
    }
    for (name, value) in &target.headers {
        headers.push((name.to_ascii_lowercase(), value.clone()));
    }
    HttpRequest {
        method: "POST",
        url,
        headers,
        body: body.to_string(),
    }
}

fn query_encode(text: &str) -> String {
    crate::sigv4::uri_encode(text, false)
}
