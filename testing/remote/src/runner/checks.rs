//! The ASSERT_* instructions over the endpoint's searches, polled until they hold or the
//! assert timeout passes (a cluster is eventually consistent); a failure says what the last
//! poll saw. The semantics are those of the in-process runner (baton-testing's checks), read
//! off search results instead of the engine.

use baton_cpt::model::{self, Instruction};
use baton_rest::Key;
use baton_rest::process_instances::ProcessInstanceResult;
use baton_rest::reads::{
    ElementInstanceResult, IncidentResult, UserTaskSearchResult, VariableResult,
};
use serde_json::{Map, Value, json};

use super::case::Done;
use super::session::Session;
use crate::client::CallError;

/// Runs an assertion; `None` for the instructions that act.
pub(super) fn run_check(
    session: &Session<'_>,
    instruction: &Instruction,
) -> Option<Result<Done, String>> {
    use Instruction as I;
    let result = match instruction {
        I::AssertProcessInstance(a) => assert_process_instance(session, a),
        I::AssertElementInstances(a) => assert_element_instances(session, a),
        I::AssertElementInstance(a) => assert_element_instance(session, a),
        I::AssertVariables(a) => assert_variables(session, a),
        I::AssertVariable(a) => return Some(assert_variable(session, a)),
        I::AssertUserTask(a) => assert_user_task(session, a),
        I::AssertIncident(a) => assert_incident(session, a),
        I::AssertDecision(_) => {
            return Some(Ok(Done::SkipCheck(
                "decision instances are not checked remotely yet".into(),
            )));
        }
        I::AssertAiAgent(a) => return Some(super::agent::assert_ai_agent(session, a)),
        I::AssertProcessInstanceMessageSubscription(_) => {
            return Some(Ok(Done::SkipCheck(
                "message subscriptions are not checked remotely yet".into(),
            )));
        }
        _ => return None,
    };
    Some(result.map(|()| Done::Ok))
}

pub(super) fn element_matches(sel: &model::ElementSelector, item: &ElementInstanceResult) -> bool {
    match (&sel.element_id, &sel.element_name) {
        (Some(id), _) => item.element_id == *id,
        (None, Some(name)) => item.element_name.as_deref() == Some(name.as_str()),
        (None, None) => false,
    }
}

pub(super) fn describe_element(sel: &model::ElementSelector) -> String {
    match (&sel.element_id, &sel.element_name) {
        (Some(id), _) => format!("\"{id}\""),
        (None, Some(name)) => format!("the element named \"{name}\""),
        (None, None) => "no element".into(),
    }
}

fn check_selector(sel: &model::ElementSelector) -> Result<(), String> {
    if sel.element_id.is_none() && sel.element_name.is_none() {
        return Err("Element selector must have either elementId or elementName".into());
    }
    Ok(())
}

