//! Which provider, model and credentials: from the element's provider inputs, `PROVIDER:MODEL`
//! and the environment; every problem a clear error before any call.

use baton_providers::{MapEnvironment, ModelChoice, select};
use serde_json::{Value, json};

use crate::support::template_calls;

/// The template's provider inputs (Anthropic, `{{secrets.ANTHROPIC_API_KEY}}`,
/// `claude-sonnet-4-5`), as the job carries them.
fn template_inputs() -> Value {
    template_calls()[0]
        .0
        .clone()
        .expect("the job carries provider")
}

fn outcome(inputs: Option<&Value>, choice: Option<&str>, env: &[(&str, &str)]) -> String {
    let env = MapEnvironment::new(env.iter().copied());
    let choice = match choice.map(str::parse::<ModelChoice>) {
        Some(Err(e)) => return format!("error: {e}"),
        Some(Ok(c)) => Some(c),
        None => None,
    };
    match select(inputs, choice.as_ref(), &env) {
        Ok(target) => format!(
            "{} at {}{} auth {:?}{}",
            target.label(),
            target.base_url,
            if target.query.is_empty() {
                String::new()
            } else {
                format!(" {:?}", target.query)
            },
            target.auth,
            if target.headers.is_empty() {
                String::new()
            } else {
                format!(
                    " headers {:?}",
                    target.headers.iter().map(|(n, _)| n).collect::<Vec<_>>()
                )
            }
        ),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn the_template_element_names_anthropic_and_its_secret() {
    let inputs = template_inputs();
    assert_eq!(
        inputs,
        json!({
            "type": "anthropic",
            "anthropic": {
                "authentication": {"apiKey": "{{secrets.ANTHROPIC_API_KEY}}"},
                "model": {"model": "claude-sonnet-4-5"}
            }
        })
    );
}

/// A name, the element's provider inputs, `--model`, the environment.
type Case<'a> = (
    &'a str,
    Option<&'a Value>,
    Option<&'a str>,
    Vec<(&'a str, &'a str)>,
);

#[test]
fn selections_and_their_errors() {
    let template = template_inputs();
    let t = Some(&template);
    let custom = json!({"type": "custom", "providerType": "my-llm", "model": "x"});
    let bedrock_keys = json!({"type": "bedrock", "bedrock": {"region": "eu-central-1",
        "authentication": {"type": "credentials", "accessKey": "{{secrets.AWS_KEY}}", "secretKey": "{{secrets.AWS_SECRET}}"},
        "model": {"model": "anthropic.claude-3-5-sonnet-20240620-v1:0", "parameters": {"maxTokens": 512}}}});
    let azure = json!({"type": "azureOpenAi", "azureOpenAi": {"endpoint": "https://my.openai.azure.com",
        "authentication": {"type": "apiKey", "apiKey": "{{secrets.AZURE_KEY}}"},
        "model": {"deploymentName": "gpt4o-prod", "parameters": {"maxTokens": "oops"}}}});
    let compatible = json!({"type": "openaiCompatible", "openaiCompatible": {
        "endpoint": "http://localhost:11434/v1", "headers": {"X-Tenant": "t1", "Authorization": "{{secrets.GATEWAY}}"},
        "model": {"model": "llama3.1"}}});
    let cohere = json!({"type": "cohere"});
    let no_model = json!({"type": "anthropic", "anthropic": {}});
    let cases: Vec<Case> = vec![
        (
            "template, key set",
            t,
            None,
            vec![("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdef")],
        ),
        ("template, key missing", t, None, vec![]),
        (
            "template, proxy",
            t,
            None,
            vec![
                ("ANTHROPIC_API_KEY", "k-1234"),
                ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ],
        ),
        (
            "override to OpenAI",
            t,
            Some("openai:gpt-4o-mini"),
            vec![("OPENAI_API_KEY", "sk-x-1234"), ("OPENAI_ORG_ID", "org-1")],
        ),
        ("override, no key", t, Some("openai:gpt-4o-mini"), vec![]),
        (
            "openai-compatible from the CLI",
            None,
            Some("openai-compatible:llama3.1:8b"),
            vec![("OPENAI_BASE_URL", "http://localhost:11434/v1")],
        ),
        (
            "openai-compatible without endpoint",
            None,
            Some("openai-compatible:llama3.1"),
            vec![],
        ),
        (
            "openai-compatible element headers",
            Some(&compatible),
            None,
            vec![("GATEWAY", "Bearer gw-secret-1")],
        ),
        (
            "unknown provider on the CLI",
            t,
            Some("mistral:large"),
            vec![],
        ),
        ("not PROVIDER:MODEL", t, Some("gpt-4o"), vec![]),
        (
            "unknown provider in the element",
            Some(&cohere),
            None,
            vec![],
        ),
        ("no provider at all", None, None, vec![]),
        ("v2 custom provider", Some(&custom), None, vec![]),
        (
            "no model",
            Some(&no_model),
            None,
            vec![("ANTHROPIC_API_KEY", "k-1234")],
        ),
        (
            "disallowed model",
            None,
            Some("azure-openai:../../admin"),
            vec![],
        ),
        (
            "model with a space",
            None,
            Some("anthropic:claude sonnet"),
            vec![],
        ),
        (
            "bedrock keys from secrets",
            Some(&bedrock_keys),
            None,
            vec![("AWS_KEY", "AKIDEXAMPLE"), ("AWS_SECRET", "secret-1234")],
        ),
        ("bedrock keys missing", Some(&bedrock_keys), None, vec![]),
        (
            "bedrock API key from the env",
            None,
            Some("bedrock:amazon.nova-pro-v1:0"),
            vec![
                ("AWS_REGION", "us-west-2"),
                ("AWS_BEARER_TOKEN_BEDROCK", "bedrock-key-1"),
            ],
        ),
        (
            "bedrock without region",
            None,
            Some("bedrock:amazon.nova-pro-v1:0"),
            vec![],
        ),
        (
            "azure, bad parameter",
            Some(&azure),
            None,
            vec![("AZURE_KEY", "azure-1234")],
        ),
        (
            "vertex without token",
            None,
            Some("vertex-ai:gemini-2.0-flash"),
            vec![
                ("GOOGLE_CLOUD_PROJECT", "p"),
                ("GOOGLE_CLOUD_LOCATION", "europe-west4"),
            ],
        ),
        (
            "vertex",
            None,
            Some("vertex-ai:gemini-2.0-flash"),
            vec![
                ("GOOGLE_CLOUD_PROJECT", "p"),
                ("GOOGLE_CLOUD_LOCATION", "europe-west4"),
                ("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.token"),
            ],
        ),
        (
            "gemini API",
            None,
            Some("gemini:gemini-2.5-flash"),
            vec![("GEMINI_API_KEY", "AIza-key")],
        ),
        (
            "bad base URL",
            None,
            Some("openai:gpt-4o"),
            vec![
                ("OPENAI_API_KEY", "k-1234"),
                ("OPENAI_BASE_URL", "localhost:8080"),
            ],
        ),
    ];
    let lines: Vec<String> = cases
        .into_iter()
        .map(|(name, inputs, choice, env)| format!("{name}:\n  {}", outcome(inputs, choice, &env)))
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}
