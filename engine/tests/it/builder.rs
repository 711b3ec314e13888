//! Builds `model::Definitions` in code, for behaviour tests that do not need XML.
#![allow(dead_code)]

use baton_engine::model::*;

pub struct Builder {
    pub defs: Definitions,
    scope: Vec<Option<ElementIdx>>,
}

fn expr(text: &str) -> Expr {
    Expr::new(text, Span::default())
}

impl Builder {
    pub fn new(id: &str) -> Builder {
        let process = Process {
            id: id.into(),
            is_executable: true,
            ..Default::default()
        };
        Builder {
            defs: Definitions {
                processes: vec![process],
                ..Default::default()
            },
            scope: vec![None],
        }
    }

    fn p(&mut self) -> &mut Process {
        self.defs.processes.last_mut().unwrap()
    }

    pub fn idx(&self, id: &str) -> ElementIdx {
        self.defs
            .processes
            .last()
            .unwrap()
            .find(id)
            .unwrap_or_else(|| panic!("no element {id}"))
    }

    pub fn add(&mut self, id: &str, kind: ElementKind) -> &mut Element {
        let parent = *self.scope.last().unwrap();
        let idx = ElementIdx(self.p().elements.len() as u32);
        let element = Element {
            id: id.into(),
            name: None,
            documentation: Vec::new(),
            kind,
            parent,
            children: Vec::new(),
            incoming: FlowList::new(),
            outgoing: FlowList::new(),
            default_flow: None,
            boundary_events: Vec::new(),
            event_definitions: Vec::new(),
            loop_characteristics: None,
            is_for_compensation: false,
            zeebe: Zeebe::default(),
            span: Span::default(),
        };
        self.p().elements.push(element);
        match parent {
            Some(pidx) => self.p().elements[pidx.0 as usize].children.push(idx),
            None => self.p().children.push(idx),
        }
        self.p().elements.last_mut().unwrap()
    }

