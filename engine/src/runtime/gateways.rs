//! Gateways: exclusive (first true condition, else default, else incident), inclusive (every
//! true condition, else default; the join uses the reachability rule in `processor`), parallel
//! (fork on all flows; the join counts tokens per flow) and event-based (subscribes to the
//! following catch events; the first one to trigger wins).

use super::Engine;
use super::lifecycle::State;
use super::records::{BpmnElementType as T, ErrorType, Key};
use super::step::{Step, StepFailure};
use crate::model::FlowIdx;

impl Engine {
    pub(crate) fn activate_gateway(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("gateway");
        let ty = inst.element_type;
        let m = p.model_element(e);
        let flows: Vec<FlowIdx> = match ty {
            T::ParallelGateway => m.outgoing.to_vec(),
            T::ExclusiveGateway | T::InclusiveGateway if m.outgoing.is_empty() => Vec::new(),
            T::ExclusiveGateway | T::InclusiveGateway
                if m.outgoing.len() == 1 && p.model.flow(m.outgoing[0]).condition.is_none() =>
            {
                m.outgoing.to_vec()
            }
            T::ExclusiveGateway | T::InclusiveGateway => {
                let exclusive = ty == T::ExclusiveGateway;
                let mut chosen = Vec::new();
                for f in &m.outgoing {
                    if Some(*f) == m.default_flow {
                        continue;
                    }
                    let Some(cond) = &p.conditions[f.0 as usize] else {
                        continue;
                    };
                    if self.eval_bool(cond, key)? {
                        chosen.push(*f);
                        if exclusive {
                            break;
                        }
                    }
                }
                if chosen.is_empty() {
                    match m.default_flow {
                        Some(d) => chosen.push(d),
                        None => {
                            return Err(StepFailure::new(
                                ErrorType::ConditionError,
                                "Expected at least one condition to evaluate to true, or to have a default flow",
                            ));
                        }
                    }
                }
                chosen
            }
            _ => {
                return Err(StepFailure::new(
                    ErrorType::Unknown,
                    format!("Expected a gateway, but '{}' is a {ty}", p.element(e).id),
                ));
            }
        };
        self.transition(key, State::Activated)?;
        self.transition(key, State::Completing)?;
        let scope = self.instances[&key]
            .flow_scope
            .expect("gateways have a flow scope");
        if flows.is_empty() {
            // No outgoing flow: the path ends here.
            let inst = self.end_instance(key, State::Completed)?;
            self.after_path_completed(scope, &inst);
            return Ok(());
        }
        let inst = self.end_instance(key, State::Completed)?;
        for f in flows {
            self.take_flow(inst.proc, inst.process_instance_key, scope, f);
        }
        Ok(())
    }
}
