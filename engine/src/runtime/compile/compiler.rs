//! Compiling a checked process into its executable form, once at deploy.
//!
//! Compiling resolves everything the runtime would otherwise look up per step: element types,
//! parsed expressions, the referenced message/error/escalation/signal definitions, job
//! definitions, the none start event of each scope, the event sub-processes and boundary events
//! of each scope, and the `adHocSubProcessElements` value of each ad-hoc sub-process.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::model::{
    self, ElementIdx, ElementKind, EventDefinition, GatewayKind, SharedStr, SubProcessKind,
    TaskKind,
};
use crate::runtime::compile::ad_hoc_elements::ad_hoc_elements_json;
use crate::runtime::compile::definitions::{
    AdHocDef, CallDef, DecisionDef, EventDef, ExecutableElement, JobDef, ListenerDef, Mapping,
    MultiInstanceDef, ScopeInfo, TimerDef, UserTaskDef,
};
use crate::runtime::compile::error::{CompileError, err};
use crate::runtime::compile::expr::{Expr, FeelExpr};
use crate::runtime::compile::process::{ExecutableProcess, ProcessDiagram, process_diagram};
use crate::runtime::records::{BpmnElementType, BpmnEventType, Key};
use crate::runtime::shared_json::SharedJson;

fn expr(element: &model::Element, e: &model::Expr) -> Result<Expr, CompileError> {
    compile_expr(e).map_err(|m| {
        err(
            element,
            format!("failed to parse expression '{}': {m}", e.text),
        )
    })
}

/// [`Expr::compile`], reusing the FEEL the deploy checks already parsed.
fn compile_expr(e: &model::Expr) -> Result<Expr, String> {
    match e.parse_feel() {
        Some(Ok(parsed)) => Ok(Expr::Feel(Arc::new(FeelExpr::new(
            parsed.source().to_owned(),
            parsed,
        )))),
        Some(Err(error)) => Err(error.to_string()),
        None => Expr::compile(e).map_err(|error| error.to_string()),
    }
}

fn opt_expr(
    element: &model::Element,
    e: &Option<model::Expr>,
) -> Result<Option<Expr>, CompileError> {
    e.as_ref().map(|e| expr(element, e)).transpose()
}

fn mappings(element: &model::Element, ms: &[model::Mapping]) -> Result<Vec<Mapping>, CompileError> {
    ms.iter()
        .map(|m| {
            let source = opt_expr(element, &m.source)?;
            let constant = match &source {
                None => Some(serde_json::Value::Null.into()),
                Some(Expr::Static(text)) => Some(serde_json::Value::from(&**text).into()),
                Some(Expr::Feel(f)) => f.constant().cloned(),
            };
            Ok(Mapping {
                source,
                target: m.target.split('.').map(Arc::from).collect(),
                constant,
            })
        })
        .collect()
}

fn listeners(
    element: &model::Element,
    ls: &[model::Listener],
) -> Result<Vec<ListenerDef>, CompileError> {
    ls.iter()
        .map(|l| {
            Ok(ListenerDef {
                event_type: l.event_type.clone(),
                job_type: match &l.job_type {
                    Some(t) => expr(element, t)?,
                    None => return Err(err(element, "a listener must have a job type")),
                },
                retries: match &l.retries {
                    Some(r) => expr(element, r)?,
                    None => Expr::of_static("3"),
                },
            })
        })
        .collect()
}

/// Input to [`compile`]: the process plus the definitions it lives in. The process becomes the
/// executable's model, and its part of the diagram moves out of the definitions, so neither is
/// copied.
pub(crate) struct CompileInput<'a> {
    pub definitions: &'a mut model::Definitions,
    pub process: model::Process,
}

