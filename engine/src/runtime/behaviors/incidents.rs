//! Incidents: a step that cannot go on is recorded with Zeebe's error type; resolving the
//! incident retries the step (or makes the job activatable again).

use std::sync::Arc;

use crate::runtime::behaviors::jobs::truncate_message;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    ErrorType, IncidentValue, Intent, Key, OtherIntent, RecordValue, Rejection, RejectionType,
    ValueType,
};
use crate::runtime::state::incidents::Incident;
use crate::runtime::state::jobs::JobTransition;
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::StepFailure;

impl Engine {
    fn incident_value(&self, i: &Incident) -> IncidentValue {
        IncidentValue {
            proc: i.proc,
            process_instance_key: i.process_instance_key,
            element: i.element_ref,
            element_instance_key: i.element_instance_key,
            job_key: i.job_key,
            variable_scope_key: i.element_instance_key,
            error_type: i.error_type,
            error_message: i.error_message.clone(),
        }
    }

    /// Raises an incident on an element instance (and its job, if the job caused it).
    pub(crate) fn create_incident(
        &mut self,
        element_instance: Key,
        job_key: Option<Key>,
        failure: StepFailure,
    ) {
        if !self.instances.contains_key(&element_instance) {
            return;
        }
        let key = self.new_key();
        let inst = &self.instances[&element_instance];
        let incident = Incident {
            key,
            proc: inst.proc,
            process_instance_key: inst.process_instance_key,
            element_ref: inst.element_ref,
            element_instance_key: element_instance,
            job_key,
            error_type: failure.error_type,
            error_message: Arc::from(truncate_message(&failure.message).as_str()),
        };
        let value = self.incident_value(&incident);
        self.incidents.insert(key, incident);
        if let Some(i) = self.instances.get_mut(&element_instance) {
            i.extras_mut().incident = Some(key);
        }
        self.event(
            ValueType::Incident,
            OtherIntent::Created,
            Some(key),
            RecordValue::Incident(Box::new(value)),
        );
    }

    fn write_resolved(&mut self, key: Key) -> Option<Incident> {
        let incident = self.incidents.remove(&key)?;
        let value = self.incident_value(&incident);
        self.event(
            ValueType::Incident,
            OtherIntent::Resolved,
            Some(key),
            RecordValue::Incident(Box::new(value)),
        );
        if let Some(i) = self.instances.get_mut(&incident.element_instance_key)
            && i.incident() == Some(key)
        {
            i.extras_mut().incident = None;
        }
        Some(incident)
    }

    /// Resolves the incidents of an element instance that is being terminated.
    pub(crate) fn resolve_incidents_of(&mut self, element_instance: Key) {
        let keys: Vec<Key> = self
            .incidents
            .values()
            .filter(|i| i.element_instance_key == element_instance)
            .map(|i| i.key)
            .collect();
        for k in keys {
            self.write_resolved(k);
        }
    }

    /// Carries out the command of [`Engine::resolve_incident`].
    pub(crate) fn apply_resolve_incident(&mut self, incident_key: Key) -> Result<(), Rejection> {
        let start = self.begin();
        let Some(incident) = self.incidents.get(&incident_key) else {
            return Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to resolve incident with key '{incident_key}', but no such incident was found"
                ),
            ));
        };
        if let Err(r) = self.check_not_suspended(incident.process_instance_key, || {
            format!("resolve incident with key '{incident_key}'")
        }) {
            let value = RecordValue::Incident(Box::new(self.incident_value(incident)));
            return Err(self.reject(
                ValueType::Incident,
                Intent::Other(OtherIntent::Resolve),
                Some(incident_key),
                value,
                r,
            ));
        }
        if let Some(job_key) = incident.job_key
            && let Some(job) = self.jobs.get(&job_key)
            && job.retries <= 0
        {
            let value = RecordValue::Incident(Box::new(self.incident_value(incident)));
            return Err(self.reject(
                ValueType::Incident,
                Intent::Other(OtherIntent::Resolve),
                Some(incident_key),
                value,
                Rejection::new(
                    RejectionType::InvalidState,
                    format!("Expected to resolve incident with key '{incident_key}', but job with key '{job_key}' has no retries left. Please update the job retries and retry resolving the incident"),
                ),
            ));
        }
        let incident = self.write_resolved(incident_key).expect("checked");
        match incident.job_key {
            Some(job_key) => {
                if let Some(job) = self.jobs.get_mut(&job_key)
                    && job.state.after(JobTransition::ResolveIncident).is_some()
                {
                    job.transition(JobTransition::ResolveIncident);
                    self.jobs.feed.push(job_key);
                }
            }
            None => {
                // Zeebe's IncidentResolvedApplier: an expression failure starts the listeners
                // of the transition over; the command is processed again in any case.
                let key = incident.element_instance_key;
                let expression_failure = incident.error_type == ErrorType::ExtractValueError;
                if expression_failure && let Some(i) = self.instances.get_mut(&key) {
                    i.listener_index = 0;
                }
                let state = self.instances.get(&key).map(|i| i.state);
                match state {
                    // A task listener's expression failed: the transition runs again.
                    Some(State::Activated | State::Terminating)
                        if expression_failure && self.retry_task_transition(key) => {}
                    Some(State::Activating) => self.run_activation(key),
                    Some(State::Completing) => self.run_completion(key),
                    Some(State::Activated) => self.retry_activated_step(key),
                    _ => {}
                }
            }
        }
        self.run(start)
    }
}
