//! The ASSERT_* instructions, run at once as [`Check`]s: the engine has already run until it
//! waits, so nothing polls.

use baton_engine::runtime::Key;

use super::selectors::{
    check_task_selector, element, find_user_tasks, instance, root_of, task_selector_text,
};
use super::{Ctx, Done, InstructionFailure, fail};
use crate::model::{
    self, AssertDecision, AssertElementInstance, AssertElementInstances, AssertMessageSubscription,
    AssertProcessInstance, AssertUserTask, AssertVariables,
};
use baton_testing::assertions::{
    self, Check, DecisionExpectation, ElementState, ElementsState, InstanceState,
    SubscriptionState, UserTaskExpectation, VariableScope,
};
use baton_testing::variables::Matching;

fn check(ctx: &mut impl Ctx, instance: Key, check: &Check) -> Result<(), InstructionFailure> {
    ctx.check(instance, check)
        .map_err(InstructionFailure::from_assertion)
}

pub(super) fn assert_process_instance(
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

pub(super) fn assert_element_instances(
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

pub(super) fn assert_element_instance(
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
    let what = crate::inner_instance::describe(sel);
    match ctx.read(|e| crate::inner_instance::select(e, instance, sel)) {
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

pub(super) fn assert_variables(
    ctx: &mut impl Ctx,
    a: &AssertVariables,
) -> Result<(), InstructionFailure> {
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

pub(super) fn assert_message_subscription(
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

pub(super) fn assert_user_task(
    ctx: &mut impl Ctx,
    a: &AssertUserTask,
) -> Result<(), InstructionFailure> {
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

pub(super) fn assert_decision(
    ctx: &mut impl Ctx,
    a: &AssertDecision,
) -> Result<(), InstructionFailure> {
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
