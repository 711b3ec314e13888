//! The provider client: one model call of the agent mock, sent the way the connector sends it,
//! answered with the turn the mock plays. It plugs in where an agent command does (a
//! [`TurnSource`]), and counts the tokens it spends.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use baton_testing::agent::recording::{TurnSource, request_json};
use baton_testing::agent::{AgentRequest, AgentScript, Turn, Usage};
use serde_json::Value;

use crate::conversation::Conversation;
use crate::env::{Environment, ProcessEnvironment};
use crate::error::ProviderError;
use crate::http::{HttpRequest, HttpResponse, Transport, TransportError, UreqTransport};
use crate::reply::Reply;
use crate::select::{ConfigError, ModelChoice, Target, select};
use crate::wire;

/// One model call's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub turn: Turn,
    pub reply: Reply,
    /// `provider:model` that answered.
    pub model: String,
}

/// A client for the providers the AI Agent connector supports.
pub struct ModelClient {
    choice: Option<ModelChoice>,
    env: Box<dyn Environment>,
    transport: Box<dyn Transport>,
    /// The time a Bedrock request is signed at (`YYYYMMDD'T'HHMMSS'Z'`).
    clock: Box<dyn Fn() -> String>,
    /// A limit on the model calls' timeout (the element's or the connector's default below it).
    timeout: Option<Duration>,
    spent: Rc<Cell<Usage>>,
}

impl std::fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelClient")
            .field("choice", &self.choice)
            .field("spent", &self.spent.get())
            .finish_non_exhaustive()
    }
}

/// The wall clock in SigV4's form, read at the edge (never in the engine).
fn now_amz() -> String {
    jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string()
}

impl ModelClient {
    /// A client over the network with the process environment, calling the provider each
    /// agent element names, or `choice` for all of them.
    pub fn new(choice: Option<ModelChoice>) -> ModelClient {
        ModelClient {
            choice,
            env: Box::new(ProcessEnvironment),
            transport: Box::new(UreqTransport::default()),
            clock: Box::new(now_amz),
            timeout: None,
            spent: Rc::new(Cell::new(Usage::default())),
        }
    }

    /// Reads credentials and base URLs from `env` instead of the process environment.
    pub fn with_environment(mut self, env: impl Environment + 'static) -> ModelClient {
        self.env = Box::new(env);
        self
    }

    /// Sends through `transport`.
    pub fn with_transport(mut self, transport: impl Transport + 'static) -> ModelClient {
        self.transport = Box::new(transport);
        self
    }

    /// Signs at the time `clock` says (tests pin it).
    pub fn with_clock(mut self, clock: impl Fn() -> String + 'static) -> ModelClient {
        self.clock = Box::new(clock);
        self
    }

    /// Gives up on a call after `timeout` at the latest.
    pub fn with_timeout(mut self, timeout: Duration) -> ModelClient {
        self.timeout = Some(timeout);
        self
    }

    /// The tokens every answer so far reported.
    pub fn spent(&self) -> Usage {
        self.spent.get()
    }

    /// The shared token counter (it outlives the client when the client is moved into a
    /// turn source).
    pub fn spent_counter(&self) -> Rc<Cell<Usage>> {
        self.spent.clone()
    }

    /// Where a call for these provider inputs goes (all checks, no call).
    pub fn target(&self, provider_inputs: Option<&Value>) -> Result<Target, ConfigError> {
        select(provider_inputs, self.choice.as_ref(), &*self.env)
    }

    /// The HTTP request of a model call (a request as a model adapter reads it).
    pub fn http_request(
        &self,
        target: &Target,
        request: &Value,
    ) -> Result<HttpRequest, ProviderError> {
        let wrap = |error| ProviderError::Request {
            model: target.label(),
            error,
        };
        let conversation = Conversation::from_request(request).map_err(wrap)?;
        wire::build(target, &conversation, &(self.clock)()).map_err(wrap)
    }

    /// Asks the model: the request of the agent mock's model call (`json` as recordings store
    /// it, before normalisation), sent to the provider its element names.
    pub fn ask(&self, request: &AgentRequest, json: &Value) -> Result<Answer, ProviderError> {
        let inputs = request.provider.as_ref().map(|p| p.view().to_json());
        let target = self.target(inputs.as_ref())?;
        self.ask_target(&target, json)
    }

    /// Asks `target` (see [`ModelClient::ask`]); every secret of the target is redacted from
    /// an error.
    pub fn ask_target(&self, target: &Target, json: &Value) -> Result<Answer, ProviderError> {
        let http = self.http_request(target, json)?;
        let response = self.send(target, &http)?;
        let reply = wire::parse(target, &response).map_err(|e| e.redacted(&target.secrets()))?;
        let mut spent = self.spent.get();
        spent.add(&reply.usage);
        self.spent.set(spent);
        Ok(Answer {
            turn: reply.to_turn(),
            reply,
            model: target.label(),
        })
    }

    /// Sends a request to `target` within its timeout: the response when its status is 2xx,
    /// else the provider's error (secrets redacted).
    pub(crate) fn send(
        &self,
        target: &Target,
        http: &HttpRequest,
    ) -> Result<HttpResponse, ProviderError> {
        let secrets = target.secrets();
        let timeout = match self.timeout {
            Some(limit) => target.timeout.min(limit),
            None => target.timeout,
        };
        let response = self.transport.send(http, timeout).map_err(|e| {
            match e {
                TransportError::Timeout(after) => ProviderError::Timeout {
                    model: target.label(),
                    after,
                },
                TransportError::Connect(message) | TransportError::Other(message) => {
                    ProviderError::Network {
                        model: target.label(),
                        url: target.base_url.clone(),
                        message,
                    }
                }
            }
            .redacted(&secrets)
        })?;
        if !(200..300).contains(&response.status)
            && let Err(error) = wire::parse(target, &response)
        {
            return Err(error.redacted(&secrets));
        }
        Ok(response)
    }

    /// The client as an agent mock's script for live runs (no cassette): each model call asks
    /// the provider; a failed call is played as the failed model call it is (the connector
    /// fails the job), and kept in the returned list so that a live run can tell an
    /// infrastructure error from a test failure.
    pub fn into_script(self) -> (AgentScript, Rc<RefCell<Vec<ProviderError>>>) {
        let errors = Rc::new(RefCell::new(Vec::new()));
        let kept = errors.clone();
        let script = AgentScript::handler(move |request| {
            let json = request_json(request);
            match self.ask(request, &json) {
                Ok(answer) => answer.turn,
                Err(error) => {
                    let turn = Turn::error(error.to_string());
                    kept.borrow_mut().push(error);
                    turn
                }
            }
        });
        (script, errors)
    }

    /// The client as the turns of a recording (`record_with_source`): each model call asks
    /// the provider; a failure stops the recording with its message.
    pub fn into_turn_source(self) -> TurnSource {
        Box::new(move |request, json| {
            self.ask(request, json)
                .map(|answer| answer.turn)
                .map_err(|e| {
                    format!(
                        "model call {} of \"{}\" failed: {e}",
                        request.model_call, request.element_id
                    )
                })
        })
    }
}