fn quoted(ids: &[&str]) -> String {
    ids.iter()
        .map(|i| format!("\"{i}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn process_id(sel: &model::ProcessSelector) -> Result<&str, String> {
    sel.process_definition_id
        .as_deref()
        .ok_or_else(|| "Missing required property: processDefinitionId".to_owned())
}

/// The element instances of a process instance (not the process itself), oldest first.
fn elements(session: &Session<'_>, instance: Key) -> Result<Vec<ElementInstanceResult>, CallError> {
    let mut items: Vec<ElementInstanceResult> = session.search(
        "element-instances",
        json!({"processInstanceKey": instance.to_string()}),
    )?;
    items.retain(|i| i.element_type != "PROCESS");
    items.sort_by_key(|i| i.element_instance_key);
    Ok(items)
}

fn assert_process_instance(
    session: &Session<'_>,
    a: &model::AssertProcessInstance,
) -> Result<(), String> {
    let id = process_id(&a.process_instance_selector)?;
    let key = session.instance(id)?;
    session.wait(|s| {
        let found: Vec<ProcessInstanceResult> =
            s.search("process-instances", json!({"processInstanceKey": key.to_string()}))?;
        let Some(p) = found.first() else {
            return Ok(Err(format!(
                "expected process instance {key} of \"{id}\" to be found\n    but the search does not return it"
            )));
        };
        let suspended = p.suspended_date.is_some();
        let word = if suspended { "suspended".to_owned() } else { p.state.to_ascii_lowercase() };
        if let Some(state) = a.state {
            use model::ProcessInstanceState as S;
            let (ok, want) = match state {
                S::Active => (p.state == "ACTIVE" && !suspended, "to be active"),
                S::Completed => (p.state == "COMPLETED", "to be completed"),
                S::Terminated => (p.state == "TERMINATED", "to be terminated"),
                S::Created => (true, "to be created"),
                S::Suspended => (suspended, "to be suspended"),
            };
            if !ok {
                let mut actual = format!("it is {word}");
                if p.state == "ACTIVE" {
                    let active: Vec<String> = elements(s, key)?
                        .into_iter()
                        .filter(|e| e.state == "ACTIVE")
                        .map(|e| e.element_id)
                        .collect();
                    if !active.is_empty() {
                        let ids: Vec<&str> = active.iter().map(String::as_str).collect();
                        actual.push_str(&format!(" (active: {})", quoted(&ids)));
                    }
                }
                return Ok(Err(format!(
                    "expected process instance \"{id}\" {want}\n    but {actual}"
                )));
            }
        }
        if let Some(yes) = a.has_active_incidents
            && p.has_incident != yes
        {
            return Ok(Err(format!(
                "expected process instance \"{id}\" {} active incidents\n    but it has {}",
                if yes { "to have" } else { "to have no" },
                if p.has_incident { "some" } else { "none" }
            )));
        }
        Ok(Ok(()))
    })
}

fn assert_element_instances(
    session: &Session<'_>,
    a: &model::AssertElementInstances,
) -> Result<(), String> {
    for sel in &a.element_selectors {
        check_selector(sel)?;
    }
    let id = process_id(&a.process_instance_selector)?;
    let key = session.instance(id)?;
    let sels = &a.element_selectors;
    let all = sels
        .iter()
        .map(describe_element)
        .collect::<Vec<_>>()
        .join(", ");
    let who = format!("process instance \"{id}\"");
    session.wait(|s| {
        let items = elements(s, key)?;
        let count = |sel: &model::ElementSelector, state: &str| {
            items
                .iter()
                .filter(|i| element_matches(sel, i) && (state.is_empty() || i.state == state))
                .count()
        };
        let active_ids: Vec<&str> = {
            let mut ids: Vec<&str> = Vec::new();
            for i in items.iter().filter(|i| i.state == "ACTIVE") {
                if !ids.contains(&i.element_id.as_str()) {
                    ids.push(&i.element_id);
                }
            }
            ids
        };
        use model::ElementInstancesState as S;
        let outcome = match a.state {
            S::Active | S::Completed | S::Terminated => {
                let (state, verb, want) = match a.state {
                    S::Active => ("ACTIVE", "is not active", "to be waiting at"),
                    S::Completed => ("COMPLETED", "was not completed", "to have completed"),
                    _ => ("TERMINATED", "was not terminated", "to have terminated"),
                };
                let missing: Vec<String> = sels
                    .iter()
                    .filter(|e| count(e, state) == 0)
                    .map(|e| format!("{} {verb}", describe_element(e)))
                    .collect();
                if missing.is_empty() {
                    Ok(())
                } else {
                    let mut actual = missing.join(", ");
                    if active_ids.is_empty() {
                        actual.push_str("; no element is active");
                    } else {
                        actual.push_str(&format!("; active: {}", quoted(&active_ids)));
                    }
                    Err(format!("expected {who} {want} {all}\n    but {actual}"))
                }
            }
            S::NotActive => {
                let hit: Vec<String> = sels
                    .iter()
                    .filter(|e| count(e, "ACTIVE") > 0)
                    .map(describe_element)
                    .collect();
                if hit.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "expected {who} not to be waiting at {all}\n    but it is waiting at {}",
                        hit.join(", ")
                    ))
                }
            }
            S::NotActivated => {
                let hit: Vec<String> = sels
                    .iter()
                    .filter(|e| count(e, "") > 0)
                    .map(describe_element)
                    .collect();
                if hit.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "expected {who} not to activate {all}\n    but it activated {}",
                        hit.join(", ")
                    ))
                }
            }
            S::ActiveExactly => {
                let missing: Vec<String> = sels
                    .iter()
                    .filter(|e| count(e, "ACTIVE") == 0)
                    .map(describe_element)
                    .collect();
                let extra: Vec<&str> = active_ids
                    .iter()
                    .copied()
                    .filter(|a| {
                        !items.iter().any(|i| {
                            i.element_id == *a
                                && i.state == "ACTIVE"
                                && sels.iter().any(|e| element_matches(e, i))
                        })
                    })
                    .collect();
                if missing.is_empty() && extra.is_empty() {
                    Ok(())
                } else {
                    let mut parts = Vec::new();
                    if !missing.is_empty() {
                        parts.push(format!("not active: {}", missing.join(", ")));
                    }
                    if !extra.is_empty() {
                        parts.push(format!("also active: {}", quoted(&extra)));
                    }
                    Err(format!(
                        "expected {who} to have exactly these elements active: {all}\n    but {}",
                        parts.join("; ")
                    ))
                }
            }
            S::CompletedInOrder => completed_in_order(&items, sels, &who, &all),
        };
        Ok(outcome)
    })
}

