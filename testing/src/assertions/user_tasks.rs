//! Checks of user tasks (in the instance or those it called) and their fields.

use baton_engine::runtime::UserTaskState;

use super::{Outcome, Subject, quoted};

/// A user task, by element id and/or name (all given fields must match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserTaskSelector {
    pub element_id: Option<String>,
    pub name: Option<String>,
}

/// The fields of a user task to check; unset fields are not checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserTaskExpectation {
    pub state: Option<UserTaskState>,
    pub assignee: Option<String>,
    pub candidate_groups: Option<Vec<String>>,
    pub candidate_users: Option<Vec<String>>,
    pub priority: Option<i32>,
    pub due_date: Option<String>,
    pub follow_up_date: Option<String>,
}

impl UserTaskExpectation {
    /// The task is created (open).
    pub fn created() -> Self {
        UserTaskExpectation {
            state: Some(baton_engine::runtime::UserTaskState::Created),
            ..Default::default()
        }
    }

    /// The task is completed.
    pub fn completed() -> Self {
        UserTaskExpectation {
            state: Some(baton_engine::runtime::UserTaskState::Completed),
            ..Default::default()
        }
    }

    /// The task is cancelled.
    pub fn canceled() -> Self {
        UserTaskExpectation {
            state: Some(baton_engine::runtime::UserTaskState::Canceled),
            ..Default::default()
        }
    }

    /// With this assignee.
    pub fn assignee(mut self, assignee: &str) -> Self {
        self.assignee = Some(assignee.to_owned());
        self
    }

    /// With these candidate groups, in this order.
    pub fn candidate_groups<S: Into<String>>(
        mut self,
        groups: impl IntoIterator<Item = S>,
    ) -> Self {
        self.candidate_groups = Some(groups.into_iter().map(Into::into).collect());
        self
    }

    /// With these candidate users, in this order.
    pub fn candidate_users<S: Into<String>>(mut self, users: impl IntoIterator<Item = S>) -> Self {
        self.candidate_users = Some(users.into_iter().map(Into::into).collect());
        self
    }

    /// With this priority.
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// With this due date (ISO-8601, compared as an instant).
    pub fn due_date(mut self, date: &str) -> Self {
        self.due_date = Some(date.to_owned());
        self
    }

    /// With this follow-up date (ISO-8601, compared as an instant).
    pub fn follow_up_date(mut self, date: &str) -> Self {
        self.follow_up_date = Some(date.to_owned());
        self
    }
}

impl<'a> Subject<'a> {
    pub(super) fn check_user_task(
        &self,
        sel: &UserTaskSelector,
        e: &UserTaskExpectation,
    ) -> Outcome {
        let family = self.history.descendants(self.instance);
        let tasks: Vec<_> = self
            .engine
            .user_tasks()
            .into_iter()
            .filter(|t| {
                let pi = t.value.process_instance_key;
                pi == self.instance || family.contains(&pi)
            })
            .collect();
        let name_of = |t: &baton_engine::runtime::UserTask| -> (String, Option<String>) {
            let p = self
                .engine
                .deployed_processes()
                .nth(t.value.proc.0 as usize)
                .expect("deployed");
            let el = p.model_element(t.value.element);
            (el.id.to_string(), el.name.as_deref().map(str::to_owned))
        };
        let label = user_task_label(sel);
        // CPT checks each property on its own: some matching task must have it (a task
        // created again in a loop is found next to the completed one).
        let matching: Vec<&&baton_engine::runtime::UserTask> = tasks
            .iter()
            .filter(|t| {
                let (id, name) = name_of(t);
                sel.element_id.as_ref().is_none_or(|s| *s == id)
                    && sel.name.as_ref().is_none_or(|s| Some(s) == name.as_ref())
            })
            .collect();
        let want = wanted_properties(e);
        let want_text = if want.is_empty() {
            format!("{} to have {label}", self.who())
        } else {
            format!("{} to have {label} with {}", self.who(), want.join(", "))
        };
        if matching.is_empty() {
            let existing: Vec<String> = tasks.iter().map(|t| name_of(t).0).collect();
            return Err((
                want_text,
                if existing.is_empty() {
                    "there is no user task".to_owned()
                } else {
                    format!(
                        "there is no such user task; user tasks: {}",
                        quoted(&existing)
                    )
                },
            ));
        }
        let diffs = missing_properties(e, &matching);
        if diffs.is_empty() {
            Ok(())
        } else {
            Err((want_text, diffs.join(", ")))
        }
    }
}