/// Compiles one process of a definitions document.
#[allow(clippy::too_many_arguments)]
pub(crate) fn compile(
    input: CompileInput<'_>,
    key: Key,
    version: i32,
    deployment_key: Key,
    resource_name: &str,
) -> Result<ExecutableProcess, CompileError> {
    let defs = input.definitions;
    let owned = input.process;
    let process = &owned;
    let shared = Shared {
        no_headers: Arc::default(),
        three_retries: Expr::of_static("3"),
        static_job_types: Default::default(),
    };
    let mut elements = Vec::with_capacity(process.elements.len());
    for element in &process.elements {
        elements.push(compile_element(defs, process, element, &shared)?);
    }
    // Scope info of containers.
    for (i, element) in process.elements.iter().enumerate() {
        if matches!(element.kind, ElementKind::SubProcess(_)) {
            elements[i].scope = scope_info(process, &element.children);
        }
    }
    link_throw_events(process, &mut elements)?;
    mark_after_event_based_gateways(process, &mut elements);
    ad_hoc_activatable_elements(process, &mut elements)?;
    compensation_handlers(process, &mut elements);
    let scope = scope_info(process, &process.children);
    let event_start_events = process
        .children
        .iter()
        .copied()
        .filter(|c| {
            let e = process.element(*c);
            matches!(e.kind, ElementKind::StartEvent { .. }) && !e.event_definitions.is_empty()
        })
        .collect();
    let (start_listeners, end_listeners) = process_listeners(process)?;
    let conditions = flow_conditions(process)?;
    let participant = participant_of(defs, process).cloned();
    let diagram = match &defs.unread_diagram {
        Some(text) => ProcessDiagram {
            drawn: std::sync::OnceLock::new(),
            unread: Some(text.clone()),
        },
        None => ProcessDiagram {
            drawn: process_diagram(&mut defs.diagram, process, participant.as_ref()).into(),
            unread: None,
        },
    };
    Ok(ExecutableProcess {
        key,
        bpmn_process_id: Arc::from(process.id.as_str()),
        version,
        version_tag: process.version_tag.as_deref().map(Arc::from),
        deployment_key,
        resource_name: Arc::from(resource_name),
        model: owned,
        diagram,
        participant,
        elements,
        scope,
        start_listeners,
        end_listeners,
        event_start_events,
        conditions,
    })
}