/// The selected elements completed in the order given (others may complete between).
fn completed_in_order(
    items: &[ElementInstanceResult],
    sels: &[model::ElementSelector],
    who: &str,
    all: &str,
) -> Result<(), String> {
    let mut completed: Vec<&ElementInstanceResult> =
        items.iter().filter(|i| i.state == "COMPLETED").collect();
    // Completion order: the end time, then the key (which follows activation).
    completed.sort_by(|a, b| {
        (a.end_date.as_deref(), a.element_instance_key)
            .cmp(&(b.end_date.as_deref(), b.element_instance_key))
    });
    let mut pos = 0usize;
    for e in sels {
        match completed[pos..].iter().position(|i| element_matches(e, i)) {
            Some(p) => pos += p + 1,
            None => {
                let relevant: Vec<&str> = completed
                    .iter()
                    .filter(|i| sels.iter().any(|s| element_matches(s, i)))
                    .map(|i| i.element_id.as_str())
                    .collect();
                return Err(format!(
                    "expected {who} to have completed in this order: {all}\n    but these elements completed in this order: {}",
                    quoted(&relevant)
                ));
            }
        }
    }
    Ok(())
}

fn assert_element_instance(
    session: &Session<'_>,
    a: &model::AssertElementInstance,
) -> Result<(), String> {
    check_selector(&a.element_selector)?;
    let id = process_id(&a.process_instance_selector)?;
    let key = session.instance(id)?;
    let amount = a.amount.unwrap_or(1) as usize;
    let (state, word) = match a.state {
        model::ElementInstanceState::Active => ("ACTIVE", "active"),
        model::ElementInstanceState::Completed => ("COMPLETED", "completed"),
        model::ElementInstanceState::Terminated => ("TERMINATED", "terminated"),
    };
    let sel = &a.element_selector;
    session.wait(|s| {
        let n = elements(s, key)?
            .iter()
            .filter(|i| element_matches(sel, i) && i.state == state)
            .count();
        Ok(if n == amount {
            Ok(())
        } else {
            Err(format!(
                "expected process instance \"{id}\" to have {amount} {word} instance(s) of {}\n    but it has {n}",
                describe_element(sel)
            ))
        })
    })
}

/// The variables of a scope by name, their values read from JSON text (a truncated value is
/// fetched whole).
fn variables(
    session: &Session<'_>,
    instance: Key,
    scope: Key,
) -> Result<Map<String, Value>, CallError> {
    let mut items: Vec<VariableResult> = session.search(
        "variables",
        json!({"processInstanceKey": instance.to_string(), "scopeKey": scope.to_string()}),
    )?;
    items.sort_by_key(|v| v.variable_key);
    let mut out = Map::new();
    for v in items {
        let text = if v.is_truncated {
            let full: VariableResult = session.client.call(
                "GET",
                &format!("/v2/variables/{}", v.variable_key),
                None::<&()>,
            )?;
            full.value
        } else {
            v.value
        };
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        out.insert(v.name, value);
    }
    Ok(out)
}

