//! `ProcessTest::mock_ai_agent`: the AI agent mock plugged into a process test through the
//! element-answerer seam ([`ProcessTest::answer_jobs_of_element`]), and the handle a test keeps.

use std::cell::{Ref, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;

use baton_engine::model::{ElementKind, TaskKind};
use baton_engine::runtime::{Engine, ExecutableProcess, SharedJson};

use super::cassette::Cassette;
use super::connector::{AgentJob, Flavour, JobAnswer, fetch_variables};
use super::instances::{
    self, AgentInstance, AgentInstanceMismatch, AgentStatus, ExpectedAgentInstance,
    ExpectedMetrics, HandedJob, HistoryRole,
};
use super::matchers::{ExpectedCall, ToolCallsDiffer};
use super::mock::{
    AgentMockFailure, AgentRequest, AgentScript, AiAgentMock, Delivery, ToolCallRecord, UnusedTurns,
};
use super::on_engine::{AGENT_SUB_PROCESS_V2_JOB_TYPE, AGENT_TASK_JOB_TYPES, DefinitionTools};
use super::recording::{CassetteScript, CassetteSession, Drift, SessionFailure};
use crate::faults::{FaultError, ModelFault};
use crate::mocks::{Answer, AnswerJob, FailJob, TestJob};
use crate::process_test::Inner;
use crate::trace::{ModelCall, TraceEvent};
use crate::{ProcessTest, Quiescent};

impl ProcessTest {
    /// Plays the AI Agent connector for the agent element `element_id`, with the model's turns
    /// from `script`: turns (`[Turn::call(…), Turn::respond_json(…)]`), a [`Cassette`], a handler
    /// ([`AgentScript::handler`]), or a cassette file replayed with checks or recorded
    /// ([`CassetteScript`]). Turns are used in order across every run of the element. The element
    /// is an AI Agent Sub-process (a job-worker ad-hoc sub-process with an output collection) or
    /// an AI Agent Task (a service task of job type `io.camunda.agenticai:aiagent:1` or
    /// `io.camunda.agenticai:aiagent:task:2`, whose tools are the ad-hoc sub-process
    /// `data.tools.containerElementId` names).
    ///
    /// Panics when no deployed process has an AI agent with this id, when a scripted turn is not
    /// valid, or when a cassette was recorded for another element. Script/process disagreements during a run (an unknown tool,
    /// wrong arguments, a script too short) fail the run with a message every assertion prints.
    #[track_caller]
    pub fn mock_ai_agent(&self, element_id: &str, script: impl Into<AgentScript>) -> AiAgentHandle {
        match self.try_mock_ai_agent(element_id, script) {
            Ok(handle) => handle,
            Err(message) => panic!("{message}"),
        }
    }

    /// Like [`mock_ai_agent`](Self::mock_ai_agent), with `Err` instead of a panic when the
    /// element is not an AI agent or the script is not valid (the CPT runner's `MOCK_AI_AGENT`
    /// fails its test case with it).
    pub fn try_mock_ai_agent(
        &self,
        element_id: &str,
        script: impl Into<AgentScript>,
    ) -> Result<AiAgentHandle, MockAiAgentError> {
        let agent = self
            .with_engine(|engine| agent_element(engine, element_id))
            .map_err(|message| MockAiAgentError::NotAnAgent {
                element_id: element_id.to_string(),
                message,
            })?;
        let (mock, session) = match script.into() {
            AgentScript::Recording(script) => self.cassette_mock(element_id, script)?,
            script => (AiAgentMock::new(element_id, script)?, None),
        };
        let tool_cache = self.inner.borrow().tool_cache.clone();
        let shared = Rc::new(RefCell::new(
            mock.with_tool_order(agent.tool_order)
                .with_tool_cache(tool_cache),
        ));
        let cassette = session.map(|session| CassetteHandle {
            session,
            test: Rc::downgrade(&self.inner),
        });
        let jobs = Rc::new(RefCell::new(Vec::new()));
        let definitions = agent.task.then(|| Rc::downgrade(&self.inner));
        self.answer_jobs_of_element(
            element_id,
            format!("AI agent mock \"{element_id}\""),
            AgentAnswerer {
                mock: shared.clone(),
                jobs: jobs.clone(),
                definitions,
                cassette: cassette.clone(),
                test: Rc::downgrade(&self.inner),
            },
        );
        // A recording is rewritten when the run waits, so the file holds the last call's
        // trajectory too, whatever the test asks after.
        if let Some(cassette) = &cassette
            && cassette.session.borrow().is_recording()
        {
            let session = cassette.session.clone();
            self.at_quiescence(move |state: &mut Quiescent<'_>| {
                let synced = session.borrow_mut().sync(state.engine());
                if let Err(e) = synced {
                    state.add_error(None, e.to_string());
                }
                false
            });
        }
        Ok(AiAgentHandle {
            element_id: element_id.to_string(),
            notes: agent.notes,
            mock: shared,
            cassette,
            jobs,
            test: Rc::downgrade(&self.inner),
        })
    }

    /// The mock of a [`CassetteScript`]: a session on the file, or (a format 1 cassette
    /// replayed) its turns, played as they always were.
    fn cassette_mock(
        &self,
        element_id: &str,
        script: CassetteScript,
    ) -> Result<(AiAgentMock, Option<SharedSession>), MockAiAgentError> {
        let file = script.path.display().to_string();
        if !script.problems.is_empty() {
            return Err(MockAiAgentError::Cassette {
                message: format!(
                    "the cassette script {file} of \"{element_id}\" has invalid rules:\n  - {}",
                    script.problems.join("\n  - ")
                ),
                file,
            });
        }
        let mut options = script.options;
        options.mode = options.mode.or_from_env();
        let session = self
            .with_engine(|engine| {
                CassetteSession::open(
                    engine,
                    element_id,
                    &script.path,
                    options,
                    script.record_with,
                )
            })
            .map_err(|e| MockAiAgentError::Cassette {
                file: file.clone(),
                message: e.to_string(),
            })?;
        if let Some(recording) = session.cassette()
            && recording.baton.is_none()
            && !session.is_drift_mode()
        {
            let cassette = Cassette::new(element_id, recording.turns());
            let script = AgentScript::Cassette {
                cassette,
                source: file,
            };
            return Ok((AiAgentMock::new(element_id, script)?, None));
        }
        let session = Rc::new(RefCell::new(session));
        Ok((
            AiAgentMock::with_session(element_id, session.clone()),
            Some(session),
        ))
    }
}

