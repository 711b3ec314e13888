//! Selectors resolved against the engine as CPT's search does: all given fields must match, the
//! oldest match wins, and a selector that finds nothing says what there is instead.

use baton_engine::runtime::{Engine, JobKind, JobState, JobView, Key};

use super::{Ctx, InstructionFailure, describe_fields, fail};
use crate::model::{self, JobSelector, ProcessSelector};
use baton_testing::assertions::ElementSelector;

pub(super) fn process_id(sel: &ProcessSelector) -> Result<&str, String> {
    sel.process_definition_id
        .as_deref()
        .ok_or_else(|| "Missing required property: processDefinitionId".to_owned())
}

pub(super) fn element(sel: &model::ElementSelector) -> Result<ElementSelector, String> {
    match (&sel.element_id, &sel.element_name) {
        (Some(id), _) => Ok(ElementSelector::Id(id.clone())),
        (None, Some(name)) => Ok(ElementSelector::Name(name.clone())),
        (None, None) => Err("Element selector must have either elementId or elementName".into()),
    }
}

/// The first (oldest) process instance of a BPMN process id, child instances included.
pub(super) fn first_instance(engine: &Engine, process_id: &str) -> Option<Key> {
    engine
        .process_instances()
        .into_iter()
        .find(|p| &*p.bpmn_process_id == process_id)
        .map(|p| p.key)
}

/// The instance a `processInstanceSelector` selects, or a failure saying there is none.
pub(crate) fn instance(
    ctx: &mut impl Ctx,
    sel: &ProcessSelector,
) -> Result<Key, InstructionFailure> {
    let id = process_id(sel).map_err(|m| fail(ctx, m))?;
    let (found, deployed) = ctx.read(|e| (first_instance(e, id), e.latest_process(id).is_some()));
    match found {
        Some(key) => Ok(key),
        None if !deployed => Err(fail(
            ctx,
            format!(
                "expected an instance of process \"{id}\"\n    but no process \"{id}\" is deployed"
            ),
        )),
        None => Err(fail(
            ctx,
            format!("expected an instance of process \"{id}\"\n    but none was created"),
        )),
    }
}

/// A job that an action may take: waiting for a worker (created, failed with retries, timed
/// out, retries updated) with retries left.
fn takeable(job: &JobView) -> bool {
    matches!(job.state, JobState::Activatable | JobState::FailedBackoff) && job.retries >= 1
}

/// Finds the oldest takeable job matching the selector (and kind, when given).
pub(super) fn find_job(
    ctx: &mut impl Ctx,
    sel: &JobSelector,
    kind: Option<JobKind>,
    verb: &str,
) -> Result<JobView, InstructionFailure> {
    if sel.job_type.is_none() && sel.element_id.is_none() && sel.process_definition_id.is_none() {
        return Err(fail(
            ctx,
            "Missing required property: at least one of jobType, elementId, or processDefinitionId must be set",
        ));
    }
    let matches = |j: &JobView| {
        sel.job_type.as_deref().is_none_or(|t| *j.job_type == *t)
            && sel
                .element_id
                .as_deref()
                .is_none_or(|t| *j.element_id == *t)
            && sel
                .process_definition_id
                .as_deref()
                .is_none_or(|t| *j.bpmn_process_id == *t)
            && kind.is_none_or(|k| j.kind == k)
    };
    let (found, open, parked) = ctx.read(|e| {
        let jobs = e.jobs();
        let found = jobs.iter().find(|j| takeable(j) && matches(j)).cloned();
        let parked = jobs
            .iter()
            .any(|j| j.state == JobState::Suspended && matches(j));
        let open: Vec<String> = jobs
            .iter()
            .filter(|j| takeable(j))
            .map(|j| {
                format!(
                    "\"{}\" (type \"{}\"{})",
                    j.element_id,
                    j.job_type,
                    match j.kind {
                        JobKind::BpmnElement => String::new(),
                        other => format!(", {}", other.as_str()),
                    }
                )
            })
            .collect();
        (found, open, parked)
    });
    if let Some(job) = found {
        return Ok(job);
    }
    let selector = describe_fields(&[
        ("jobType", &sel.job_type),
        ("elementId", &sel.element_id),
        ("processDefinitionId", &sel.process_definition_id),
    ]);
    let kind_text = match kind {
        Some(JobKind::AdHocSubProcess) => " of an ad-hoc sub-process",
        Some(JobKind::TaskListener) => " of a task listener",
        _ => "",
    };
    let mut listing = if open.is_empty() {
        "no job is waiting".to_owned()
    } else {
        format!("waiting jobs: {}", open.join(", "))
    };
    if parked {
        listing.push_str(
            "; a matching job is parked: its process instance is suspended (RESUME_PROCESS_INSTANCE hands it out again)",
        );
    }
    if let Some(t) = &sel.job_type
        && ctx.mocked(t)
    {
        listing.push_str(&format!(
            "; jobs of type \"{t}\" are answered by a MOCK_JOB_WORKER_* instruction of this test case"
        ));
    }
    Err(fail(
        ctx,
        format!("Expected to {verb} job{kind_text} {selector} but no job is available.\n{listing}"),
    ))
}

/// A user task: key, element id, process instance, process definition key.
pub(super) struct FoundTask {
    pub(super) key: Key,
    pub(super) element_id: String,
    pub(super) process_instance: Key,
    pub(super) process_definition_key: Key,
}

/// The user tasks a selector selects (oldest first), and the ids of all user tasks (for
/// messages).
pub(super) fn find_user_tasks(
    engine: &Engine,
    sel: &model::UserTaskSelector,
    only_created: bool,
) -> (Vec<FoundTask>, Vec<String>) {
    let mut all = Vec::new();
    let mut found = Vec::new();
    for t in engine.user_tasks() {
        let p = baton_testing::process_at(engine, t.value.proc);
        let el = p.model_element(t.value.element);
        let created = t.state == baton_engine::runtime::UserTaskState::Created;
        if !only_created || created {
            all.push(format!("\"{}\"", el.id));
        }
        if only_created && !created {
            continue;
        }
        let ok = sel.element_id.as_deref().is_none_or(|i| el.id == i)
            && sel
                .task_name
                .as_deref()
                .is_none_or(|n| el.name.as_deref() == Some(n))
            && sel
                .process_definition_id
                .as_deref()
                .is_none_or(|i| **p.bpmn_process_id() == *i);
        if ok {
            found.push(FoundTask {
                key: t.key,
                element_id: el.id.to_string(),
                process_instance: t.value.process_instance_key,
                process_definition_key: p.key(),
            });
        }
    }
    (found, all)
}

pub(super) fn task_selector_text(sel: &model::UserTaskSelector) -> String {
    describe_fields(&[
        ("elementId", &sel.element_id),
        ("taskName", &sel.task_name),
        ("processDefinitionId", &sel.process_definition_id),
    ])
}

pub(super) fn check_task_selector(
    ctx: &mut impl Ctx,
    sel: &model::UserTaskSelector,
) -> Result<(), InstructionFailure> {
    if sel.element_id.is_none() && sel.task_name.is_none() && sel.process_definition_id.is_none() {
        return Err(fail(
            ctx,
            "Missing required property: at least one of elementId, taskName, or processDefinitionId must be set",
        ));
    }
    Ok(())
}

/// The root of the call hierarchy of a process instance.
pub(super) fn root_of(engine: &Engine, mut instance: Key) -> Key {
    while let Some(parent) = engine
        .process_instance(instance)
        .and_then(|p| p.parent_process_instance_key)
    {
        instance = parent;
    }
    instance
}
