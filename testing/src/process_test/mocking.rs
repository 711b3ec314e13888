//! What answers a test's jobs and decisions: job mocks, element answerers (the AI agent mock's
//! seam), hooks at quiescence, decision and child process mocks, and their expectations.

use std::cell::RefCell;
use std::rc::Rc;

use baton_engine::runtime::Key;

use super::{Answerer, AtQuiescence, ProcessTest, UnmetExpectations, settle};
use crate::mocks::{AnswerJob, CallCountMissed, JobMock, MockBuilder, MockState};
use crate::variables::{IntoVariables, to_object, variables_or_panic};

impl ProcessTest {
    /// Mocks every job of a type (also the jobs already waiting). Finish with an answer:
    /// `complete_with(json!({..}))`, `complete_with_fn(|job| ..)`, `throw_error(code, msg)`,
    /// `fail(msg)`, `answers([..])`, ... A later mock of the same type replaces this one.
    pub fn mock_job(&self, job_type: impl Into<String>) -> MockBuilder<'_> {
        MockBuilder {
            test: self,
            job_type: job_type.into(),
            name: None,
            expected: None,
            faults: Vec::new(),
            side_effect: None,
        }
    }

    pub(crate) fn register_job_mock(&self, state: Rc<RefCell<MockState>>) {
        {
            let mut inner = self.inner.borrow_mut();
            let inner = &mut *inner;
            if inner.all_mocks.is_empty() {
                // A test mocks several job types: grow once, not at the 1st, 4th and 8th.
                inner.job_mocks.reserve(8);
                inner.all_mocks.reserve(8);
            }
            let job_type = state.borrow().job_type.clone();
            let waiting = inner.engine.activatable_jobs(Some(&job_type));
            if let Some(old) = inner.job_mocks.insert(job_type, state.clone()) {
                old.borrow_mut().active = false;
            }
            inner.all_mocks.push(state);
            if waiting.is_empty() {
                // Nothing for the new mock to answer now; jobs that appear later reach it
                // through the job feed at the next action.
                return;
            }
            inner.feed.extend(waiting.into_iter().map(|j| j.key));
        }
        settle(&self.inner);
    }

    /// Answers every job of an element (a task's job, or an ad-hoc sub-process's job) with
    /// `answerer`, before any job-type mock. This is the seam the AI Agent mock plugs into;
    /// `label` names it in run errors (e.g. `AI agent mock "support-agent"`). Jobs already
    /// waiting at the element are answered now.
    pub fn answer_jobs_of_element(
        &self,
        element_id: impl Into<String>,
        label: impl Into<String>,
        answerer: impl AnswerJob + 'static,
    ) {
        let element_id = element_id.into();
        {
            let mut inner = self.inner.borrow_mut();
            let answerer: Rc<RefCell<dyn AnswerJob>> = Rc::new(RefCell::new(answerer));
            inner.element_answerers.insert(
                element_id.clone(),
                Answerer::Element {
                    label: Rc::from(label.into()),
                    answerer,
                },
            );
            let waiting: Vec<Key> = inner
                .engine
                .activatable_jobs(None)
                .into_iter()
                .filter(|j| *j.element_id == *element_id)
                .map(|j| j.key)
                .collect();
            inner.feed.extend(waiting);
        }
        settle(&self.inner);
    }

    /// Stops answering the jobs of an element (see [`answer_jobs_of_element`](Self::answer_jobs_of_element)).
    pub fn stop_answering_jobs_of_element(&self, element_id: &str) {
        self.inner
            .borrow_mut()
            .element_answerers
            .shift_remove(element_id);
    }

    /// Adds a hook that runs at quiescence (see [`AtQuiescence`]).
    pub fn at_quiescence(&self, hook: impl AtQuiescence + 'static) {
        self.inner.borrow_mut().hooks.push(Box::new(hook));
        settle(&self.inner);
    }

    /// Every business rule task calling `decision_id` gets this output (CPT's
    /// `mockDmnDecision`).
    pub fn mock_decision(&self, decision_id: impl Into<String>, output: serde_json::Value) {
        self.inner
            .borrow_mut()
            .engine
            .register_decision(decision_id, output);
    }

    /// Deploys a stand-in for the process `process_id` that completes at once with these
    /// variables (CPT's `mockChildProcess`): a call activity calling it gets them back under
    /// its propagation rules. It replaces a real process of that id.
    #[track_caller]
    pub fn mock_child_process(&self, process_id: &str, variables: impl IntoVariables) {
        let doc = variables_or_panic(variables);
        let job_type = self.deploy_child_stand_in(process_id);
        // Fixed answers, not a closure: an exploration copies them into every fork.
        let _ = self
            .mock_job(job_type)
            .named(format!("child process \"{process_id}\""))
            .complete_with(serde_json::Value::Object(to_object(&doc)));
    }

    /// Like [`mock_child_process`](Self::mock_child_process), with the variables computed from
    /// the child's input variables.
    #[track_caller]
    pub fn mock_child_process_with(
        &self,
        process_id: &str,
        f: impl FnMut(&serde_json::Map<String, serde_json::Value>) -> serde_json::Value + 'static,
    ) {
        let job_type = self.deploy_child_stand_in(process_id);
        let mut f = f;
        let _ = self
            .mock_job(job_type)
            .named(format!("child process \"{process_id}\""))
            .complete_with_fn(move |job| f(job.variables()));
    }

    /// Deploys the stand-in of `process_id`; returns the job type of its task.
    #[track_caller]
    fn deploy_child_stand_in(&self, process_id: &str) -> String {
        let job_type = format!("{}{process_id}", crate::CHILD_MOCK_JOB_TYPE_PREFIX);
        let xml = child_process_xml(process_id, &job_type);
        if let Err(e) = self.deploy_xml(
            &format!("{}{process_id}.bpmn", crate::GENERATED_RESOURCE_PREFIX),
            &xml,
        ) {
            panic!("cannot mock child process \"{process_id}\": {e}");
        }
        job_type
    }

    /// Checks every mock's expected call count; lists every mock that missed it.
    pub fn verify(&self) -> Result<(), UnmetExpectations> {
        let inner = self.inner.borrow();
        let missed: Vec<CallCountMissed> = inner
            .all_mocks
            .iter()
            .filter_map(|m| m.borrow().verify().err())
            .collect();
        if missed.is_empty() {
            Ok(())
        } else {
            Err(UnmetExpectations { missed })
        }
    }

    /// The handle of a mock registered for a job type, if any.
    pub fn job_mock(&self, job_type: &str) -> Option<JobMock> {
        self.inner
            .borrow()
            .job_mocks
            .get(job_type)
            .map(|state| JobMock {
                state: state.clone(),
            })
    }
}

/// A stand-in process: start → a service task answered by the child mock → end.
fn child_process_xml(process_id: &str, job_type: &str) -> String {
    let id = xml_escape(process_id);
    let ty = xml_escape(job_type);
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="baton-mock-{id}" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="{id}" isExecutable="true">
    <bpmn:startEvent id="child-start"><bpmn:outgoing>child-flow-1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="child-flow-1" sourceRef="child-start" targetRef="child-mock"/>
    <bpmn:serviceTask id="child-mock">
      <bpmn:extensionElements><zeebe:taskDefinition type="{ty}"/></bpmn:extensionElements>
      <bpmn:incoming>child-flow-1</bpmn:incoming><bpmn:outgoing>child-flow-2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="child-flow-2" sourceRef="child-mock" targetRef="child-end"/>
    <bpmn:endEvent id="child-end"><bpmn:incoming>child-flow-2</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>
"#
    )
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
