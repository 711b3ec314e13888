//! Tasks: job worker tasks (service, send, and script, business rule and user tasks without
//! their Camunda definition) create a job and wait for it; script tasks (`zeebe:script`) and
//! business rule tasks (`zeebe:calledDecision`) are evaluated by the engine; receive tasks wait
//! for their message; undefined and manual tasks pass through.

use std::sync::Arc;

use crate::runtime::compile::definitions::JobDef;
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{ErrorType, JobKind, Key, ListenerEventType, VariableDocument};
use crate::runtime::state::instances::Var;
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{FollowUp, Step, StepFailure};

/// Zeebe's `JobWorkerTaskProcessor` (service and send tasks).
pub(crate) struct JobWorkerTask;

impl ElementBehavior for JobWorkerTask {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_job_task(key)
    }
}

/// Zeebe's `ScriptTaskProcessor`.
pub(crate) struct ScriptTask;

impl ElementBehavior for ScriptTask {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_script_task(key)
    }
}

/// Zeebe's `BusinessRuleTaskProcessor`.
pub(crate) struct BusinessRuleTask;

impl ElementBehavior for BusinessRuleTask {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_business_rule_task(key)
    }
}

/// Zeebe's `ReceiveTaskProcessor`: waits for its message.
pub(crate) struct ReceiveTask;

impl ElementBehavior for ReceiveTask {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.subscribe_to_events(key)?;
        engine.transition(key, State::Activated)
    }
}

/// Undefined and manual tasks (Zeebe's `UndefinedTaskProcessor`, `ManualTaskProcessor`):
/// activated and completed at once.
pub(crate) struct PassThroughTask;

impl ElementBehavior for PassThroughTask {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.pass_through(key)
    }
}

impl Engine {
    /// Service, send, job-based script/business-rule/user tasks and message throw events.
    pub(crate) fn activate_job_task(&mut self, key: Key) -> Step {
        let (proc, e) = {
            let i = &self.instances[&key];
            (i.proc, i.element().expect("task"))
        };
        let p = self.process(proc);
        let def: &JobDef = p.element(e).job.as_ref().ok_or_else(|| {
            StepFailure::new(
                ErrorType::Unknown,
                format!(
                    "Expected element '{}' to have a job definition",
                    p.element(e).id
                ),
            )
        })?;
        let (job_type, retries) = self.eval_job_def(key, &def.job_type, &def.retries)?;
        let headers = def.headers.clone();
        self.subscribe_to_events(key)?;
        self.create_job(
            key,
            JobKind::BpmnElement,
            ListenerEventType::Unspecified,
            job_type,
            retries,
            headers,
        );
        self.transition(key, State::Activated)?;
        Ok(())
    }

    pub(crate) fn activate_script_task(&mut self, key: Key) -> Step {
        let p = self.process(self.instances[&key].proc).clone();
        let e = self.instances[&key].element().expect("task");
        let el = p.element(e);
        let Some((expr, result_variable)) = &el.script else {
            return self.activate_job_task(key);
        };
        let value = self.eval(expr, key, None)?;
        let mut doc = VariableDocument::new();
        doc.insert(result_variable.to_string(), value);
        if let Some(i) = self.instances.get_mut(&key) {
            i.completion_vars = Some(Arc::new(crate::runtime::records::share_document(doc)));
        }
        self.transition(key, State::Activated)?;
        self.queue.push_back(FollowUp::Complete(key));
        Ok(())
    }

    /// A business rule task with `zeebe:calledDecision`: find the decision, evaluate it with the
    /// variables visible at the task, write the evaluation, and complete with the result in
    /// `resultVariable` (or raise the incident).
    pub(crate) fn activate_business_rule_task(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let (proc, process_instance_key) = (inst.proc, inst.process_instance_key);
        let p = self.process(proc).clone();
        let e = inst.element().expect("a business rule task is an element");
        let el = p.element(e);
        let Some(def) = &el.decision else {
            return self.activate_job_task(key);
        };
        let decision_id = match &def.decision_id {
            Some(x) => self.eval_string(x, key)?,
            None => {
                return Err(StepFailure::new(
                    ErrorType::CalledDecisionError,
                    format!(
                        "Expected element '{}' to name a decision, but it does not",
                        el.id
                    ),
                ));
            }
        };
        let decision = self.called_decision(&decision_id, def, key, proc)?;
        let evaluation = {
            let lookup = |name: &str| self.lookup_var_entry(key, name).map(Var::feel_value);
            self.run_decision(decision, &lookup)
        };
        let (_, parts) = self.write_decision_evaluation(
            decision,
            evaluation,
            Some((proc, process_instance_key, e, key)),
        );
        if let Some(message) = &parts.failure_message {
            return Err(StepFailure::new(
                ErrorType::DecisionEvaluationError,
                message.to_string(),
            ));
        }
        if let Some(rv) = &def.result_variable {
            let mut doc = VariableDocument::new();
            doc.insert(rv.to_string(), parts.output.clone());
            if let Some(i) = self.instances.get_mut(&key) {
                i.completion_vars = Some(Arc::new(crate::runtime::records::share_document(doc)));
            }
        }
        self.transition(key, State::Activated)?;
        self.queue.push_back(FollowUp::Complete(key));
        Ok(())
    }
}