type SharedSession = Rc<RefCell<CassetteSession>>;

/// A cassette session and the test whose engine it reads.
#[derive(Clone)]
struct CassetteHandle {
    session: SharedSession,
    test: Weak<RefCell<Inner>>,
}

impl CassetteHandle {
    /// Reads what happened since the last sync into the session.
    fn sync(&self) -> Result<(), String> {
        let Some(test) = self.test.upgrade() else {
            return Ok(());
        };
        let inner = test.borrow();
        self.session
            .borrow_mut()
            .sync(&inner.engine)
            .map_err(|e| e.to_string())
    }

    /// Syncs and ends the session: a replay with recorded calls the run did not make fails
    /// (drift mode collects them).
    fn finish(&self) -> Result<(), SessionFailure> {
        let Some(test) = self.test.upgrade() else {
            return Ok(());
        };
        let inner = test.borrow();
        self.session.borrow_mut().finish(&inner.engine)
    }
}

/// Why an element cannot be mocked as an AI agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MockAiAgentError {
    /// The element is no AI agent; the message says what it is and what to change.
    #[error("{message}")]
    NotAnAgent { element_id: String, message: String },
    /// A scripted turn is not valid, or the cassette was recorded for another element.
    #[error(transparent)]
    Script(#[from] AgentMockFailure),
    /// A cassette that cannot be replayed or recorded (missing, corrupt, of a newer format,
    /// recorded for another element or process, no handler to record with, invalid rules).
    #[error("{message}")]
    Cassette { file: String, message: String },
}