/// The scope key an element selector names (the first instance of the element), or the
/// process instance; and how it is named in messages.
fn scope_of(
    session: &Session<'_>,
    instance: Key,
    id: &str,
    sel: Option<&model::ElementSelector>,
) -> Result<Result<(Key, String), String>, CallError> {
    let Some(sel) = sel else {
        return Ok(Ok((instance, format!("process instance \"{id}\""))));
    };
    let items = elements(session, instance)?;
    Ok(match items.iter().find(|i| element_matches(sel, i)) {
        Some(i) => Ok((
            i.element_instance_key,
            format!("local variables of {}", describe_element(sel)),
        )),
        None => Err(format!(
            "expected local variables of {}\n    but the element was not activated",
            describe_element(sel)
        )),
    })
}

/// JSON equality with numbers compared by value (`1` equals `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn assert_variables(session: &Session<'_>, a: &model::AssertVariables) -> Result<(), String> {
    if a.inner_instance_selector.is_some() {
        return Err("innerInstanceSelector is not checked remotely yet".into());
    }
    if let Some(sel) = &a.element_selector {
        check_selector(sel)?;
    }
    let id = process_id(&a.process_instance_selector)?;
    let key = session.instance(id)?;
    session.wait(|s| {
        let (scope, what) = match scope_of(s, key, id, a.element_selector.as_ref())? {
            Ok(found) => found,
            Err(why) => return Ok(Err(why)),
        };
        let vars = variables(s, key, scope)?;
        let names: Vec<&String> = a.variable_names.iter().flatten().collect();
        let missing: Vec<&str> = names
            .iter()
            .filter(|n| !vars.contains_key(n.as_str()))
            .map(|n| n.as_str())
            .collect();
        if !missing.is_empty() {
            let present: Vec<&str> = vars.keys().map(String::as_str).collect();
            return Ok(Err(format!(
                "expected {what} to have the variables {}\n    but {} missing (variables: {})",
                quoted(&names.iter().map(|n| n.as_str()).collect::<Vec<_>>()),
                quoted(&missing),
                if present.is_empty() { "none".into() } else { quoted(&present) }
            )));
        }
        for (name, expected) in a.variables.iter().flatten() {
            match vars.get(name) {
                Some(actual) if same(actual, expected) => {}
                Some(actual) => {
                    return Ok(Err(format!(
                        "expected {what} to have the variable \"{name}\" = {expected}\n    but it is {actual}"
                    )));
                }
                None => {
                    return Ok(Err(format!(
                        "expected {what} to have the variable \"{name}\" = {expected}\n    but there is no such variable"
                    )));
                }
            }
        }
        Ok(Ok(()))
    })
}

fn assert_variable(session: &Session<'_>, a: &model::AssertVariable) -> Result<Done, String> {
    let check = model::AssertVariables {
        process_instance_selector: a.process_instance_selector.clone(),
        element_selector: a.element_selector.clone(),
        inner_instance_selector: a.inner_instance_selector.clone(),
        variable_names: Some(vec![a.variable_name.clone()]),
        variables: None,
    };
    assert_variables(session, &check)?;
    if let Some(expression) = &a.satisfies_expression {
        satisfies(session, a, expression)?;
    }
    let mut skipped = Vec::new();
    if a.satisfies_judge.is_some() {
        skipped.push("satisfiesJudge (an LLM judge)");
    }
    if a.similar_to.is_some() {
        skipped.push("similarTo (embedding similarity)");
    }
    Ok(if skipped.is_empty() {
        Done::Ok
    } else {
        Done::SkipCheck(format!(
            "{} of \"{}\" is not checked",
            skipped.join(" and "),
            a.variable_name
        ))
    })
}

/// The oldest user task the selector selects (`open`: only created ones), polled for.
pub(super) fn find_user_task(
    session: &Session<'_>,
    sel: &model::UserTaskSelector,
    open: bool,
) -> Result<UserTaskSearchResult, String> {
    let tasks = user_tasks(session, sel, open)?;
    Ok(tasks
        .into_iter()
        .next()
        .expect("user_tasks returns at least one"))
}

