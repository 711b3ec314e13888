//! A stand-in for Zeebe's job-worker ad-hoc sub-process, enough to drive the mock through whole
//! conversations: the AHSP's local variables, the tools it activated, `toolCallResults` appended
//! by the template's `outputElement` when a tool completes, and a new job after every completion.

use baton_engine::runtime::SharedJson;
use baton_testing::agent::{AgentJob, AgentMockFailure, AiAgentMock, JobAnswer, fetch_variables};
use indexmap::IndexMap;
use serde_json::{Value, json};

/// The template's tools, as Zeebe lists them in `adHocSubProcessElements` (hash order).
pub fn support_tools() -> Value {
    json!([
        {"elementId": "search-kb", "elementName": "Search knowledge base",
         "documentation": "Searches the help-centre knowledge base and returns the titles of matching articles.",
         "parameters": [{"name": "toolCall.query", "description": "What to search for, in a few words", "type": "string"}]},
        {"elementId": "create-ticket", "elementName": "Create ticket",
         "documentation": "Opens a support ticket for follow-up work and returns its id.",
         "parameters": [
            {"name": "toolCall.summary", "description": "A one-line summary of the problem", "type": "string"},
            {"name": "toolCall.priority", "description": "low, normal or high", "type": "string",
             "schema": {"enum": ["low", "normal", "high"]}, "options": {"required": false}}]},
        {"elementId": "lookup-order", "elementName": "Look up order",
         "documentation": "Looks up an order by its number and returns its status and whether it arrived damaged.",
         "parameters": [{"name": "toolCall.orderId", "description": "The order number, for example 1042", "type": "string"}]}
    ])
}

/// The template's `data` input (JSON response format, context included in `agent`).
pub fn support_data(user_prompt: &str) -> Value {
    json!({
        "systemPrompt": {"prompt": "You are a customer support agent of an online shop."},
        "userPrompt": {"prompt": user_prompt},
        "memory": {"storage": {"type": "in-process"}, "contextWindowSize": 20},
        "limits": {"maxModelCalls": 10},
        "events": {"behavior": "WAIT_FOR_TOOL_CALL_RESULTS"},
        "response": {
            "format": {"type": "json", "schema": {"type": "object"}, "schemaName": "SupportAnswer"},
            "includeAssistantMessage": false,
            "includeAgentContext": true
        }
    })
}

/// The document order of the template's tools.
pub const SUPPORT_TOOL_ORDER: [&str; 3] = ["search-kb", "lookup-order", "create-ticket"];

pub struct Ahsp {
    pub element_id: String,
    /// The AHSP's local variables.
    pub vars: IndexMap<String, Value>,
    pub headers: IndexMap<String, String>,
    pub retries: i32,
    /// Tools activated and not completed yet: (element id, local variables).
    pub running: Vec<(String, IndexMap<String, Value>)>,
    pub completed: bool,
    /// A job threw a BPMN error.
    pub thrown: bool,
    /// Every job answer, as JSON.
    pub answers: Vec<Value>,
    pub next_job_key: u64,
    pub now: Option<String>,
}

impl Ahsp {
    pub fn new(element_id: &str, elements: Value, data: Value) -> Ahsp {
        let mut vars = IndexMap::new();
        vars.insert("adHocSubProcessElements".into(), elements);
        vars.insert("toolCallResults".into(), json!([]));
        vars.insert(
            "provider".into(),
            json!({"type": "anthropic", "anthropic": {"model": {"model": "claude-sonnet-4-5"}}}),
        );
        vars.insert("data".into(), data);
        vars.insert("agentContext".into(), Value::Null);
        vars.insert("agent".into(), Value::Null);
        let mut headers = IndexMap::new();
        headers.insert("elementTemplateVersion".to_string(), "11".to_string());
        headers.insert("retryBackoff".to_string(), "PT30S".to_string());
        Ahsp {
            element_id: element_id.to_string(),
            vars,
            headers,
            retries: 3,
            running: Vec::new(),
            completed: false,
            thrown: false,
            answers: Vec::new(),
            next_job_key: 100,
            now: None,
        }
    }

    /// Answers the current job and applies the answer like Zeebe.
    pub fn run_job(&mut self, mock: &mut AiAgentMock) -> Result<JobAnswer, AgentMockFailure> {
        self.next_job_key += 1;
        let job = AgentJob {
            flavour: baton_testing::agent::Flavour::SubProcess,
            job_key: self.next_job_key,
            element_id: &self.element_id,
            element_instance_key: 42,
            process_instance_key: 7,
            process_definition_key: 1,
            retries: self.retries,
            variables: fetch_variables(
                self.vars
                    .iter()
                    .map(|(name, value)| (name, SharedJson::new(value.clone()))),
            ),
            headers: &self.headers,
            now: self.now.as_deref(),
        };
        let answer = mock.answer_job(job)?;
        self.answers.push(answer.to_json());
        match &answer {
            JobAnswer::Complete(completion) => {
                for (name, value) in &completion.variables {
                    self.vars.insert(name.to_string(), value.to_json());
                }
                if completion.cancel_remaining_instances {
                    self.running.clear();
                }
                for activation in &completion.activate_elements {
                    self.running.push((
                        activation.element_id.clone(),
                        baton_engine::runtime::plain_document(&activation.variables),
                    ));
                }
                if completion.completion_condition_fulfilled && self.running.is_empty() {
                    self.completed = true;
                }
            }
            JobAnswer::Fail(failure) => self.retries = failure.retries,
            JobAnswer::ThrowError(_) => self.thrown = true,
        }
        Ok(answer)
    }

    /// Completes the oldest running tool with `result` as its `toolCallResult`.
    pub fn complete_tool(&mut self, result: Value) {
        let (_, locals) = self.running.remove(0);
        let entry = json!({"id": locals["toolCall"]["_meta"]["id"], "name": locals["toolCall"]["_meta"]["name"], "content": result});
        self.vars["toolCallResults"]
            .as_array_mut()
            .expect("toolCallResults is a list")
            .push(entry);
    }

    /// Completes an event sub-process with `content` as its `toolCallResult`.
    pub fn complete_event(&mut self, content: Value) {
        self.vars["toolCallResults"]
            .as_array_mut()
            .expect("toolCallResults is a list")
            .push(json!({"id": null, "name": null, "content": content}));
    }

    /// Runs jobs and tools until the agent completes, fails or nothing can move. `tool` answers
    /// each tool from its name and `toolCall`.
    pub fn run(
        &mut self,
        mock: &mut AiAgentMock,
        tool: impl Fn(&str, &Value) -> Value,
    ) -> Result<(), AgentMockFailure> {
        for _ in 0..100 {
            let answer = self.run_job(mock)?;
            if self.completed || matches!(answer, JobAnswer::Fail(_)) || self.running.is_empty() {
                return Ok(());
            }
            let (name, locals) = &self.running[0];
            let result = tool(name, &locals["toolCall"]);
            self.complete_tool(result);
        }
        panic!("the conversation did not end in 100 jobs");
    }

    /// The seed's tool mocks for the template.
    pub fn support_tool(name: &str, tool_call: &Value) -> Value {
        match name {
            "lookup-order" => {
                json!({"id": tool_call["orderId"], "status": "delivered", "damaged": true})
            }
            "search-kb" => json!(["Returns and damaged items"]),
            "create-ticket" => json!({"ticketId": "T-77"}),
            other => json!(format!("no mock for {other}")),
        }
    }
}