/// How a failure names the selected user task.
fn user_task_label(sel: &UserTaskSelector) -> String {
    match (&sel.element_id, &sel.name) {
        (Some(id), Some(n)) => format!("user task \"{id}\" named \"{n}\""),
        (Some(id), None) => format!("user task \"{id}\""),
        (None, Some(n)) => format!("user task named \"{n}\""),
        (None, None) => "a user task".to_owned(),
    }
}

/// The expected properties, as a failure lists them.
fn wanted_properties(e: &UserTaskExpectation) -> Vec<String> {
    let mut want = Vec::new();
    if let Some(s) = e.state {
        want.push(format!("state {}", user_task_state(s)));
    }
    if let Some(a) = &e.assignee {
        want.push(format!("assignee \"{a}\""));
    }
    if let Some(g) = &e.candidate_groups {
        want.push(format!("candidate groups {}", quoted(g)));
    }
    if let Some(g) = &e.candidate_users {
        want.push(format!("candidate users {}", quoted(g)));
    }
    if let Some(p) = e.priority {
        want.push(format!("priority {p}"));
    }
    if let Some(d) = &e.due_date {
        want.push(format!("due date {d}"));
    }
    if let Some(d) = &e.follow_up_date {
        want.push(format!("follow-up date {d}"));
    }
    want
}

/// The expected properties no matching task has, each described for the one task or for each
/// of them.
fn missing_properties(
    e: &UserTaskExpectation,
    matching: &[&&baton_engine::runtime::UserTask],
) -> Vec<String> {
    let mut diffs = Vec::new();
    // A property no matching task has: described for the one task, or for each of them.
    let mut property =
        |has: &dyn Fn(&baton_engine::runtime::UserTask) -> bool,
         describe: &dyn Fn(&baton_engine::runtime::UserTask) -> String| {
            if matching.iter().any(|t| has(t)) {
                return;
            }
            if let [t] = matching {
                diffs.push(describe(t));
            } else {
                let each: Vec<String> = matching
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("task {}: {}", i + 1, describe(t)))
                    .collect();
                diffs.push(format!(
                    "none of the {} matching user tasks has it ({})",
                    matching.len(),
                    each.join("; ")
                ));
            }
        };
    if let Some(s) = e.state {
        property(&|t| t.state == s, &|t| {
            format!("its state is {}", user_task_state(t.state))
        });
    }
    if let Some(a) = &e.assignee {
        property(
            &|t| t.value.assignee.as_deref() == Some(a.as_str()),
            &|t| match &t.value.assignee {
                Some(x) => format!("its assignee is \"{x}\""),
                None => "it has no assignee".to_owned(),
            },
        );
    }
    if let Some(g) = &e.candidate_groups {
        property(&|t| *g == *t.value.candidate_groups, &|t| {
            format!(
                "its candidate groups are [{}]",
                quoted(&t.value.candidate_groups)
            )
        });
    }
    if let Some(g) = &e.candidate_users {
        property(&|t| *g == *t.value.candidate_users, &|t| {
            format!(
                "its candidate users are [{}]",
                quoted(&t.value.candidate_users)
            )
        });
    }
    if let Some(p) = e.priority {
        property(&|t| p == t.value.priority, &|t| {
            format!("its priority is {}", t.value.priority)
        });
    }
    if let Some(d) = &e.due_date {
        property(
            &|t| same_instant(Some(d), t.value.due_date.as_deref()),
            &|t| {
                format!(
                    "its due date is {}",
                    t.value.due_date.as_deref().unwrap_or("not set")
                )
            },
        );
    }
    if let Some(d) = &e.follow_up_date {
        property(
            &|t| same_instant(Some(d), t.value.follow_up_date.as_deref()),
            &|t| {
                format!(
                    "its follow-up date is {}",
                    t.value.follow_up_date.as_deref().unwrap_or("not set")
                )
            },
        );
    }
    diffs
}

fn user_task_state(s: UserTaskState) -> &'static str {
    match s {
        UserTaskState::Created => "CREATED",
        UserTaskState::Completed => "COMPLETED",
        UserTaskState::Canceled => "CANCELED",
        UserTaskState::Failed => "FAILED",
    }
}

/// Dates compared as instants when both parse, else as text.
fn same_instant(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => match (
            crate::clock::parse_instant(a),
            crate::clock::parse_instant(b),
        ) {
            (Ok(x), Ok(y)) => x == y,
            _ => a == b,
        },
        (None, None) => true,
        _ => false,
    }
}