fn user_tasks(
    session: &Session<'_>,
    sel: &model::UserTaskSelector,
    open: bool,
) -> Result<Vec<UserTaskSearchResult>, String> {
    if sel.element_id.is_none() && sel.task_name.is_none() && sel.process_definition_id.is_none() {
        return Err("Missing required property: at least one of elementId, taskName, or processDefinitionId must be set".into());
    }
    let mut filter = Map::new();
    if let Some(e) = &sel.element_id {
        filter.insert("elementId".into(), json!(e));
    }
    if let Some(n) = &sel.task_name {
        filter.insert("name".into(), json!(n));
    }
    if let Some(p) = &sel.process_definition_id {
        filter.insert("processDefinitionId".into(), json!(p));
    }
    if open {
        filter.insert("state".into(), json!("CREATED"));
    }
    session.wait(|s| {
        let mut found: Vec<UserTaskSearchResult> =
            s.search("user-tasks", Value::Object(filter.clone()))?;
        let ours = s.case_instances()?;
        found.retain(|t| super::session::is_ours(&ours, t.process_instance_key));
        found.sort_by_key(|t| t.user_task_key);
        if !found.is_empty() {
            return Ok(Ok(found));
        }
        let mut all: Vec<UserTaskSearchResult> = s.search(
            "user-tasks",
            if open {
                json!({"state": "CREATED"})
            } else {
                json!({})
            },
        )?;
        all.retain(|t| super::session::is_ours(&ours, t.process_instance_key));
        let ids: Vec<&str> = all.iter().map(|t| t.element_id.as_str()).collect();
        Ok(Err(format!(
            "expected a user task {}\n    but {}",
            Value::Object(filter.clone()),
            if ids.is_empty() {
                "there is no user task".to_owned()
            } else {
                format!("there is no such user task; user tasks: {}", quoted(&ids))
            }
        )))
    })
}

fn assert_user_task(session: &Session<'_>, a: &model::AssertUserTask) -> Result<(), String> {
    let sel = &a.user_task_selector;
    user_tasks(session, sel, false)?;
    session.wait(|s| {
        let tasks = match user_tasks(s, sel, false) {
            Ok(t) => t,
            Err(e) => return Ok(Err(e)),
        };
        let mut last = String::new();
        for t in &tasks {
            match user_task_differs(a, t) {
                None => return Ok(Ok(())),
                Some(d) => {
                    if last.is_empty() {
                        last = d;
                    }
                }
            }
        }
        Ok(Err(last))
    })
}

/// A text field as messages show it: quoted, or `none`.
fn text(value: &Option<String>) -> String {
    value
        .as_ref()
        .map_or_else(|| "none".to_owned(), |v| format!("\"{v}\""))
}

fn user_task_differs(a: &model::AssertUserTask, t: &UserTaskSearchResult) -> Option<String> {
    let want = |field: &str, expected: String, actual: String| {
        Some(format!(
            "expected the user task \"{}\" to have {field} {expected}\n    but it has {actual}",
            t.element_id
        ))
    };
    if let Some(state) = a.state {
        let expected = match state {
            model::UserTaskState::Created => "CREATED",
            model::UserTaskState::Completed => "COMPLETED",
            model::UserTaskState::Canceled => "CANCELED",
            model::UserTaskState::Failed => "FAILED",
        };
        if t.state != expected {
            return want("state", expected.into(), t.state.clone());
        }
    }
    if let Some(x) = &a.assignee
        && t.assignee.as_ref() != Some(x)
    {
        return want("assignee", format!("\"{x}\""), text(&t.assignee));
    }
    if let Some(g) = a.candidate_groups.as_ref().filter(|g| !g.is_empty())
        && &t.candidate_groups != g
    {
        return want(
            "candidate groups",
            format!("{g:?}"),
            format!("{:?}", t.candidate_groups),
        );
    }
    if let Some(p) = a.priority
        && t.priority != Some(p)
    {
        return want("priority", p.to_string(), format!("{:?}", t.priority));
    }
    if let Some(e) = &a.element_id
        && &t.element_id != e
    {
        return want(
            "element id",
            format!("\"{e}\""),
            format!("\"{}\"", t.element_id),
        );
    }
    if let Some(n) = &a.name
        && t.name.as_ref() != Some(n)
    {
        return want("name", format!("\"{n}\""), text(&t.name));
    }
    for (field, expected, actual) in [
        ("due date", &a.due_date, &t.due_date),
        ("follow-up date", &a.follow_up_date, &t.follow_up_date),
    ] {
        if let Some(x) = expected {
            let same_instant = actual.as_deref().is_some_and(|y| {
                y == x
                    || baton_testing::clock::parse_instant(y).ok()
                        == baton_testing::clock::parse_instant(x).ok()
            });
            if !same_instant {
                return want(field, format!("\"{x}\""), text(actual));
            }
        }
    }
    None
}