/// Links each throw link event to its target: the catch event with the same name in the same
/// scope.
fn link_throw_events(
    process: &model::Process,
    elements: &mut [ExecutableElement],
) -> Result<(), CompileError> {
    for (i, element) in process.elements.iter().enumerate() {
        if let (ElementKind::IntermediateThrowEvent, EventDef::Link { name, .. }) =
            (&element.kind, &elements[i].event)
        {
            let name = name.clone();
            let target = process.elements.iter().position(|c| {
                c.parent == element.parent
                    && matches!(c.kind, ElementKind::IntermediateCatchEvent)
                    && c.event_definitions.iter().any(
                        |d| matches!(d, EventDefinition::Link { name: Some(n), .. } if *n == name),
                    )
            });
            match target {
                Some(t) => {
                    if let EventDef::Link { target, .. } = &mut elements[i].event {
                        *target = Some(ElementIdx(t as u32));
                    }
                }
                None => {
                    return Err(err(
                        element,
                        format!(
                            "Can't find a catch link event for the throw link event with the name '{name}'."
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Marks the catch events after an event-based gateway.
fn mark_after_event_based_gateways(process: &model::Process, elements: &mut [ExecutableElement]) {
    for element in &process.elements {
        if matches!(
            element.kind,
            ElementKind::Gateway(GatewayKind::EventBased { .. })
        ) {
            for f in &element.outgoing {
                let target = process.flow(*f).target;
                elements[target.0 as usize].after_event_based_gateway = true;
            }
        }
    }
}

/// Ad-hoc sub-processes: the activatable elements and their description.
fn ad_hoc_activatable_elements(
    process: &model::Process,
    elements: &mut [ExecutableElement],
) -> Result<(), CompileError> {
    for (i, element) in process.elements.iter().enumerate() {
        if let ElementKind::SubProcess(SubProcessKind::AdHoc(_)) = &element.kind {
            let activatable: Vec<ElementIdx> = element
                .children
                .iter()
                .copied()
                .filter(|c| {
                    let child = process.element(*c);
                    child.incoming.is_empty() && is_ad_hoc_activity(child)
                })
                .collect();
            let json = ad_hoc_elements_json(process, &activatable)?;
            if let Some(ad_hoc) = &mut elements[i].ad_hoc {
                ad_hoc.activatable = activatable;
                ad_hoc.elements_json = SharedJson::new(json);
            }
        }
    }
    Ok(())
}

/// Compensation: a boundary event with a compensate definition is associated with the
/// activity that compensates the one it is attached to.
fn compensation_handlers(process: &model::Process, elements: &mut [ExecutableElement]) {
    for a in &process.artifacts {
        if a.kind != "association" {
            continue;
        }
        let (Some(src), Some(dst)) = (&a.source_ref, &a.target_ref) else {
            continue;
        };
        let (Some(b), Some(h)) = (process.find(src), process.find(dst)) else {
            continue;
        };
        if let (Some(activity), EventDef::Compensation { .. }) = (
            elements[b.0 as usize].attached_to,
            &elements[b.0 as usize].event,
        ) && process.element(h).is_for_compensation
        {
            elements[activity.0 as usize].compensation_handler = Some(h);
        }
    }
}

/// The process's own execution listeners, split into start and end listeners (an error names
/// the process as the element).
fn process_listeners(
    process: &model::Process,
) -> Result<(Vec<ListenerDef>, Vec<ListenerDef>), CompileError> {
    let process_element = model::Element {
        id: process.id.as_str().into(),
        name: process.name.as_deref().map(SharedStr::from),
        documentation: Vec::new(),
        kind: ElementKind::Task(TaskKind::Undefined),
        parent: None,
        children: Vec::new(),
        incoming: model::FlowList::new(),
        outgoing: model::FlowList::new(),
        default_flow: None,
        boundary_events: Vec::new(),
        event_definitions: Vec::new(),
        loop_characteristics: None,
        is_for_compensation: false,
        zeebe: Default::default(),
        span: process.span,
    };
    Ok(
        listeners(&process_element, &process.zeebe.execution_listeners)?
            .into_iter()
            .partition(|l| l.event_type == "start"),
    )
}

/// The condition of each sequence flow, by flow index.
fn flow_conditions(process: &model::Process) -> Result<Vec<Option<Expr>>, CompileError> {
    let mut conditions = Vec::with_capacity(process.flows.len());
    for f in &process.flows {
        conditions.push(match &f.condition {
            Some(c) => Some(compile_expr(c).map_err(|m| CompileError {
                element_id: Some(f.id.to_string()),
                message: format!("failed to parse condition '{}': {m}", c.text),
            })?),
            None => None,
        });
    }
    Ok(conditions)
}

fn participant_of<'d>(
    defs: &'d model::Definitions,
    process: &model::Process,
) -> Option<&'d model::Participant> {
    defs.collaborations
        .iter()
        .flat_map(|c| &c.participants)
        .find(|p| p.process_ref.as_deref() == Some(process.id.as_str()))
}

fn scope_info(process: &model::Process, children: &[ElementIdx]) -> ScopeInfo {
    let mut info = ScopeInfo::default();
    for &c in children {
        let e = process.element(c);
        match &e.kind {
            ElementKind::StartEvent { .. }
                if e.event_definitions.is_empty() && info.none_start.is_none() =>
            {
                info.none_start = Some(c);
            }
            ElementKind::SubProcess(SubProcessKind::Event) => info.event_subprocesses.push(c),
            _ => {}
        }
    }
    info
}

fn is_ad_hoc_activity(e: &model::Element) -> bool {
    matches!(
        e.kind,
        ElementKind::Task(_)
            | ElementKind::SubProcess(SubProcessKind::Embedded)
            | ElementKind::SubProcess(SubProcessKind::AdHoc(_))
            | ElementKind::CallActivity
            | ElementKind::IntermediateThrowEvent
            | ElementKind::IntermediateCatchEvent
            | ElementKind::Gateway(_)
    )
}

fn element_type(e: &model::Element) -> BpmnElementType {
    use BpmnElementType as T;
    match &e.kind {
        ElementKind::Task(k) => match k {
            TaskKind::Undefined => T::Task,
            TaskKind::Service => T::ServiceTask,
            TaskKind::Send => T::SendTask,
            TaskKind::Receive { .. } => T::ReceiveTask,
            TaskKind::User => T::UserTask,
            TaskKind::Manual => T::ManualTask,
            TaskKind::Script { .. } => T::ScriptTask,
            TaskKind::BusinessRule => T::BusinessRuleTask,
        },
        ElementKind::SubProcess(k) => match k {
            SubProcessKind::Embedded | SubProcessKind::Transaction => T::SubProcess,
            SubProcessKind::Event => T::EventSubProcess,
            SubProcessKind::AdHoc(_) => T::AdHocSubProcess,
        },
        ElementKind::CallActivity => T::CallActivity,
        ElementKind::Gateway(g) => match g {
            GatewayKind::Exclusive | GatewayKind::Complex => T::ExclusiveGateway,
            GatewayKind::Inclusive => T::InclusiveGateway,
            GatewayKind::Parallel => T::ParallelGateway,
            GatewayKind::EventBased { .. } => T::EventBasedGateway,
        },
        ElementKind::StartEvent { .. } => T::StartEvent,
        ElementKind::IntermediateCatchEvent => T::IntermediateCatchEvent,
        ElementKind::IntermediateThrowEvent => T::IntermediateThrowEvent,
        ElementKind::BoundaryEvent { .. } => T::BoundaryEvent,
        ElementKind::EndEvent => T::EndEvent,
    }
}

fn event_type(e: &model::Element) -> BpmnEventType {
    use BpmnEventType as E;
    match e.event_definitions.first() {
        Some(d) => match d {
            EventDefinition::Message { .. } => E::Message,
            EventDefinition::Timer(_) => E::Timer,
            EventDefinition::Error { .. } => E::Error,
            EventDefinition::Escalation { .. } => E::Escalation,
            EventDefinition::Signal { .. } => E::Signal,
            EventDefinition::Compensation { .. } => E::Compensation,
            EventDefinition::Conditional { .. } => E::Conditional,
            EventDefinition::Link { .. } => E::Link,
            EventDefinition::Terminate { .. } => E::Terminate,
            EventDefinition::Cancel { .. } => E::Unspecified,
        },
        None => match &e.kind {
            ElementKind::StartEvent { .. }
            | ElementKind::EndEvent
            | ElementKind::IntermediateThrowEvent
            | ElementKind::IntermediateCatchEvent
            | ElementKind::BoundaryEvent { .. } => E::None,
            ElementKind::Task(TaskKind::Receive { .. }) => E::Message,
            _ => E::Unspecified,
        },
    }
}

/// Values many elements hold, made once per process rather than once per element.
struct Shared<'p> {
    no_headers: Arc<IndexMap<String, String>>,
    three_retries: Expr,
    /// Static job types compiled so far: a process's tasks mostly share a few, which then
    /// share one string.
    static_job_types: std::cell::RefCell<rustc_hash::FxHashMap<&'p str, Expr>>,
}

impl<'p> Shared<'p> {
    /// A job type; a static one is shared with the tasks of the same type.
    fn job_type(
        &self,
        e: &model::Element,
        job_type: &'p model::Expr,
    ) -> Result<Expr, CompileError> {
        if job_type.feel().is_some() {
            return expr(e, job_type);
        }
        let mut known = self.static_job_types.borrow_mut();
        if let Some(compiled) = known.get(job_type.text.as_str()) {
            return Ok(compiled.clone());
        }
        let compiled = expr(e, job_type)?;
        known.insert(&job_type.text, compiled.clone());
        Ok(compiled)
    }

    fn headers(&self, z: &model::Zeebe) -> Arc<IndexMap<String, String>> {
        if z.task_headers.is_empty() {
            self.no_headers.clone()
        } else {
            Arc::new(z.task_headers.iter().cloned().collect())
        }
    }
}

fn compile_element<'p>(
    defs: &model::Definitions,
    process: &model::Process,
    e: &'p model::Element,
    shared: &Shared<'p>,
) -> Result<ExecutableElement, CompileError> {
    let z = &e.zeebe;
    let job = job_def(e, shared)?;
    let event = event_def(defs, process, e)?;
    let script = script_def(e)?;
    let multi_instance = multi_instance_def(e)?;
    let ad_hoc = ad_hoc_def(e)?;
    let call = call_def(e)?;
    let decision = decision_def(e)?;
    let user_task = user_task_def(e)?;
    // A job-based user task (no zeebe:userTask) is a job of the well-known type.
    let job = match (&e.kind, job, z.user_task) {
        (ElementKind::Task(TaskKind::User), None, false) => Some(JobDef {
            job_type: Expr::of_static("io.camunda.zeebe:userTask"),
            retries: Expr::of_static("1"),
            headers: shared.headers(z),
        }),
        (_, job, _) => job,
    };
    // (Most elements have no listener: nothing to split.)
    let (start_listeners, end_listeners) = if z.execution_listeners.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        listeners(e, &z.execution_listeners)?
            .into_iter()
            .partition(|l| l.event_type == "start")
    };
    let (interrupting, attached_to) = match &e.kind {
        ElementKind::StartEvent { is_interrupting } => (*is_interrupting, None),
        ElementKind::BoundaryEvent {
            attached_to,
            cancel_activity,
        } => (*cancel_activity, Some(*attached_to)),
        _ => (true, None),
    };
    Ok(ExecutableElement {
        id: Arc::from(e.id.as_str()),
        element_type: element_type(e),
        event_type: event_type(e),
        input_mappings: mappings(e, &z.input_mappings)?,
        output_mappings: mappings(e, &z.output_mappings)?,
        job,
        event,
        script,
        multi_instance: multi_instance.map(Box::new),
        ad_hoc: ad_hoc.map(Box::new),
        call: call.map(Box::new),
        decision: decision.map(Box::new),
        user_task: user_task.map(Box::new),
        start_listeners,
        end_listeners,
        scope: ScopeInfo::default(),
        interrupting,
        attached_to,
        after_event_based_gateway: false,
        compensation_handler: None,
    })
}

/// The job of an element with `zeebe:taskDefinition` (service-like tasks, job-based events).
fn job_def<'p>(e: &'p model::Element, shared: &Shared<'p>) -> Result<Option<JobDef>, CompileError> {
    let z = &e.zeebe;
    Ok(match &z.task_definition {
        Some(td) => Some(JobDef {
            job_type: match &td.job_type {
                Some(t) => shared.job_type(e, t)?,
                None => return Err(err(e, "zeebe:taskDefinition must have a type")),
            },
            retries: match &td.retries {
                Some(r) => expr(e, r)?,
                None => shared.three_retries.clone(),
            },
            headers: shared.headers(z),
        }),
        None => None,
    })
}

/// The event an element waits for or throws: its first event definition, or a receive task's
/// message.
fn event_def(
    defs: &model::Definitions,
    process: &model::Process,
    e: &model::Element,
) -> Result<EventDef, CompileError> {
    let mut event = match e.event_definitions.first() {
        None => EventDef::None,
        Some(d) => compile_event_definition(defs, process, e, d)?,
    };
    if let ElementKind::Task(TaskKind::Receive { message_ref, .. }) = &e.kind {
        event = message_event(defs, e, message_ref.as_deref())?;
    }
    Ok(event)
}

/// A script task's FEEL script (`zeebe:script`) and the variable it writes.
fn script_def(e: &model::Element) -> Result<Option<(Expr, Arc<str>)>, CompileError> {
    Ok(match &e.zeebe.script {
        Some(s) => match (&s.expression, &s.result_variable) {
            (Some(x), Some(r)) => Some((expr(e, x)?, Arc::from(r.as_str()))),
            _ => None,
        },
        None => None,
    })
}

/// Multi-instance loop characteristics; a standard loop is refused.
fn multi_instance_def(e: &model::Element) -> Result<Option<MultiInstanceDef>, CompileError> {
    Ok(match &e.loop_characteristics {
        Some(model::LoopCharacteristics::MultiInstance(mi)) => Some(MultiInstanceDef {
            sequential: mi.is_sequential,
            input_collection: opt_expr(e, &mi.input_collection)?,
            input_element: mi
                .input_element
                .as_deref()
                .filter(|s| !s.is_empty())
                .map(Arc::from),
            output_collection: mi
                .output_collection
                .as_deref()
                .filter(|s| !s.is_empty())
                .map(Arc::from),
            output_element: opt_expr(e, &mi.output_element)?,
            completion_condition: opt_expr(e, &mi.completion_condition)?,
        }),
        Some(model::LoopCharacteristics::StandardLoop { .. }) => {
            return Err(err(e, "standard loop characteristics are not supported"));
        }
        None => None,
    })
}

/// An ad-hoc sub-process's collections and conditions (`zeebe:adHoc`); its activatable
/// elements are filled in once every element is compiled.
fn ad_hoc_def(e: &model::Element) -> Result<Option<AdHocDef>, CompileError> {
    let ElementKind::SubProcess(SubProcessKind::AdHoc(a)) = &e.kind else {
        return Ok(None);
    };
    let zh = e.zeebe.ad_hoc.as_ref();
    let output_element = match zh.and_then(|h| h.output_element.as_ref()) {
        Some(x) => Some(expr(e, x)?),
        None => None,
    };
    let output_element_variable = output_element.as_ref().and_then(|x| match x {
        Expr::Feel(f) => {
            let s = f.source.trim();
            (!s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .then(|| Arc::from(s))
        }
        Expr::Static(_) => None,
    });
    Ok(Some(AdHocDef {
        active_elements_collection: match zh.and_then(|h| h.active_elements_collection.as_ref()) {
            Some(x) => Some(expr(e, x)?),
            None => None,
        },
        completion_condition: opt_expr(e, &a.completion_condition)?,
        cancel_remaining_instances: a.cancel_remaining_instances.unwrap_or(true),
        output_collection: zh
            .and_then(|h| h.output_collection.as_deref())
            .filter(|s| !s.is_empty())
            .map(Arc::from),
        output_element,
        output_element_variable,
        activatable: Vec::new(),
        elements_json: SharedJson::new(Json::Array(Vec::new())),
    }))
}

/// A call activity's called process (`zeebe:calledElement`, required).
fn call_def(e: &model::Element) -> Result<Option<CallDef>, CompileError> {
    Ok(match (&e.kind, &e.zeebe.called_element) {
        (ElementKind::CallActivity, Some(c)) => Some(CallDef {
            process_id: opt_expr(e, &c.process_id)?,
            propagate_all_child_variables: c.propagate_all_child_variables.unwrap_or(true),
            propagate_all_parent_variables: c.propagate_all_parent_variables.unwrap_or(true),
            binding_type: c.binding_type.clone(),
            version_tag: c.version_tag.clone(),
        }),
        (ElementKind::CallActivity, None) => {
            return Err(err(e, "a call activity must have zeebe:calledElement"));
        }
        _ => None,
    })
}

/// A business rule task's called decision (`zeebe:calledDecision`).
fn decision_def(e: &model::Element) -> Result<Option<DecisionDef>, CompileError> {
    Ok(match &e.zeebe.called_decision {
        Some(d) => Some(DecisionDef {
            decision_id: opt_expr(e, &d.decision_id)?,
            result_variable: d.result_variable.as_deref().map(Arc::from),
            binding_type: d.binding_type.clone(),
            version_tag: match &d.version_tag {
                Some(tag) => {
                    Some(Expr::compile_text(tag).map_err(|m| err(e, format!("versionTag: {m}")))?)
                }
                None => None,
            },
        }),
        None => None,
    })
}

/// A Camunda user task (`zeebe:userTask`): assignment, schedule, priority, form and task
/// listeners.
fn user_task_def(e: &model::Element) -> Result<Option<UserTaskDef>, CompileError> {
    let z = &e.zeebe;
    if !(matches!(e.kind, ElementKind::Task(TaskKind::User)) && z.user_task) {
        return Ok(None);
    }
    let a = z.assignment.as_ref();
    let s = z.task_schedule.as_ref();
    Ok(Some(UserTaskDef {
        assignee: match a.and_then(|a| a.assignee.as_ref()) {
            Some(x) => Some(expr(e, x)?),
            None => None,
        },
        candidate_groups: match a.and_then(|a| a.candidate_groups.as_ref()) {
            Some(x) => Some(expr(e, x)?),
            None => None,
        },
        candidate_users: match a.and_then(|a| a.candidate_users.as_ref()) {
            Some(x) => Some(expr(e, x)?),
            None => None,
        },
        due_date: match s.and_then(|s| s.due_date.as_ref()) {
            Some(x) => Some(expr(e, x)?),
            None => None,
        },
        follow_up_date: match s.and_then(|s| s.follow_up_date.as_ref()) {
            Some(x) => Some(expr(e, x)?),
            None => None,
        },
        priority: opt_expr(e, &z.priority)?,
        form_id: {
            // An external form reference (`formKey`) is compiled to check it; the task's
            // records carry only the key of a deployed form (`formId`).
            if let Some(x) = z.form.as_ref().and_then(|f| f.form_key.as_ref()) {
                expr(e, x)?;
            }
            z.form
                .as_ref()
                .and_then(|f| f.form_id.as_ref())
                .map(|x| Arc::from(x.text.trim_start_matches('=').trim()))
                .filter(|x: &Arc<str>| !x.is_empty())
        },
        form_binding: z.form.as_ref().and_then(|f| f.binding_type.clone()),
        form_version_tag: z.form.as_ref().and_then(|f| f.version_tag.clone()),
        listeners: listeners(e, &z.task_listeners)?,
    }))
}

fn message_event(
    defs: &model::Definitions,
    e: &model::Element,
    message_ref: Option<&str>,
) -> Result<EventDef, CompileError> {
    let message = message_ref.and_then(|r| defs.messages.iter().find(|m| m.id == r));
    let name = match message.and_then(|m| m.name.as_ref()) {
        Some(n) => Some(expr(e, n)?),
        None => None,
    };
    let correlation_key = match e
        .zeebe
        .subscription
        .as_ref()
        .and_then(|s| s.correlation_key.as_ref())
    {
        Some(k) => Some(expr(e, k)?),
        None => None,
    };
    Ok(EventDef::Message {
        name,
        correlation_key,
    })
}

fn compile_event_definition(
    defs: &model::Definitions,
    process: &model::Process,
    e: &model::Element,
    d: &EventDefinition,
) -> Result<EventDef, CompileError> {
    Ok(match d {
        EventDefinition::Message { message_ref, .. } => {
            message_event(defs, e, message_ref.as_deref())?
        }
        EventDefinition::Timer(t) => EventDef::Timer(match t {
            model::TimerDefinition::Duration(x) => TimerDef::Duration(expr(e, x)?),
            model::TimerDefinition::Date(x) => TimerDef::Date(expr(e, x)?),
            model::TimerDefinition::Cycle(x) => TimerDef::Cycle(expr(e, x)?),
            model::TimerDefinition::Empty(_) => {
                return Err(err(
                    e,
                    "a timer event definition must have a timeDuration, timeDate or timeCycle",
                ));
            }
        }),
        EventDefinition::Error { error_ref, .. } => {
            let error = error_ref
                .as_deref()
                .and_then(|r| defs.errors.iter().find(|x| x.id == r));
            let code = match error.and_then(|x| x.error_code.as_ref()) {
                Some(c) if !c.text.is_empty() => Some(expr(e, c)?),
                _ => None,
            };
            EventDef::Error { code }
        }
        EventDefinition::Escalation { escalation_ref, .. } => {
            let esc = escalation_ref
                .as_deref()
                .and_then(|r| defs.escalations.iter().find(|x| x.id == r));
            let code = match esc.and_then(|x| x.escalation_code.as_ref()) {
                Some(c) if !c.text.is_empty() => Some(expr(e, c)?),
                _ => None,
            };
            EventDef::Escalation { code }
        }
        EventDefinition::Signal { signal_ref, .. } => {
            let sig = signal_ref
                .as_deref()
                .and_then(|r| defs.signals.iter().find(|x| x.id == r));
            let name = match sig.and_then(|x| x.name.as_ref()) {
                Some(n) => Some(expr(e, n)?),
                None => None,
            };
            EventDef::Signal { name }
        }
        EventDefinition::Compensation { activity_ref, .. } => EventDef::Compensation {
            activity: activity_ref.as_deref().and_then(|r| process.find(r)),
        },
        EventDefinition::Conditional {
            condition,
            variable_names,
            variable_events,
            ..
        } => EventDef::Conditional {
            condition: opt_expr(e, condition)?,
            variable_names: split_list(variable_names.as_deref()),
            variable_events: split_list(variable_events.as_deref()),
        },
        EventDefinition::Link { name, .. } => EventDef::Link {
            name: name.clone().unwrap_or_default(),
            target: None,
        },
        EventDefinition::Terminate { .. } => EventDef::Terminate,
        EventDefinition::Cancel { .. } => {
            return Err(err(e, "cancel events are not supported"));
        }
    })
}

fn split_list(s: Option<&str>) -> Vec<String> {
    s.map(|s| {
        s.split(',')
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect()
    })
    .unwrap_or_default()
}