/// Why [`AiAgentHandle::check_all_turns_used`] fails: the script or cassette still had turns
/// when the run ended.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NotAllTurnsUsed {
    /// Scripted turns the agent did not play.
    #[error(transparent)]
    Turns(#[from] UnusedTurns),
    /// A replayed cassette's recorded calls the run did not make (where the path went another
    /// way), or a recording that could not be brought up to date.
    #[error(transparent)]
    Cassette(#[from] SessionFailure),
}

/// The tools of the AI agent `element_id` (an AI Agent Sub-process, or an AI Agent Task with a
/// static tool container), or why it is not one.
pub(crate) fn agent_tools(engine: &Engine, element_id: &str) -> Result<AgentTools, String> {
    let element = agent_element(engine, element_id)?;
    if !element.task {
        return Ok(AgentTools {
            tool_order: element.tool_order,
            container: None,
        });
    }
    let container = engine.deployed_processes().find_map(|process| {
        let idx = process.find(element_id)?;
        task_container(process, idx).filter(|id| {
            process
                .find(id)
                .is_some_and(|c| process.ad_hoc_sub_process(c).is_some())
        })
    });
    match container {
        Some(container) => Ok(AgentTools {
            tool_order: element.tool_order,
            container: Some(container),
        }),
        None => Err(format!(
            "\"{element_id}\" is an AI Agent Task whose data.tools.containerElementId names no ad-hoc sub-process of its process (a static element id is needed to know its tools)"
        )),
    }
}

/// `Ok` when `element_id` is an AI agent of either flavour, else why it is not one.
pub fn is_agent(engine: &Engine, element_id: &str) -> Result<(), String> {
    agent_element(engine, element_id).map(|_| ())
}

/// An agent's tools: their element ids in document order, and for an AI Agent Task the
/// ad-hoc sub-process that holds them.
pub(crate) struct AgentTools {
    pub tool_order: Vec<String>,
    pub container: Option<String>,
}

/// An element a mock can play: which flavour of the connector, and its tools in document order
/// (for messages).
struct AgentElement {
    /// An AI Agent Task (a service task), not an AI Agent Sub-process.
    task: bool,
    tool_order: Vec<String>,
    /// Said when the element's template version is one baton does not know.
    notes: Vec<String>,
}

/// The note on the template version of an agent element (`zeebe:modelerTemplate` and its
/// version, else the `elementTemplateId` and `elementTemplateVersion` headers).
fn template_notes(
    process: &ExecutableProcess,
    idx: baton_engine::model::ElementIdx,
) -> Vec<String> {
    let element = process.model_element(idx);
    let header = |key: &str| {
        element
            .zeebe
            .task_headers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    let id = element
        .zeebe
        .modeler_template
        .clone()
        .or_else(|| header("elementTemplateId"));
    let version = element
        .zeebe
        .modeler_template_version
        .clone()
        .or_else(|| header("elementTemplateVersion"));
    match (id, version) {
        (Some(id), Some(version)) => super::templates::version_note(&element.id, &id, &version)
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// The AI agent `element_id`, or why it is not one.
fn agent_element(engine: &Engine, element_id: &str) -> Result<AgentElement, String> {
    let mut found_other = None;
    for process in engine.deployed_processes() {
        let Some(idx) = process.find(element_id) else {
            continue;
        };
        let tools = |ad_hoc: baton_engine::runtime::AdHocSubProcessView<'_>| -> Vec<String> {
            ad_hoc
                .activities
                .iter()
                .map(|&child| process.element_id(child).to_string())
                .collect()
        };
        let element = process.model_element(idx);
        if let ElementKind::Task(TaskKind::Service) = element.kind {
            let job_type = process.static_job_type(idx);
            if job_type.is_some_and(|t| AGENT_TASK_JOB_TYPES.contains(&t)) {
                let tool_order = task_container(process, idx)
                    .and_then(|id| process.find(&id))
                    .and_then(|c| process.ad_hoc_sub_process(c))
                    .map(tools)
                    .unwrap_or_default();
                return Ok(AgentElement {
                    task: true,
                    tool_order,
                    notes: template_notes(process, idx),
                });
            }
            found_other = Some(format!(
                "\"{element_id}\" is a service task of job type {}, not an AI Agent Task: apply the AI Agent Task template (zeebe:taskDefinition type=\"io.camunda.agenticai:aiagent:1\")",
                job_type.map_or_else(
                    || "given by an expression".to_string(),
                    |t| format!("\"{t}\"")
                )
            ));
            continue;
        }
        match process.ad_hoc_sub_process(idx) {
            Some(ad_hoc) if ad_hoc.job_worker && ad_hoc.output_collection.is_some() => {
                return Ok(AgentElement {
                    task: false,
                    tool_order: tools(ad_hoc),
                    notes: template_notes(process, idx),
                });
            }
            Some(ad_hoc) if ad_hoc.job_worker => {
                found_other = Some(format!(
                    "\"{element_id}\" has no zeebe:adHoc outputCollection: set outputCollection=\"toolCallResults\" (and the outputElement of the AI Agent Sub-process template) so tool results reach the agent"
                ));
            }
            Some(_) => {
                found_other = Some(format!(
                    "\"{element_id}\" is an ad-hoc sub-process without a job worker: apply the AI Agent Sub-process template (zeebe:taskDefinition type=\"io.camunda.agenticai:aiagent-job-worker:1\" or \"{AGENT_SUB_PROCESS_V2_JOB_TYPE}\"), or mock the AI Agent Task whose tools it holds"
                ));
            }
            _ => {
                found_other = Some(format!(
                    "\"{element_id}\" is neither an ad-hoc sub-process nor a service task, so it cannot be an AI agent"
                ))
            }
        }
    }
    Err(found_other.unwrap_or_else(|| {
        format!("no deployed process has an element \"{element_id}\" to mock as an AI agent")
    }))
}

/// The static `data.tools.containerElementId` input of an AI Agent Task.
pub(crate) fn task_container(
    process: &ExecutableProcess,
    task: baton_engine::model::ElementIdx,
) -> Option<String> {
    process
        .model_element(task)
        .zeebe
        .input_mappings
        .iter()
        .find(|m| m.target == "data.tools.containerElementId")
        .and_then(|m| m.source.as_ref())
        .filter(|s| s.feel().is_none())
        .map(|s| s.text.trim().to_string())
}

/// Answers the agent's jobs with the mock, and notes each job handed to it (what the agent
/// instances are derived from).
struct AgentAnswerer {
    mock: Rc<RefCell<AiAgentMock>>,
    jobs: Rc<RefCell<Vec<HandedJob>>>,
    /// The test's engine, for an AI Agent Task's tools (read from the process definition).
    definitions: Option<Weak<RefCell<Inner>>>,
    cassette: Option<CassetteHandle>,
    /// The test, for its run trace (the model calls and their faults).
    test: Weak<RefCell<Inner>>,
}

impl AnswerJob for AgentAnswerer {
    fn answer(&mut self, job: &TestJob) -> Answer {
        // The trajectory of the previous model call ends here.
        if let Some(cassette) = &self.cassette
            && let Err(message) = cassette.sync()
        {
            return Answer::FailRun(message);
        }
        let variables = fetch_variables(job.variables.entries.iter().map(|(n, v)| (&**n, v)));
        // The stored context: the sub-process's `agentContext`, a task's `data.context`.
        let data = variables.get("data").map(SharedJson::view);
        let context = if self.definitions.is_some() {
            data.and_then(|d| d.get("context"))
        } else {
            variables.get("agentContext").map(SharedJson::view)
        };
        let mut handed = HandedJob::read(
            job.key,
            job.element_instance_key,
            job.process_instance_key,
            job.log_position,
            context,
            data,
        );
        handed.task = self.definitions.is_some();
        let context_state = context
            .and_then(|c| c.get("state"))
            .and_then(|s| s.as_str().map(str::to_string));
        let now = job.now_iso();
        // Answered while the test is not borrowed: the engine can be read here.
        let inner = self.definitions.as_ref().and_then(Weak::upgrade);
        let inner = inner.as_ref().map(|i| i.borrow());
        let tools = inner
            .as_ref()
            .map(|i| DefinitionTools::of(&i.engine, job.process_definition_key));
        let flavour = match &tools {
            Some(tools) => Flavour::Task(tools),
            None => Flavour::SubProcess,
        };
        let agent_job = AgentJob {
            flavour,
            job_key: job.key,
            element_id: &job.element_id,
            element_instance_key: job.element_instance_key,
            process_instance_key: job.process_instance_key,
            process_definition_key: job.process_definition_key,
            retries: job.retries,
            variables,
            headers: &job.headers,
            now: Some(&now),
        };
        let mut mock = self.mock.borrow_mut();
        let requests_before = mock.requests().len();
        let (answered, delivery) = mock.answer_job_timed(agent_job);
        if mock.requests().len() > requests_before {
            handed.request = Some(requests_before);
        }
        if let Ok(JobAnswer::Complete(completion)) = &answered {
            let variables = &completion.variables;
            let new_context = match variables.get("agentContext") {
                Some(context) => Some(context.view()),
                None => variables.get("agent").and_then(|a| a.view().get("context")),
            };
            let new_state = new_context
                .and_then(|c| c.get("state"))
                .and_then(|s| s.as_str().map(str::to_string));
            handed.started_discovery = new_state.as_deref() == Some("TOOL_DISCOVERY")
                && context_state.as_deref() != Some("TOOL_DISCOVERY");
        }
        self.jobs.borrow_mut().push(handed);
        drop(mock);
        drop(inner);
        self.trace_model_call(job, requests_before);
        let answer = match answered {
            Ok(answer) => job_answer(answer),
            Err(failure) => return Answer::FailRun(failure.message),
        };
        match delivery {
            Delivery::AtOnce => answer,
            Delivery::After(latency) => Answer::Later {
                latency,
                answer: Box::new(answer),
            },
            Delivery::CrashAfterAnswer => Answer::Crash(Box::new(answer)),
        }
    }
}

impl AgentAnswerer {
    /// Adds the model call this job made (and the fault at it) to the test's run trace, when
    /// the test keeps one.
    fn trace_model_call(&self, job: &TestJob, calls_before: usize) {
        let Some(test) = self.test.upgrade() else {
            return;
        };
        let mock = self.mock.borrow();
        let Some(request) = mock.requests().get(calls_before) else {
            return;
        };
        let mut inner = test.borrow_mut();
        if !inner.trace.on {
            return;
        }
        if let Some(fault) = &request.fault {
            let attempt = inner.workers.attempt_of(job.key);
            inner.trace_push(
                job.process_instance_key,
                TraceEvent::Fault {
                    element: job.element_id.clone(),
                    job_type: job.job_type.clone(),
                    attempt,
                    fault: format!("model call {}: {fault}", request.model_call),
                },
            );
        }
        inner.trace_push(
            job.process_instance_key,
            TraceEvent::ModelCall(ModelCall {
                agent: job.element_id.clone(),
                call: request.model_call,
                request: serde_json::Value::Null,
                turn: request.turn.clone(),
            }),
        );
    }
}

/// The connector's answer as the answer a job mock gives.
pub(crate) fn job_answer(answer: JobAnswer) -> Answer {
    match answer {
        JobAnswer::Complete(completion) if completion.plain => Answer::Complete(
            completion
                .variables
                .into_iter()
                .map(|(name, value)| (name, value.into_json()))
                .collect(),
        ),
        JobAnswer::Complete(completion) => {
            let (variables, result) = completion.into_job_result();
            Answer::CompleteAdHoc { variables, result }
        }
        JobAnswer::Fail(failure) => Answer::Fail(FailJob {
            retries: Some(failure.retries),
            message: failure.error_message,
            backoff: Duration::from_millis(failure.retry_backoff_ms.unwrap_or(0)),
            variables: failure.variables,
        }),
        JobAnswer::ThrowError(thrown) => Answer::ThrowError {
            code: thrown.code,
            message: thrown.message.unwrap_or_default(),
            variables: thrown.variables,
        },
    }
}

/// The handle of an AI agent mock: what the model saw, the tools it called, the turns left,
/// and the agent instances the engine holds for it.
#[derive(Clone)]
pub struct AiAgentHandle {
    element_id: String,
    /// What the mock says about how it plays the element (a template version it does not know).
    notes: Vec<String>,
    mock: Rc<RefCell<AiAgentMock>>,
    /// Every job handed to the mock, in order.
    jobs: Rc<RefCell<Vec<HandedJob>>>,
    test: Weak<RefCell<Inner>>,
    cassette: Option<CassetteHandle>,
}

impl std::fmt::Debug for AiAgentHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.mock.borrow().fmt(f)
    }
}

impl AiAgentHandle {
    /// The agent element.
    pub fn element_id(&self) -> &str {
        &self.element_id
    }

    /// Injects a fault at one of the agent's model calls (see [`ModelFault`]): an error as the
    /// connector reports it, a latency, or a crash of the connector after the model answered.
    /// Panics on a fault that cannot be injected (model call 0, an absurd duration).
    #[track_caller]
    pub fn inject_fault(&self, fault: ModelFault) -> &Self {
        if let Err(e) = self.try_inject_fault(fault) {
            panic!("{e}");
        }
        self
    }

    /// Like [`inject_fault`](Self::inject_fault), with `Err` instead of a panic.
    pub fn try_inject_fault(&self, fault: ModelFault) -> Result<&Self, FaultError> {
        self.mock.borrow_mut().inject_fault(fault)?;
        if let Some(test) = self.test.upgrade() {
            test.borrow_mut().trace_on();
        }
        Ok(self)
    }

    /// What the model saw on each call, oldest first.
    pub fn requests(&self) -> Ref<'_, [AgentRequest]> {
        Ref::map(self.mock.borrow(), |m| m.requests())
    }

    /// Every tool call the model made, in order.
    pub fn tool_calls(&self) -> Ref<'_, [ToolCallRecord]> {
        Ref::map(self.mock.borrow(), |m| m.tool_calls())
    }

    /// The injected faults at a model call the agent has not made, as `the fault at model
    /// call 5 of "support-agent" (it made 3 model calls)`.
    pub fn unplayed_faults(&self) -> Vec<String> {
        let mock = self.mock.borrow();
        let made = mock.requests().len();
        mock.unplayed_faults()
            .into_iter()
            .map(|f| {
                format!(
                    "the fault at model call {} of \"{}\" (it made {made} model call{})",
                    f.call,
                    self.element_id,
                    if made == 1 { "" } else { "s" }
                )
            })
            .collect()
    }

    /// Turns of the script (or recorded calls of the cassette) not played yet (0 for a handler
    /// and when recording).
    pub fn remaining_turns(&self) -> usize {
        self.mock.borrow().remaining_turns()
    }

    /// The turns played so far, as a cassette of this element (to save what a handler returned).
    pub fn cassette(&self) -> Cassette {
        self.mock.borrow().cassette()
    }

    /// Panics unless the tool calls are exactly `expected`: each entry a tool id, or a tool with
    /// arguments (literal JSON or matchers).
    #[track_caller]
    pub fn assert_called_tools(
        &self,
        expected: impl IntoIterator<Item = impl Into<ExpectedCall>>,
    ) -> &Self {
        if let Err(message) = self.mock.borrow().check_called_tools(expected) {
            panic!("{message}");
        }
        self
    }

    /// Panics when turns of the script were not used; for a cassette replayed with checks,
    /// when the run did not make every recorded call (the message says where the path went
    /// another way).
    #[track_caller]
    pub fn assert_all_turns_used(&self) -> &Self {
        if let Err(message) = self.check_all_turns_used() {
            panic!("{message}");
        }
        self
    }

    /// `Err` with the message of [`assert_all_turns_used`](Self::assert_all_turns_used).
    pub fn check_all_turns_used(&self) -> Result<(), NotAllTurnsUsed> {
        match &self.cassette {
            Some(_) => Ok(self.check_cassette()?),
            None => Ok(self.mock.borrow().check_all_turns_used()?),
        }
    }

    /// For a cassette replayed with checks: `Err` when the run did not make every recorded call
    /// (the message says where the path went another way). `Ok` for other scripts, when
    /// recording, and in drift mode (which collects it: [`drifts`](Self::drifts)).
    pub fn check_cassette(&self) -> Result<(), SessionFailure> {
        match &self.cassette {
            Some(cassette) => cassette.finish(),
            None => Ok(()),
        }
    }

    /// The cassette file of a [`CassetteScript`] as messages name it (`None` for other
    /// scripts).
    pub fn cassette_source(&self) -> Option<String> {
        self.cassette
            .as_ref()
            .map(|c| c.session.borrow().source().to_string())
    }

    /// For a cassette replayed with [`CassetteScript::drift`]: every drift found so far (calls
    /// that do not match, calls the cassette does not have, recorded calls the run did not
    /// make), as a failing replay would have said it. Empty for other scripts.
    pub fn drifts(&self) -> Vec<Drift> {
        let Some(cassette) = &self.cassette else {
            return Vec::new();
        };
        // Recorded calls not made count once the run is over: a failed finish is in drifts.
        let _ = cassette.finish();
        cassette.session.borrow().drifts().to_vec()
    }

    /// For a cassette replayed: how this run's trajectory changed against it, one line per
    /// change (the requests, the turns, the path after each call, the final state); empty when
    /// nothing changed, when recording, and for other scripts.
    pub fn drift_report(&self) -> Vec<String> {
        let Some(cassette) = &self.cassette else {
            return Vec::new();
        };
        if let Err(message) = cassette.sync() {
            return vec![message];
        }
        cassette.session.borrow().drift_report()
    }

    /// The model calls recorded into this agent's cassette so far (0 unless recording).
    pub fn recorded_calls(&self) -> usize {
        self.cassette.as_ref().map_or(0, |c| {
            let session = c.session.borrow();
            if session.is_recording() {
                session.run().calls.len()
            } else {
                0
            }
        })
    }

    /// Whether this agent's cassette is being recorded (mode record, mode auto without the
    /// file, or `BATON_RECORD=1`).
    pub fn is_recording(&self) -> bool {
        self.cassette
            .as_ref()
            .is_some_and(|c| c.session.borrow().is_recording())
    }

    /// Answers every model call after the last turn with the last turn again.
    pub fn repeat_last_turn(&self) -> &Self {
        self.mock
            .borrow_mut()
            .set_on_exhausted(super::mock::OnExhausted::RepeatLast);
        self
    }

    /// What the mock says about how it plays the element: a template version baton does not
    /// know is played as the nearest known one.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The agent instances of this agent, in the order they were created (one per element
    /// instance the agent started in), as the engine holds them now; none once the process
    /// test is gone.
    pub fn agent_instances(&self) -> Vec<AgentInstance> {
        let Some(test) = self.test.upgrade() else {
            return Vec::new();
        };
        let inner = test.borrow();
        let engine = &inner.engine;
        instances::derive(
            engine.records(),
            |key| {
                engine
                    .process_instance(key)
                    .is_none_or(|p| !p.state.is_active())
            },
            &self.element_id,
            &self.jobs.borrow(),
            self.mock.borrow().requests(),
        )
    }

    /// The latest agent instance of this agent, `None` before its first job.
    pub fn agent_instance(&self) -> Option<AgentInstance> {
        self.agent_instances().pop()
    }

    /// `Err` unless the latest agent instance matches `expected`.
    pub fn check_agent_instance(
        &self,
        expected: &ExpectedAgentInstance,
    ) -> Result<(), AgentInstanceMismatch> {
        expected.check(&self.element_id, &self.agent_instances())
    }

    /// Panics unless the latest agent instance has this status.
    #[track_caller]
    pub fn assert_agent_status(&self, status: AgentStatus) -> &Self {
        self.assert_agent_instance(ExpectedAgentInstance::new().status(status))
    }

    /// Panics unless the latest agent instance's metrics are these (the fields left `None` are
    /// not checked).
    #[track_caller]
    pub fn assert_agent_metrics(&self, metrics: ExpectedMetrics) -> &Self {
        self.assert_agent_instance(ExpectedAgentInstance::new().metrics(metrics))
    }

    /// Panics unless the roles of the latest agent instance's committed history are `roles`, in
    /// order.
    #[track_caller]
    pub fn assert_history_roles(&self, roles: impl IntoIterator<Item = HistoryRole>) -> &Self {
        self.assert_agent_instance(ExpectedAgentInstance::new().history_roles(roles))
    }

    /// Panics unless the latest agent instance matches `expected`.
    #[track_caller]
    pub fn assert_agent_instance(&self, expected: ExpectedAgentInstance) -> &Self {
        if let Err(mismatch) = self.check_agent_instance(&expected) {
            panic!("{mismatch}");
        }
        self
    }

    /// `Err` when the tool calls differ from `expected`.
    pub fn check_called_tools(
        &self,
        expected: impl IntoIterator<Item = impl Into<ExpectedCall>>,
    ) -> Result<(), ToolCallsDiffer> {
        self.mock.borrow().check_called_tools(expected)
    }
}
