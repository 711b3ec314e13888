//! Running one instruction: selectors resolved against the engine as CPT's search does (all
//! given fields must match, the oldest match wins), actions sent as engine commands, assertions
//! run at once as [`Check`]s (the engine has already run until it waits, so nothing polls).
//!
//! The instructions a conditional behaviour may use run through [`Ctx`], so they work both at
//! the top level of a test case (where every command is followed by the settle loop) and inside
//! the [`AtQuiescence`](crate::AtQuiescence) hook of a behaviour.

use baton_engine::runtime::{
    AdHocJobResult, Engine, JobKind, JobResult, JobState, JobView, Key, PublishMessage, Rejection,
    VariableDocument, share_document,
};
use serde_json::{Map, Value};

use super::model::{
    self, AssertDecision, AssertElementInstance, AssertElementInstances, AssertMessageSubscription,
    AssertProcessInstance, AssertUserTask, AssertVariables, Instruction, JobSelector,
    ProcessSelector,
};
use crate::assertions::{
    self, AssertionFailure, Check, DecisionExpectation, ElementSelector, ElementState,
    ElementsState, InstanceState, SubscriptionState, UserTaskExpectation, VariableScope,
};
use crate::variables::Matching;
use crate::{ProcessTest, Quiescent};

/// Why an instruction failed: a message, and the run explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InstructionFailure {
    pub message: String,
    pub explanation: String,
}

impl InstructionFailure {
    fn from_assertion(f: AssertionFailure) -> InstructionFailure {
        InstructionFailure {
            message: format!("expected {}\n    but {}", f.expected, f.actual),
            explanation: f.explanation,
        }
    }
}

/// What an instruction that did not fail did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Done {
    Ok,
    /// Part of it could not be checked offline (a judge or similarity assertion).
    Skipped(String),
}

/// The test a generic instruction acts on: the top level of a test case, or a conditional
/// behaviour's hook.
pub(crate) trait Ctx {
    fn read<T>(&mut self, f: impl FnOnce(&Engine) -> T) -> T;
    /// Sends a command; at the top level the engine then settles (mocks answer, hooks run).
    fn command<T>(
        &mut self,
        f: impl FnOnce(&mut Engine) -> Result<T, Rejection>,
    ) -> Result<T, Rejection>;
    fn check(&mut self, instance: Key, check: &Check) -> Result<(), AssertionFailure>;
    /// The runs explained, for failures that are not about one instance.
    fn explain(&mut self) -> String;
    /// Whether a mock job worker answers jobs of this type (for hints).
    fn mocked(&self, _job_type: &str) -> bool {
        false
    }
}

/// The top level of a test case.
pub(crate) struct TopLevel<'a>(pub &'a ProcessTest);

impl Ctx for TopLevel<'_> {
    fn read<T>(&mut self, f: impl FnOnce(&Engine) -> T) -> T {
        self.0.with_engine(f)
    }

    fn command<T>(
        &mut self,
        f: impl FnOnce(&mut Engine) -> Result<T, Rejection>,
    ) -> Result<T, Rejection> {
        self.0.act(f)
    }

    fn check(&mut self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        self.0.check(instance, check)
    }

    fn explain(&mut self) -> String {
        explain_all(self.0)
    }

    fn mocked(&self, job_type: &str) -> bool {
        self.0.job_mock(job_type).is_some()
    }
}

/// Inside a conditional behaviour's hook.
pub(crate) struct InHook<'q, 'a>(pub &'q mut Quiescent<'a>);

impl Ctx for InHook<'_, '_> {
    fn read<T>(&mut self, f: impl FnOnce(&Engine) -> T) -> T {
        f(self.0.engine())
    }

    fn command<T>(
        &mut self,
        f: impl FnOnce(&mut Engine) -> Result<T, Rejection>,
    ) -> Result<T, Rejection> {
        f(self.0.engine_mut())
    }

    fn check(&mut self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        self.0.check(instance, check)
    }

    fn explain(&mut self) -> String {
        String::new()
    }
}

