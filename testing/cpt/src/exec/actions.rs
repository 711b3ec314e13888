//! The instructions that act, sent as engine commands: completing jobs and user tasks,
//! resolving incidents, updating variables, suspending and resuming instances.

use baton_engine::runtime::{
    AdHocJobResult, Engine, JobKind, JobResult, Key, VariableDocument, share_document,
};
use serde_json::Value;

use super::selectors::{
    check_task_selector, element, find_job, find_user_tasks, first_instance, instance, process_id,
    task_selector_text,
};
use super::{Ctx, InstructionFailure, describe_fields, document, fail, rejected};
use crate::model::{self, ProcessSelector};
use baton_testing::assertions::ElementSelector;

/// SUSPEND_PROCESS_INSTANCE / RESUME_PROCESS_INSTANCE (baton's extension): the first instance of
/// the selected process.
pub(crate) fn suspend_or_resume(
    ctx: &mut impl Ctx,
    sel: &ProcessSelector,
    suspend: bool,
) -> Result<(), InstructionFailure> {
    let key = instance(ctx, sel)?;
    let (what, result) = if suspend {
        ("suspending", ctx.command(|e| e.suspend_instance(key)))
    } else {
        ("resuming", ctx.command(|e| e.resume_instance(key)))
    };
    result.map_err(|r| rejected(ctx, &format!("{what} the process instance"), r))
}

fn example_data(
    ctx: &mut impl Ctx,
    definition: Key,
    element_id: &str,
) -> Result<VariableDocument, InstructionFailure> {
    ctx.read(|e| baton_testing::example_data::example_data(e, definition, element_id))
        .map_err(|m| fail(ctx, m.to_string()))
}

fn definition_of(engine: &Engine, process_instance: Key) -> Key {
    engine
        .process_instance(process_instance)
        .map_or(0, |p| p.process_definition_key)
}

pub(super) fn complete_job(
    ctx: &mut impl Ctx,
    c: &model::CompleteJob,
) -> Result<(), InstructionFailure> {
    let job = find_job(ctx, &c.job_selector, None, "complete")?;
    let vars = if c.use_example_data {
        let definition = ctx.read(|e| definition_of(e, job.process_instance_key));
        example_data(ctx, definition, &job.element_id)?
    } else {
        document(&c.variables)
    };
    ctx.command(|e| e.complete_job(job.key, vars)).map_err(|r| {
        rejected(
            ctx,
            &format!("completing the job at \"{}\"", job.element_id),
            r,
        )
    })
}

pub(super) fn complete_ad_hoc(
    ctx: &mut impl Ctx,
    c: &model::CompleteJobAdHocSubProcess,
) -> Result<(), InstructionFailure> {
    let job = find_job(
        ctx,
        &c.job_selector,
        Some(JobKind::AdHocSubProcess),
        "complete",
    )?;
    let result = AdHocJobResult {
        activate_elements: c
            .activate_elements
            .iter()
            .map(|a| (a.element_id.clone(), share_document(document(&a.variables))))
            .collect(),
        completion_condition_fulfilled: c.completion_condition_fulfilled,
        cancel_remaining_instances: c.cancel_remaining_instances,
    };
    let vars = document(&c.variables);
    ctx.command(|e| {
        e.complete_job_with_result(job.key, vars, Some(JobResult::AdHocSubProcess(result)))
    })
    .map_err(|r| {
        rejected(
            ctx,
            &format!(
                "completing the job of ad-hoc sub-process \"{}\"",
                job.element_id
            ),
            r,
        )
    })
}

pub(super) fn complete_listener(
    ctx: &mut impl Ctx,
    c: &model::CompleteJobUserTaskListener,
) -> Result<(), InstructionFailure> {
    let job = find_job(
        ctx,
        &c.job_selector,
        Some(JobKind::TaskListener),
        "complete",
    )?;
    let mut corrections = VariableDocument::new();
    if !c.denied
        && let Some(k) = &c.corrections
    {
        let mut put = |name: &str, value: Option<Value>| {
            if let Some(v) = value {
                corrections.insert(name.to_owned(), v);
            }
        };
        put("assignee", k.assignee.clone().map(Value::String));
        put("dueDate", k.due_date.clone().map(Value::String));
        put("followUpDate", k.follow_up_date.clone().map(Value::String));
        // Empty lists are "not set".
        let list = |l: &Option<Vec<String>>| {
            l.as_ref()
                .filter(|l| !l.is_empty())
                .map(|l| Value::Array(l.iter().cloned().map(Value::String).collect()))
        };
        put("candidateUsers", list(&k.candidate_users));
        put("candidateGroups", list(&k.candidate_groups));
        put("priority", k.priority.map(Value::from));
    }
    let result = JobResult::UserTask {
        denied: c.denied,
        denied_reason: c.denied.then(|| c.denied_reason.clone()).flatten(),
        corrections,
    };
    ctx.command(|e| e.complete_job_with_result(job.key, VariableDocument::new(), Some(result)))
        .map_err(|r| {
            rejected(
                ctx,
                &format!("completing the task listener job at \"{}\"", job.element_id),
                r,
            )
        })
}

