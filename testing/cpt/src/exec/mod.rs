//! Running one instruction: selectors resolved against the engine as CPT's search does (all
//! given fields must match, the oldest match wins), actions sent as engine commands, assertions
//! run at once as [`Check`]s (the engine has already run until it waits, so nothing polls).
//!
//! The instructions a conditional behaviour may use run through [`Ctx`], so they work both at
//! the top level of a test case (where every command is followed by the settle loop) and inside
//! the [`AtQuiescence`](baton_testing::AtQuiescence) hook of a behaviour.
//!
//! By instruction family: `selectors` finds what an instruction names (instances, jobs, user
//! tasks), `assertions` runs the ASSERT_* instructions, `actions` the ones that act; this file
//! holds the context they run in and [`run_generic`], which sends each to its family.

use baton_engine::runtime::{Engine, Key, PublishMessage, Rejection, VariableDocument};
use serde_json::{Map, Value};

use super::model::Instruction;
use baton_testing::assertions::{AssertionFailure, Check};
use baton_testing::{ProcessTest, Quiescent};

mod actions;
mod assertions;
mod selectors;

pub(crate) use actions::suspend_or_resume;
use actions::{
    complete_ad_hoc, complete_job, complete_listener, complete_user_task, resolve_incident,
    update_variables,
};
pub(crate) use assertions::assert_variable;
use assertions::{
    assert_decision, assert_element_instance, assert_element_instances,
    assert_message_subscription, assert_process_instance, assert_user_task, assert_variables,
};
use selectors::find_job;
pub(crate) use selectors::instance;

/// Why an instruction failed: a message, and the run explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InstructionFailure {
    pub message: String,
    pub explanation: String,
}

impl InstructionFailure {
    pub(super) fn from_assertion(f: AssertionFailure) -> InstructionFailure {
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

pub(super) fn rejected(ctx: &mut impl Ctx, what: &str, r: Rejection) -> InstructionFailure {
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

pub(super) fn describe_fields(fields: &[(&str, &Option<String>)]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .filter_map(|(name, v)| v.as_ref().map(|v| format!("{name}: \"{v}\"")))
        .collect();
    format!("[{}]", parts.join(", "))
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