fn assert_incident(session: &Session<'_>, a: &model::AssertIncident) -> Result<(), String> {
    let sel = &a.incident_selector;
    let mut filter = Map::new();
    if let Some(e) = &sel.element_id {
        filter.insert("elementId".into(), json!(e));
    }
    if let Some(p) = &sel.process_definition_id {
        filter.insert("processDefinitionId".into(), json!(p));
    }
    session.wait(|s| {
        let mut items: Vec<IncidentResult> = s.search("incidents", Value::Object(filter.clone()))?;
        let ours = s.case_instances()?;
        items.retain(|i| super::session::is_ours(&ours, i.process_instance_key));
        items.sort_by_key(|i| i.incident_key);
        let Some(i) = items.first() else {
            return Ok(Err(format!(
                "expected an incident {}\n    but there is none",
                Value::Object(filter.clone())
            )));
        };
        if let Some(state) = a.state {
            let expected = match state {
                model::IncidentState::Active => "ACTIVE",
                model::IncidentState::Resolved => "RESOLVED",
            };
            if i.state != expected {
                return Ok(Err(format!(
                    "expected the incident at \"{}\" to be {expected}\n    but it is {}",
                    i.element_id, i.state
                )));
            }
        }
        if let Some(t) = a.error_type
            && i.error_type != t.as_str()
        {
            return Ok(Err(format!(
                "expected the incident at \"{}\" to have the error type {}\n    but it has {}",
                i.element_id,
                t.as_str(),
                i.error_type
            )));
        }
        if let Some(m) = &a.error_message
            && &i.error_message != m
        {
            return Ok(Err(format!(
                "expected the incident at \"{}\" to have the message \"{m}\"\n    but it has \"{}\"",
                i.element_id, i.error_message
            )));
        }
        if let Some(e) = &a.element_id
            && &i.element_id != e
        {
            return Ok(Err(format!(
                "expected the incident to be at \"{e}\"\n    but it is at \"{}\"",
                i.element_id
            )));
        }
        Ok(Ok(()))
    })
}

/// satisfiesExpression: the variable's value, named by its name, makes the FEEL expression
/// true (evaluated at the endpoint's time where it tells it).
fn satisfies(
    session: &Session<'_>,
    a: &model::AssertVariable,
    expression: &str,
) -> Result<(), String> {
    let id = process_id(&a.process_instance_selector)?;
    let key = session.instance(id)?;
    let name = &a.variable_name;
    let want = format!("expected the variable \"{name}\" to satisfy the expression {expression}");
    let parsed = baton_feel::Expression::parse(expression)
        .map_err(|e| format!("{want}\n    but the expression is not valid FEEL: {e}"))?;
    let now = session
        .client
        .call::<Value>("GET", "/actuator/clock", None::<&()>)
        .ok()
        .and_then(|c| c["epochMilli"].as_i64())
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .unwrap_or_else(jiff::Timestamp::now)
        .to_zoned_datetime(jiff::tz::TimeZone::UTC);
    session.wait(|s| {
        let (scope, _) = match scope_of(s, key, id, a.element_selector.as_ref())? {
            Ok(found) => found,
            Err(why) => return Ok(Err(why)),
        };
        let vars = variables(s, key, scope)?;
        let Some(value) = vars.get(name) else {
            return Ok(Err(format!("{want}\n    but \"{name}\" does not exist")));
        };
        let mut context = Map::new();
        context.insert(name.clone(), value.clone());
        let evaluation = parsed.evaluate(&context, &baton_feel::Env::at(now.clone()));
        Ok(match evaluation.result {
            Ok(baton_feel::Value::Boolean(true)) => Ok(()),
            Ok(other) => Err(format!(
                "{want}\n    but it is {value} and the expression gives {other}"
            )),
            Err(failure) => Err(format!(
                "{want}\n    but it is {value} and the expression fails: {failure}"
            )),
        })
    })
}
