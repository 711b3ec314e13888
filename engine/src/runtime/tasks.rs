//! Tasks evaluated by the engine itself: script tasks (`zeebe:script`) and business rule tasks
//! (`zeebe:calledDecision`). Job-based tasks are in `jobs`, user tasks in `user_tasks`.

use std::sync::Arc;

use super::lifecycle::State;
use super::processor::{Failure, Step};
use super::records::{
    DecisionValue, ErrorType, Key, OtherIntent, RecordValue, ValueType, VariableDocument,
};
use super::{Cmd, DecisionOutcome, Engine};

impl Engine {
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
            i.completion_vars = Some(Arc::new(doc));
        }
        self.transition(key, State::Activated)?;
        self.queue.push_back(Cmd::Complete(key));
        Ok(())
    }

    pub(crate) fn activate_business_rule_task(&mut self, key: Key) -> Step {
        let p = self.process(self.instances[&key].proc).clone();
        let e = self.instances[&key].element().expect("task");
        let el = p.element(e);
        let Some(def) = &el.decision else {
            return self.activate_job_task(key);
        };
        let decision_id = match &def.decision_id {
            Some(x) => self.eval_string(x, key)?,
            None => {
                return Err(Failure::new(
                    ErrorType::CalledDecisionError,
                    format!(
                        "Expected element '{}' to name a decision, but it does not",
                        el.id
                    ),
                ));
            }
        };
        let outcome = self.evaluate_decision(&decision_id, key)?;
        let inst = &self.instances[&key];
        let value = DecisionValue {
            decision_id: Arc::from(decision_id.as_str()),
            proc: Some(inst.proc),
            process_instance_key: Some(inst.process_instance_key),
            element: Some(e),
            element_instance_key: Some(key),
            output: Arc::new(outcome.output.clone()),
            matched_rules: Arc::new(outcome.matched_rules.clone()),
            failure_message: None,
        };
        let eval_key = self.new_key();
        self.event(
            ValueType::DecisionEvaluation,
            OtherIntent::Evaluated,
            Some(eval_key),
            RecordValue::DecisionEvaluation(Box::new(value)),
        );
        if let Some(rv) = &def.result_variable {
            let mut doc = VariableDocument::new();
            doc.insert(rv.to_string(), outcome.output);
            if let Some(i) = self.instances.get_mut(&key) {
                i.completion_vars = Some(Arc::new(doc));
            }
        }
        self.transition(key, State::Activated)?;
        self.queue.push_back(Cmd::Complete(key));
        Ok(())
    }

    /// Asks the registered outputs, then the plugged-in evaluator.
    fn evaluate_decision(&self, decision_id: &str, scope: Key) -> Result<DecisionOutcome, Failure> {
        if let Some(o) = self.decisions.get(decision_id) {
            return Ok(o.clone());
        }
        if let Some(ev) = &self.decision_evaluator {
            let lookup = |name: &str| self.lookup_var(scope, name).map(|v| (**v).clone());
            match ev.evaluate(decision_id, &lookup) {
                Some(Ok(o)) => return Ok(o),
                Some(Err(m)) => return Err(Failure::new(ErrorType::DecisionEvaluationError, m)),
                None => {}
            }
        }
        Err(Failure::new(
            ErrorType::CalledDecisionError,
            format!(
                "Expected to evaluate decision '{decision_id}', but no decision found for id '{decision_id}'"
            ),
        ))
    }

    /// Evaluates a decision standalone (CPT's `EVALUATE_DECISION`) and records it.
    pub fn evaluate_decision_standalone(
        &mut self,
        decision_id: &str,
        variables: VariableDocument,
    ) -> Result<DecisionOutcome, super::Rejection> {
        let outcome = if let Some(o) = self.decisions.get(decision_id) {
            Some(Ok(o.clone()))
        } else if let Some(ev) = &self.decision_evaluator {
            let lookup = |name: &str| variables.get(name).cloned();
            ev.evaluate(decision_id, &lookup)
        } else {
            None
        };
        let outcome = match outcome {
            Some(Ok(o)) => o,
            Some(Err(m)) => {
                return Err(super::Rejection::new(
                    super::RejectionType::InvalidArgument,
                    m,
                ));
            }
            None => {
                return Err(super::Rejection::new(
                    super::RejectionType::NotFound,
                    format!(
                        "Expected to evaluate decision with id '{decision_id}', but no such decision found"
                    ),
                ));
            }
        };
        let key = self.new_key();
        self.event(
            ValueType::DecisionEvaluation,
            OtherIntent::Evaluated,
            Some(key),
            RecordValue::DecisionEvaluation(Box::new(DecisionValue {
                decision_id: Arc::from(decision_id),
                proc: None,
                process_instance_key: None,
                element: None,
                element_instance_key: None,
                output: Arc::new(outcome.output.clone()),
                matched_rules: Arc::new(outcome.matched_rules.clone()),
                failure_message: None,
            })),
        );
        Ok(outcome)
    }
}