/// The most root process instances a failure explains: a run that started thousands (a cycle
/// over a long stretch of time) is explained by its first ones.
const EXPLAINED_ROOTS: usize = 10;

/// The root process instances of the test explained, oldest first (the first
/// [`EXPLAINED_ROOTS`], then how many more there are).
pub(crate) fn explain_all(test: &ProcessTest) -> String {
    let roots: Vec<Key> = test.with_engine(|e| {
        e.process_instances()
            .into_iter()
            .filter(|p| p.parent_process_instance_key.is_none())
            .map(|p| p.key)
            .collect()
    });
    if roots.is_empty() {
        let deployed = test.process_ids();
        return format!(
            "no process instance was started (deployed processes: {})",
            if deployed.is_empty() {
                "none".to_owned()
            } else {
                deployed.join(", ")
            }
        );
    }
    let more = roots.len().saturating_sub(EXPLAINED_ROOTS);
    let mut explained = roots
        .into_iter()
        .take(EXPLAINED_ROOTS)
        .map(|k| test.explain(k))
        .collect::<Vec<_>>()
        .join("\n\n");
    if more > 0 {
        explained.push_str(&format!(
            "\n\n… and {more} more process instances (not shown)"
        ));
    }
    explained
}

pub(crate) fn fail(ctx: &mut impl Ctx, message: impl Into<String>) -> InstructionFailure {
    InstructionFailure {
        message: message.into(),
        explanation: ctx.explain(),
    }
}

fn rejected(ctx: &mut impl Ctx, what: &str, r: Rejection) -> InstructionFailure {
    fail(
        ctx,
        format!(
            "{what}: the engine rejected it ({}): {}",
            r.rejection_type, r.message
        ),
    )
}