    pub fn start(&mut self, id: &str) -> &mut Self {
        self.add(
            id,
            ElementKind::StartEvent {
                is_interrupting: true,
            },
        );
        self
    }
    pub fn end(&mut self, id: &str) -> &mut Self {
        self.add(id, ElementKind::EndEvent);
        self
    }
    pub fn terminate_end(&mut self, id: &str) -> &mut Self {
        self.add(id, ElementKind::EndEvent)
            .event_definitions
            .push(EventDefinition::Terminate {
                span: Span::default(),
            });
        self
    }
    pub fn error_end(&mut self, id: &str, code: &str) -> &mut Self {
        let err_id = format!("Error_{id}");
        self.defs.errors.push(ErrorDef {
            id: err_id.clone(),
            name: None,
            error_code: Some(expr(code)),
            span: Span::default(),
        });
        self.add(id, ElementKind::EndEvent)
            .event_definitions
            .push(EventDefinition::Error {
                error_ref: Some(err_id),
                span: Span::default(),
            });
        self
    }
    pub fn task(&mut self, id: &str) -> &mut Self {
        self.add(id, ElementKind::Task(TaskKind::Undefined));
        self
    }
    pub fn service(&mut self, id: &str, job_type: &str) -> &mut Self {
        self.add(id, ElementKind::Task(TaskKind::Service))
            .zeebe
            .task_definition = Some(TaskDefinition {
            job_type: Some(expr(job_type)),
            retries: None,
            span: Span::default(),
        });
        self
    }
    pub fn user_task(&mut self, id: &str) -> &mut Self {
        self.add(id, ElementKind::Task(TaskKind::User))
            .zeebe
            .user_task = true;
        self
    }
    pub fn business_rule(&mut self, id: &str, decision: &str, result: &str) -> &mut Self {
        self.add(id, ElementKind::Task(TaskKind::BusinessRule))
            .zeebe
            .called_decision = Some(Box::new(CalledDecision {
            decision_id: Some(expr(decision)),
            result_variable: Some(result.to_owned()),
            binding_type: None,
            version_tag: None,
            span: Span::default(),
        }));
        self
    }
    pub fn gateway(&mut self, id: &str, kind: GatewayKind) -> &mut Self {
        self.add(id, ElementKind::Gateway(kind));
        self
    }
    pub fn call(&mut self, id: &str, process_id: &str) -> &mut Self {
        self.add(id, ElementKind::CallActivity).zeebe.called_element =
            Some(Box::new(CalledElement {
                process_id: Some(expr(process_id)),
                propagate_all_child_variables: None,
                propagate_all_parent_variables: None,
                binding_type: None,
                version_tag: None,
                span: Span::default(),
            }));
        self
    }
    /// Opens a sub-process: elements added until `close()` go inside.
    pub fn sub_process(&mut self, id: &str, kind: SubProcessKind) -> &mut Self {
        self.add(id, ElementKind::SubProcess(kind));
        let idx = self.idx(id);
        self.scope.push(Some(idx));
        self
    }
    pub fn close(&mut self) -> &mut Self {
        self.scope.pop();
        self
    }
    pub fn boundary_error(&mut self, id: &str, attached: &str, code: Option<&str>) -> &mut Self {
        let a = self.idx(attached);
        let error_ref = code.map(|c| {
            let err_id = format!("Error_{id}");
            self.defs.errors.push(ErrorDef {
                id: err_id.clone(),
                name: None,
                error_code: Some(expr(c)),
                span: Span::default(),
            });
            err_id
        });
        // Boundary events live in the scope of the activity they are attached to.
        let parent = self.p().elements[a.0 as usize].parent;
        self.scope.push(parent);
        self.add(
            id,
            ElementKind::BoundaryEvent {
                attached_to: a,
                cancel_activity: true,
            },
        )
        .event_definitions
        .push(EventDefinition::Error {
            error_ref,
            span: Span::default(),
        });
        self.scope.pop();
        let b = self.idx(id);
        self.p().elements[a.0 as usize].boundary_events.push(b);
        self
    }
    pub fn error_start(&mut self, id: &str, code: Option<&str>) -> &mut Self {
        let error_ref = code.map(|c| {
            let err_id = format!("Error_{id}");
            self.defs.errors.push(ErrorDef {
                id: err_id.clone(),
                name: None,
                error_code: Some(expr(c)),
                span: Span::default(),
            });
            err_id
        });
        self.add(
            id,
            ElementKind::StartEvent {
                is_interrupting: true,
            },
        )
        .event_definitions
        .push(EventDefinition::Error {
            error_ref,
            span: Span::default(),
        });
        self
    }
    pub fn input(&mut self, id: &str, source: &str, target: &str) -> &mut Self {
        let i = self.idx(id);
        self.p().elements[i.0 as usize]
            .zeebe
            .input_mappings
            .push(Mapping {
                source: Some(expr(source)),
                target: target.to_owned(),
                span: Span::default(),
            });
        self
    }
    pub fn output(&mut self, id: &str, source: &str, target: &str) -> &mut Self {
        let i = self.idx(id);
        self.p().elements[i.0 as usize]
            .zeebe
            .output_mappings
            .push(Mapping {
                source: Some(expr(source)),
                target: target.to_owned(),
                span: Span::default(),
            });
        self
    }
    pub fn element(&mut self, id: &str) -> &mut Element {
        let i = self.idx(id);
        &mut self.p().elements[i.0 as usize]
    }
    pub fn flow(&mut self, from: &str, to: &str) -> &mut Self {
        self.flow_with(from, to, None)
    }
    pub fn flow_with(&mut self, from: &str, to: &str, condition: Option<&str>) -> &mut Self {
        let (s, t) = (self.idx(from), self.idx(to));
        let parent = self.p().elements[s.0 as usize].parent;
        let f = FlowIdx(self.p().flows.len() as u32);
        let id = format!("Flow_{}_{}", from, to);
        self.p().flows.push(SequenceFlow {
            id: id.into(),
            name: None,
            source: s,
            target: t,
            condition: condition.map(expr),
            parent,
            documentation: Vec::new(),
            span: Span::default(),
        });
        self.p().elements[s.0 as usize].outgoing.push(f);
        self.p().elements[t.0 as usize].incoming.push(f);
        self
    }
    /// Flows along a chain of element ids.
    pub fn chain(&mut self, ids: &[&str]) -> &mut Self {
        for w in ids.windows(2) {
            self.flow(w[0], w[1]);
        }
        self
    }
    pub fn default_flow(&mut self, from: &str, to: &str) -> &mut Self {
        self.flow(from, to);
        let f = FlowIdx(self.p().flows.len() as u32 - 1);
        let s = self.idx(from);
        self.p().elements[s.0 as usize].default_flow = Some(f);
        self
    }
    pub fn build(&self) -> Definitions {
        self.defs.clone()
    }
}