pub(super) fn complete_user_task(
    ctx: &mut impl Ctx,
    c: &model::CompleteUserTask,
) -> Result<(), InstructionFailure> {
    let sel = &c.user_task_selector;
    check_task_selector(ctx, sel)?;
    let (found, open) = ctx.read(|e| find_user_tasks(e, sel, true));
    let Some(task) = found.into_iter().next() else {
        return Err(fail(
            ctx,
            format!(
                "Expected to complete user task {} but no user task is available.\n{}",
                task_selector_text(sel),
                if open.is_empty() {
                    "no user task is open".to_owned()
                } else {
                    format!("open user tasks: {}", open.join(", "))
                }
            ),
        ));
    };
    let vars = if c.use_example_data {
        example_data(ctx, task.process_definition_key, &task.element_id)?
    } else {
        document(&c.variables)
    };
    ctx.command(|e| e.complete_user_task(task.key, vars))
        .map_err(|r| {
            rejected(
                ctx,
                &format!("completing user task \"{}\"", task.element_id),
                r,
            )
        })
}

pub(super) fn resolve_incident(
    ctx: &mut impl Ctx,
    r: &model::ResolveIncident,
) -> Result<(), InstructionFailure> {
    let sel = &r.incident_selector;
    if sel.element_id.is_none() && sel.process_definition_id.is_none() {
        return Err(fail(
            ctx,
            "Missing required property: at least one of elementId or processDefinitionId must be set",
        ));
    }
    let found = ctx.read(|e| {
        e.incidents().into_iter().find(|i| {
            sel.element_id
                .as_deref()
                .is_none_or(|id| i.element_id == id)
                && sel
                    .process_definition_id
                    .as_deref()
                    .is_none_or(|id| *i.bpmn_process_id == *id)
        })
    });
    let Some(incident) = found else {
        return Err(fail(
            ctx,
            format!(
                "Expected to resolve an incident {} but no incident was found.",
                describe_fields(&[
                    ("elementId", &sel.element_id),
                    ("processDefinitionId", &sel.process_definition_id),
                ])
            ),
        ));
    };
    if let Some(job) = incident.job_key {
        ctx.command(|e| e.update_job_retries(job, 1)).map_err(|r| {
            rejected(
                ctx,
                &format!(
                    "setting the retries of the job at \"{}\"",
                    incident.element_id
                ),
                r,
            )
        })?;
    }
    ctx.command(|e| e.resolve_incident(incident.key))
        .map_err(|r| {
            rejected(
                ctx,
                &format!("resolving the incident at \"{}\"", incident.element_id),
                r,
            )
        })
}

pub(super) fn update_variables(
    ctx: &mut impl Ctx,
    u: &model::UpdateVariables,
) -> Result<(), InstructionFailure> {
    let id = process_id(&u.process_instance_selector).map_err(|m| fail(ctx, m))?;
    let Some(key) = ctx.read(|e| first_instance(e, id)) else {
        return Err(fail(
            ctx,
            format!(
                "Expected to update variables for process instance [processDefinitionId: \"{id}\"] but no process instance is available."
            ),
        ));
    };
    let vars = document(&u.variables);
    let (scope, local) = match &u.element_selector {
        None => (key, false),
        Some(sel) => {
            let sel = element(sel).map_err(|m| fail(ctx, m))?;
            let found = ctx.read(|e| {
                let names: Vec<String> = match &sel {
                    ElementSelector::Id(id) => vec![id.clone()],
                    ElementSelector::Name(name) => e
                        .process_instance(key)
                        .and_then(|pi| {
                            e.deployed_processes()
                                .find(|p| p.key() == pi.process_definition_key)
                        })
                        .map(|p| {
                            p.model()
                                .elements
                                .iter()
                                .filter(|el| el.name.as_deref() == Some(name.as_str()))
                                .map(|el| el.id.to_string())
                                .collect()
                        })
                        .unwrap_or_default(),
                };
                e.element_instances(key)
                    .into_iter()
                    .find(|i| i.key != key && i.state.is_active() && names.contains(&i.element_id))
                    .map(|i| i.key)
            });
            let Some(element_instance) = found else {
                let text = match &sel {
                    ElementSelector::Id(id) => format!("elementId: \"{id}\""),
                    ElementSelector::Name(n) => format!("elementName: \"{n}\""),
                };
                return Err(fail(
                    ctx,
                    format!(
                        "Expected to update local variables for element [{text}] in process instance [processDefinitionId: \"{id}\"] but no element is available."
                    ),
                ));
            };
            (element_instance, u.create_local_variables)
        }
    };
    ctx.command(|e| e.set_variables(scope, vars, local))
        .map_err(|r| rejected(ctx, "updating variables", r))
}