pub(crate) fn document(vars: &Map<String, Value>) -> VariableDocument {
    vars.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn describe_fields(fields: &[(&str, &Option<String>)]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .filter_map(|(name, v)| v.as_ref().map(|v| format!("{name}: \"{v}\"")))
        .collect();
    format!("[{}]", parts.join(", "))
}

// ---- selectors ------------------------------------------------------------------------------

fn process_id(sel: &ProcessSelector) -> Result<&str, String> {
    sel.process_definition_id
        .as_deref()
        .ok_or_else(|| "Missing required property: processDefinitionId".to_owned())
}

fn element(sel: &model::ElementSelector) -> Result<ElementSelector, String> {
    match (&sel.element_id, &sel.element_name) {
        (Some(id), _) => Ok(ElementSelector::Id(id.clone())),
        (None, Some(name)) => Ok(ElementSelector::Name(name.clone())),
        (None, None) => Err("Element selector must have either elementId or elementName".into()),
    }
}

/// The first (oldest) process instance of a BPMN process id, child instances included.
fn first_instance(engine: &Engine, process_id: &str) -> Option<Key> {
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

fn check(ctx: &mut impl Ctx, instance: Key, check: &Check) -> Result<(), InstructionFailure> {
    ctx.check(instance, check)
        .map_err(InstructionFailure::from_assertion)
}

/// A job that an action may take: waiting for a worker (created, failed with retries, timed
/// out, retries updated) with retries left.
fn takeable(job: &JobView) -> bool {
    matches!(job.state, JobState::Activatable | JobState::FailedBackoff) && job.retries >= 1
}

/// Finds the oldest takeable job matching the selector (and kind, when given).
fn find_job(
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
struct FoundTask {
    key: Key,
    element_id: String,
    process_instance: Key,
    process_definition_key: Key,
}

/// The user tasks a selector selects (oldest first), and the ids of all user tasks (for
/// messages).
fn find_user_tasks(
    engine: &Engine,
    sel: &model::UserTaskSelector,
    only_created: bool,
) -> (Vec<FoundTask>, Vec<String>) {
    let mut all = Vec::new();
    let mut found = Vec::new();
    for t in engine.user_tasks() {
        let p = crate::history::process_at(engine, t.value.proc);
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

fn task_selector_text(sel: &model::UserTaskSelector) -> String {
    describe_fields(&[
        ("elementId", &sel.element_id),
        ("taskName", &sel.task_name),
        ("processDefinitionId", &sel.process_definition_id),
    ])
}

fn check_task_selector(
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
fn root_of(engine: &Engine, mut instance: Key) -> Key {
    while let Some(parent) = engine
        .process_instance(instance)
        .and_then(|p| p.parent_process_instance_key)
    {
        instance = parent;
    }
    instance
}

// ---- the generic instructions -----------------------------------------------------------------

/// Runs an instruction a conditional behaviour may use (as a condition or an action); `None`
/// for the others, which only run at the top level.
pub(crate) fn run_generic(
    ctx: &mut impl Ctx,
    instruction: &Instruction,
) -> Option<Result<Done, InstructionFailure>> {
    use Instruction as I;
    let result = match instruction {
        I::AssertDecision(a) => assert_decision(ctx, a),
        I::AssertElementInstance(a) => assert_element_instance(ctx, a),
        I::AssertElementInstances(a) => assert_element_instances(ctx, a),
        I::AssertProcessInstance(a) => assert_process_instance(ctx, a),
        I::AssertProcessInstanceMessageSubscription(a) => assert_message_subscription(ctx, a),
        I::AssertUserTask(a) => assert_user_task(ctx, a),
        I::AssertVariables(a) => assert_variables(ctx, a),
        I::BroadcastSignal(b) => {
            let vars = document(&b.variables);
            ctx.command(|e| e.broadcast_signal(&b.signal_name, vars))
                .map(|_| ())
                .map_err(|r| {
                    rejected(
                        ctx,
                        &format!("broadcasting signal \"{}\"", b.signal_name),
                        r,
                    )
                })
        }
        I::CompleteJob(c) => complete_job(ctx, c),
        I::CompleteJobAdHocSubProcess(c) => complete_ad_hoc(ctx, c),
        I::CompleteJobUserTaskListener(c) => complete_listener(ctx, c),
        I::CompleteUserTask(c) => complete_user_task(ctx, c),
        I::CorrelateMessage(c) => {
            let vars = document(&c.variables);
            let key = c.correlation_key.clone().unwrap_or_default();
            ctx.command(|e| e.correlate_message(&c.name, &key, vars))
                .map(|_| ())
                .map_err(|r| rejected(ctx, &format!("correlating message \"{}\"", c.name), r))
        }
        I::PublishMessage(p) => {
            let mut message = PublishMessage::new(
                p.name.clone(),
                p.correlation_key.clone().unwrap_or_default(),
            )
            .variables(document(&p.variables));
            if let Some(ttl) = p.time_to_live {
                message = message.time_to_live(ttl);
            }
            if let Some(id) = &p.message_id {
                message = message.message_id(id.clone());
            }
            ctx.command(|e| e.publish_message(message))
                .map(|_| ())
                .map_err(|r| rejected(ctx, &format!("publishing message \"{}\"", p.name), r))
        }
        I::ResolveIncident(r) => resolve_incident(ctx, r),
        I::ThrowBpmnErrorFromJob(t) => {
            find_job(ctx, &t.job_selector, None, "throw a BPMN error from").and_then(|job| {
                let vars = document(&t.variables);
                let message = t.error_message.clone().unwrap_or_default();
                ctx.command(|e| e.throw_error(job.key, &t.error_code, &message, vars))
                    .map_err(|r| {
                        rejected(
                            ctx,
                            &format!(
                                "throwing BPMN error \"{}\" from the job at \"{}\"",
                                t.error_code, job.element_id
                            ),
                            r,
                        )
                    })
            })
        }
        I::UpdateVariables(u) => update_variables(ctx, u),
        _ => return None,
    };
    Some(result.map(|()| Done::Ok))
}

fn assert_process_instance(
    ctx: &mut impl Ctx,
    a: &AssertProcessInstance,
) -> Result<(), InstructionFailure> {
    let key = instance(ctx, &a.process_instance_selector)?;
    if let Some(state) = a.state {
        let state = match state {
            model::ProcessInstanceState::Active => InstanceState::Active,
            model::ProcessInstanceState::Completed => InstanceState::Completed,
            model::ProcessInstanceState::Created => InstanceState::Created,
            model::ProcessInstanceState::Terminated => InstanceState::Terminated,
            model::ProcessInstanceState::Suspended => InstanceState::Suspended,
        };
        check(ctx, key, &Check::InstanceState(state))?;
    }
    if let Some(yes) = a.has_active_incidents {
        check(ctx, key, &Check::HasActiveIncidents(yes))?;
    }
    Ok(())
}

fn assert_element_instances(
    ctx: &mut impl Ctx,
    a: &AssertElementInstances,
) -> Result<(), InstructionFailure> {
    let elements = a
        .element_selectors
        .iter()
        .map(element)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|m| fail(ctx, m))?;
    let key = instance(ctx, &a.process_instance_selector)?;
    let state = match a.state {
        model::ElementInstancesState::Active => ElementsState::Active,
        model::ElementInstancesState::Completed => ElementsState::Completed,
        model::ElementInstancesState::Terminated => ElementsState::Terminated,
        model::ElementInstancesState::NotActive => ElementsState::NotActive,
        model::ElementInstancesState::NotActivated => ElementsState::NotActivated,
        model::ElementInstancesState::ActiveExactly => ElementsState::ActiveExactly,
        model::ElementInstancesState::CompletedInOrder => ElementsState::CompletedInOrder,
    };
    check(ctx, key, &Check::Elements { elements, state })
}

fn assert_element_instance(
    ctx: &mut impl Ctx,
    a: &AssertElementInstance,
) -> Result<(), InstructionFailure> {
    let element = element(&a.element_selector).map_err(|m| fail(ctx, m))?;
    let key = instance(ctx, &a.process_instance_selector)?;
    let state = match a.state {
        model::ElementInstanceState::Active => ElementState::Active,
        model::ElementInstanceState::Completed => ElementState::Completed,
        model::ElementInstanceState::Terminated => ElementState::Terminated,
    };
    let amount = a.amount.unwrap_or(1) as usize;
    check(
        ctx,
        key,
        &Check::ElementCount {
            element,
            state,
            amount,
        },
    )
}

fn scope(
    ctx: &mut impl Ctx,
    sel: Option<&model::ElementSelector>,
) -> Result<VariableScope, InstructionFailure> {
    match sel {
        None => Ok(VariableScope::Root),
        Some(sel) => element(sel)
            .map(VariableScope::Local)
            .map_err(|m| fail(ctx, m)),
    }
}

/// The scope of baton's `innerInstanceSelector`, in the selected process instance; `None`
/// when the instruction names no inner instance.
fn inner_scope(
    ctx: &mut impl Ctx,
    instance: Key,
    sel: Option<&model::InnerInstanceSelector>,
    names: &[String],
) -> Result<Option<VariableScope>, InstructionFailure> {
    let Some(sel) = sel else {
        return Ok(None);
    };
    let what = super::inner_instance::describe(sel);
    match ctx.read(|e| super::inner_instance::select(e, instance, sel)) {
        Ok(key) => Ok(Some(VariableScope::Instance {
            key,
            what: format!("local variables of {what}"),
        })),
        Err(why) => Err(fail(
            ctx,
            format!(
                "expected the {what} to have the variables {}\n    but {why}",
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

fn assert_variables(ctx: &mut impl Ctx, a: &AssertVariables) -> Result<(), InstructionFailure> {
    let scope = scope(ctx, a.element_selector.as_ref())?;
    let key = instance(ctx, &a.process_instance_selector)?;
    let mut names: Vec<String> = a.variable_names.clone().unwrap_or_default();
    names.extend(a.variables.iter().flat_map(|v| v.keys().cloned()));
    let scope = inner_scope(ctx, key, a.inner_instance_selector.as_ref(), &names)?.unwrap_or(scope);
    if let Some(names) = a.variable_names.as_ref().filter(|n| !n.is_empty()) {
        check(
            ctx,
            key,
            &Check::VariableNames {
                scope: scope.clone(),
                names: names.clone(),
            },
        )?;
    }
    if let Some(expected) = a.variables.as_ref().filter(|v| !v.is_empty()) {
        check(
            ctx,
            key,
            &Check::Variables {
                scope,
                expected: expected.clone(),
                matching: Matching::Exact,
            },
        )?;
    }
    Ok(())
}

/// ASSERT_VARIABLE: the FEEL expression runs; the judge and similarity checks need a model and
/// are reported as skipped (after checking that the variable exists).
pub(crate) fn assert_variable(
    ctx: &mut impl Ctx,
    a: &model::AssertVariable,
) -> Result<Done, InstructionFailure> {
    let scope = scope(ctx, a.element_selector.as_ref())?;
    let key = instance(ctx, &a.process_instance_selector)?;
    let names = [a.variable_name.clone()];
    let scope = inner_scope(ctx, key, a.inner_instance_selector.as_ref(), &names)?.unwrap_or(scope);
    check(
        ctx,
        key,
        &Check::VariableNames {
            scope: scope.clone(),
            names: vec![a.variable_name.clone()],
        },
    )?;
    if let Some(expression) = &a.satisfies_expression {
        check(
            ctx,
            key,
            &Check::VariableSatisfies {
                scope,
                name: a.variable_name.clone(),
                expression: expression.clone(),
            },
        )?;
    }
    let mut skipped = Vec::new();
    if a.satisfies_judge.is_some() {
        skipped.push("satisfiesJudge (an LLM judge)");
    }
    if a.similar_to.is_some() {
        skipped.push("similarTo (embedding similarity)");
    }
    if skipped.is_empty() {
        Ok(Done::Ok)
    } else {
        Ok(Done::Skipped(format!(
            "{} of \"{}\" needs a language model; baton runs offline and does not check it",
            skipped.join(" and "),
            a.variable_name
        )))
    }
}

fn assert_message_subscription(
    ctx: &mut impl Ctx,
    a: &AssertMessageSubscription,
) -> Result<(), InstructionFailure> {
    let key = instance(ctx, &a.process_instance_selector)?;
    let state = match a.state {
        model::MessageSubscriptionState::Waiting => SubscriptionState::Waiting,
        model::MessageSubscriptionState::NotWaiting => SubscriptionState::NotWaiting,
        model::MessageSubscriptionState::Correlated => SubscriptionState::Correlated,
    };
    check(
        ctx,
        key,
        &Check::MessageSubscription {
            message_name: a.message_selector.message_name.clone(),
            correlation_key: a.message_selector.correlation_key.clone(),
            state,
        },
    )
}

fn assert_user_task(ctx: &mut impl Ctx, a: &AssertUserTask) -> Result<(), InstructionFailure> {
    let sel = &a.user_task_selector;
    check_task_selector(ctx, sel)?;
    let (found, all) = ctx.read(|e| find_user_tasks(e, sel, false));
    if found.is_empty() {
        let actual = if all.is_empty() {
            "there is no user task".to_owned()
        } else {
            format!("there is no such user task; user tasks: {}", all.join(", "))
        };
        return Err(fail(
            ctx,
            format!(
                "expected a user task {}\n    but {actual}",
                task_selector_text(sel)
            ),
        ));
    }
    let state = a.state.map(|s| match s {
        model::UserTaskState::Created => baton_engine::runtime::UserTaskState::Created,
        model::UserTaskState::Completed => baton_engine::runtime::UserTaskState::Completed,
        model::UserTaskState::Canceled => baton_engine::runtime::UserTaskState::Canceled,
        model::UserTaskState::Failed => baton_engine::runtime::UserTaskState::Failed,
    });
    let expected = UserTaskExpectation {
        state,
        assignee: a.assignee.clone(),
        // An empty list means "not checked" in CPT.
        candidate_groups: a.candidate_groups.clone().filter(|g| !g.is_empty()),
        candidate_users: None,
        priority: a.priority,
        due_date: a.due_date.clone(),
        follow_up_date: a.follow_up_date.clone(),
    };
    // The check looks at one call hierarchy at a time: the first that passes wins.
    let mut roots: Vec<Key> = Vec::new();
    for task in &found {
        let root = ctx.read(|e| root_of(e, task.process_instance));
        if !roots.contains(&root) {
            roots.push(root);
        }
    }
    let check_of = Check::UserTask {
        // The instruction's `elementId` and `name` checks narrow the selection: CPT
        // passes when some selected task has them.
        task: assertions::UserTaskSelector {
            element_id: a.element_id.clone().or_else(|| sel.element_id.clone()),
            name: a.name.clone().or_else(|| sel.task_name.clone()),
        },
        expected,
    };
    let mut first_failure = None;
    for root in roots {
        match check(ctx, root, &check_of) {
            Ok(()) => return Ok(()),
            Err(f) => {
                first_failure.get_or_insert(f);
            }
        }
    }
    Err(first_failure.expect("a selected task has a root"))
}

fn assert_decision(ctx: &mut impl Ctx, a: &AssertDecision) -> Result<(), InstructionFailure> {
    let sel = &a.decision_selector;
    let Some(id) = sel.decision_definition_id.as_deref() else {
        let message = match &sel.decision_definition_name {
            Some(name) => format!(
                "a decision selector by name (\"{name}\") needs the DMN model, which baton does not have for the evaluated decisions; select the decision by decisionDefinitionId"
            ),
            None => {
                "Decision selector must have either decisionDefinitionId or decisionDefinitionName"
                    .to_owned()
            }
        };
        return Err(fail(ctx, message));
    };
    let expected = DecisionExpectation {
        output: a.output.clone(),
        matched_rules: a.matched_rules.clone().filter(|m| !m.is_empty()),
        not_matched_rules: a.not_matched_rules.clone().filter(|m| !m.is_empty()),
        no_matched_rules: a.no_matched_rules,
    };
    ctx.read(|e| assertions::check_decision(e, id, &expected))
        .map_err(InstructionFailure::from_assertion)
}

// ---- actions --------------------------------------------------------------------------------

fn example_data(
    ctx: &mut impl Ctx,
    definition: Key,
    element_id: &str,
) -> Result<VariableDocument, InstructionFailure> {
    ctx.read(|e| crate::example_data::example_data(e, definition, element_id))
        .map_err(|m| fail(ctx, m.to_string()))
}

fn definition_of(engine: &Engine, process_instance: Key) -> Key {
    engine
        .process_instance(process_instance)
        .map_or(0, |p| p.process_definition_key)
}

fn complete_job(ctx: &mut impl Ctx, c: &model::CompleteJob) -> Result<(), InstructionFailure> {
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

fn complete_ad_hoc(
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

fn complete_listener(
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

fn complete_user_task(
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

fn resolve_incident(
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

fn update_variables(
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

/// The types CPT's runner allows as conditions of a conditional behaviour (sorted).
pub(crate) const CONDITION_TYPES: &[&str] = &[
    "ASSERT_DECISION",
    "ASSERT_ELEMENT_INSTANCE",
    "ASSERT_ELEMENT_INSTANCES",
    "ASSERT_PROCESS_INSTANCE",
    "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION",
    "ASSERT_USER_TASK",
    "ASSERT_VARIABLES",
];

/// The types CPT's runner allows as actions of a conditional behaviour (sorted).
pub(crate) const ACTION_TYPES: &[&str] = &[
    "BROADCAST_SIGNAL",
    "COMPLETE_JOB",
    "COMPLETE_JOB_AD_HOC_SUB_PROCESS",
    "COMPLETE_JOB_USER_TASK_LISTENER",
    "COMPLETE_USER_TASK",
    "CORRELATE_MESSAGE",
    "PUBLISH_MESSAGE",
    "RESOLVE_INCIDENT",
    "THROW_BPMN_ERROR_FROM_JOB",
    "UPDATE_VARIABLES",
];
