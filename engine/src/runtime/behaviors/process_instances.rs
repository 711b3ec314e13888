//! Creating and cancelling process instances: start instructions (start before elements) and
//! terminate-after-element runtime instructions are checked when the instance is created.

use std::sync::Arc;

use crate::runtime::command::CreateInstance;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, Key, OtherIntent, ProcIdx, RecordValue, Rejection, RejectionType, ValueType,
    VariableDocument,
};
use crate::runtime::shared_json::SharedJson;
use crate::runtime::step::{Activation, FollowUp};

impl Engine {
    /// Queues the activation of process instance `pi` and writes `PROCESS_INSTANCE_CREATION
    /// CREATED` with what the request carried: the one way a new instance starts (created by
    /// command, or by a message, timer or signal start event).
    pub(crate) fn queue_process_activation(
        &mut self,
        proc: ProcIdx,
        pi: Key,
        variables: Arc<VariableDocument>,
        start_instructions: Arc<Vec<String>>,
    ) {
        self.queue.push_back(FollowUp::Activate(Activation {
            key: Some(pi),
            proc,
            process_instance_key: pi,
            flow_scope: None,
            element: None,
            element_type: BpmnElementType::Process,
            via_flow: None,
            variables: None,
            parent: None,
            loop_counter: 0,
        }));
        self.event(
            ValueType::ProcessInstanceCreation,
            OtherIntent::Created,
            Some(pi),
            RecordValue::ProcessInstanceCreation {
                proc,
                process_instance_key: pi,
                variables,
                start_instructions,
            },
        );
    }

    /// Carries out the command of [`Engine::create_instance`].
    pub(crate) fn apply_create_instance(
        &mut self,
        request: CreateInstance,
    ) -> Result<Key, Rejection> {
        let start = self.begin();
        let proc = match request.version {
            None => self
                .deployed
                .latest
                .get(request.bpmn_process_id.as_str())
                .copied(),
            Some(v) => self
                .deployed
                .processes
                .iter()
                .position(|p| *p.bpmn_process_id == *request.bpmn_process_id && p.version == v)
                .map(|i| ProcIdx(i as u32)),
        };
        let Some(proc) = proc else {
            return Err(Rejection::new(
                RejectionType::NotFound,
                match request.version {
                    None => format!(
                        "Expected to find process definition with process ID '{}', but none found",
                        request.bpmn_process_id
                    ),
                    Some(v) => format!(
                        "Expected to find process definition with process ID '{}' and version '{v}', but none found",
                        request.bpmn_process_id
                    ),
                },
            ));
        };
        let p = self.process(proc).clone();
        let mut start_elements = Vec::new();
        for id in &request.start_instructions {
            match p.find(id) {
                Some(e) => start_elements.push(e),
                None => {
                    return Err(Rejection::new(
                        RejectionType::InvalidArgument,
                        format!(
                            "Expected to create instance of process with start instructions but no element found with id '{id}'."
                        ),
                    ));
                }
            }
        }
        for id in &request.terminate_after {
            if p.find(id).is_none() {
                return Err(Rejection::new(
                    RejectionType::InvalidArgument,
                    format!(
                        "Expected to create instance of process with runtime instructions but no element found with id '{id}'."
                    ),
                ));
            }
        }
        if start_elements.is_empty() && p.scope.none_start.is_none() {
            return Err(Rejection::new(
                RejectionType::InvalidState,
                format!(
                    "Expected to create instance of process with none start event, but there is no such event in process '{}'",
                    p.bpmn_process_id
                ),
            ));
        }
        let pi = self.new_key();
        for (name, value) in &request.variables {
            self.set_pending_local(pi, proc, pi, name, SharedJson::new(value.clone()));
        }
        // The record keeps the request's documents (moved, not copied; shared when empty).
        let variables = if request.variables.is_empty() {
            self.empty.plain_document.clone()
        } else {
            Arc::new(request.variables)
        };
        if !request.terminate_after.is_empty() {
            self.terminate_after.insert(
                pi,
                request
                    .terminate_after
                    .iter()
                    .map(|s| Arc::from(s.as_str()))
                    .collect(),
            );
        }
        if !start_elements.is_empty() {
            self.pending.start_instructions.insert(pi, start_elements);
        }
        let start_instructions = if request.start_instructions.is_empty() {
            self.empty.start_instructions.clone()
        } else {
            Arc::new(request.start_instructions)
        };
        self.queue_process_activation(proc, pi, variables, start_instructions);
        self.run(start)?;
        Ok(pi)
    }

    /// Carries out the command of [`Engine::cancel_instance`].
    pub(crate) fn apply_cancel_instance(
        &mut self,
        process_instance_key: Key,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        match self.instances.get(&process_instance_key) {
            Some(i) if i.element_type == BpmnElementType::Process => {
                if i.parent().is_some() {
                    return Err(Rejection::new(
                        RejectionType::InvalidState,
                        format!(
                            "Expected to cancel a process instance with key '{process_instance_key}', but it is created by a parent process instance. Cancel the root process instance '{}' instead.",
                            i.parent().map(|p| p.0).unwrap_or_default()
                        ),
                    ));
                }
            }
            _ => {
                return Err(Rejection::new(
                    RejectionType::NotFound,
                    format!(
                        "Expected to cancel a process instance with key '{process_instance_key}', but no such process was found"
                    ),
                ));
            }
        }
        self.queue
            .push_back(FollowUp::Terminate(process_instance_key));
        self.run(start)
    }
}
