//! "Explain the run": the one renderer every assertion failure and action error prints. It shows
//! the instance's state, where the tokens wait (with open jobs and user tasks, and into called
//! processes), the incidents, the root variables (values truncated), the path (completed
//! elements in order) and the run's errors. Deterministic text: element ids, never keys.

use std::collections::{HashMap, HashSet};

use baton_engine::runtime::{
    BpmnElementType, ElementInstanceView, JobView, Key, UserTask, UserTaskState,
};

use crate::history::ElementEventKind;
use crate::subject::Subject;
use crate::variables::short;

/// Longest value shown per variable.
const VALUE_WIDTH: usize = 80;
/// Most variables shown.
const MAX_VARIABLES: usize = 20;
/// Most path entries shown (the latest ones).
const MAX_PATH: usize = 40;
const LABEL_WIDTH: usize = 12;

/// The run of `s.instance` explained. See the module documentation.
pub fn explain(s: &Subject<'_>) -> String {
    let mut out = String::new();
    let state = s.state();
    let state_text = match state {
        None => "not created".to_owned(),
        Some(st) if st.is_active() && s.suspended() => "suspended".to_owned(),
        Some(st) if st.is_active() => "active".to_owned(),
        Some(st) => st.as_str().to_lowercase(),
    };
    out.push_str(&format!("process \"{}\" is {state_text}", s.process_id()));
    if let Some(parent) = s.log().and_then(|l| l.parent)
        && let Some(p) = s.engine.process_instance(parent)
    {
        out.push_str(&format!(" (called by process \"{}\")", p.bpmn_process_id));
    }
    out.push('\n');
    if state.is_some_and(|st| st.is_active()) {
        let mut lines = Vec::new();
        waiting_points(s, s.instance, "", &mut lines);
        if lines.is_empty() {
            lines.push("nothing".to_owned());
        }
        section(&mut out, "waiting at", &lines);
    }
    let events = open_events(s);
    if !events.is_empty() {
        section(&mut out, "events", &events);
    }
    let family = s.history.descendants(s.instance);
    let incidents: Vec<String> = s
        .engine
        .incidents()
        .into_iter()
        .filter(|i| {
            i.process_instance_key == s.instance || family.contains(&i.process_instance_key)
        })
        .map(|i| {
            let place = if i.process_instance_key == s.instance {
                String::new()
            } else {
                format!(" in process \"{}\"", i.bpmn_process_id)
            };
            format!(
                "{} at \"{}\"{place}: {}",
                i.error_type, i.element_id, i.error_message
            )
        })
        .collect();
    if !incidents.is_empty() {
        section(&mut out, "incidents", &incidents);
    }
    let vars: Vec<String> = match s.history.scope_variables(s.instance) {
        Some(v) if !v.is_empty() => {
            let mut lines: Vec<String> = v
                .iter()
                .take(MAX_VARIABLES)
                .map(|(k, v)| {
                    let line = format!("{k} = {}", short(v, VALUE_WIDTH));
                    match shadowed_in(s, k) {
                        Some(elements) => format!(
                            "{line}  (the process scope's; local in {})",
                            elements.join(", ")
                        ),
                        None => line,
                    }
                })
                .collect();
            if v.len() > MAX_VARIABLES {
                lines.push(format!("... and {} more", v.len() - MAX_VARIABLES));
            }
            lines
        }
        _ => vec!["none".to_owned()],
    };
    section(&mut out, "variables", &vars);
    let path: Vec<String> = s
        .log()
        .map(|l| {
            l.events
                .iter()
                .filter(|e| e.kind != ElementEventKind::Activated)
                .map(|e| match e.kind {
                    ElementEventKind::Terminated => format!("{} (terminated)", e.element_id),
                    _ => e.element_id.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    let path_text = if path.is_empty() {
        "nothing completed".to_owned()
    } else if path.len() > MAX_PATH {
        format!(
            "... ({} earlier), {}",
            path.len() - MAX_PATH,
            path[path.len() - MAX_PATH..].join(", ")
        )
    } else {
        path.join(", ")
    };
    section(&mut out, "path", &[path_text]);
    if !s.errors.is_empty() {
        let errors: Vec<String> = s.errors.iter().map(|e| e.to_string()).collect();
        section(&mut out, "errors", &errors);
    }
    out.truncate(out.trim_end().len());
    out
}

/// The most lines a section shows: a run with thousands of waiting points (a cycle that fired
/// all along a long move of the clock) shows its first ones and how many more there are.
const SECTION_LINES: usize = 20;

fn section(out: &mut String, label: &str, lines: &[String]) {
    let pad = " ".repeat(2 + LABEL_WIDTH);
    let more = lines.len().saturating_sub(SECTION_LINES);
    let more = (more > 0).then(|| format!("… and {more} more"));
    for (i, line) in lines
        .iter()
        .take(SECTION_LINES)
        .chain(more.as_ref())
        .enumerate()
    {
        if i == 0 {
            out.push_str(&format!("  {label:<LABEL_WIDTH$}"));
        } else {
            out.push_str(&pad);
        }
        // Continuation lines of a multi-line entry stay in the column.
        out.push_str(&line.replace('\n', &format!("\n{pad}")));
        out.push('\n');
    }
}

/// The elements of the run (quoted, first three) whose own scope holds a variable of this
/// name: the process scope's value is not what they saw (an ad-hoc sub-process's
/// `toolCallResults` is local to it).
fn shadowed_in(s: &Subject<'_>, name: &str) -> Option<Vec<String>> {
    let log = s.log()?;
    let mut elements: Vec<String> = Vec::new();
    for e in log
        .events
        .iter()
        .filter(|e| e.kind == ElementEventKind::Activated)
    {
        let holds = s
            .history
            .scope_variables(e.key)
            .is_some_and(|v| v.contains_key(name));
        let quoted = format!("\"{}\"", e.element_id);
        if holds && !elements.contains(&quoted) {
            elements.push(quoted);
        }
    }
    elements.truncate(3);
    (!elements.is_empty()).then_some(elements)
}

/// The element instances of `instance` where tokens wait: those with no live child, and any
/// with an open job or incident; into called processes.
fn waiting_points(s: &Subject<'_>, instance: Key, prefix: &str, lines: &mut Vec<String>) {
    let live: Vec<ElementInstanceView> = s
        .engine
        .element_instances(instance)
        .into_iter()
        .filter(|i| i.key != instance && i.state.is_active())
        .collect();
    // Looked up by element instance (a run may wait at thousands of places).
    let with_child: HashSet<Key> = live.iter().filter_map(|c| c.flow_scope_key).collect();
    let jobs = s.engine.jobs();
    let mut job_of: HashMap<Key, &JobView> = HashMap::new();
    for j in jobs.iter().rev() {
        job_of.insert(j.element_instance_key, j);
    }
    let mut task_of: HashMap<Key, &UserTask> = HashMap::new();
    for t in s.engine.user_tasks().into_iter().rev() {
        if t.state == UserTaskState::Created {
            task_of.insert(t.value.element_instance_key, t);
        }
    }
    for i in &live {
        let has_child = with_child.contains(&i.key);
        let job = job_of.get(&i.key).copied();
        if has_child && job.is_none() && !i.has_incident {
            continue;
        }
        if i.element_type == BpmnElementType::CallActivity
            && let Some((child, log)) = s
                .history
                .instances
                .iter()
                .find(|(_, l)| l.parent_element == Some(i.key))
            && s.engine
                .process_instance(*child)
                .is_some_and(|p| p.state.is_active())
        {
            let p = format!(
                "{prefix}{} → process \"{}\": ",
                i.element_id, log.process_id
            );
            let before = lines.len();
            waiting_points(s, *child, &p, lines);
            if lines.len() > before {
                continue;
            }
        }
        let mut details = vec![kind_words(i.element_type)];
        if let Some(j) = job {
            let mut d = format!(
                "job \"{}\", {} retr{}",
                j.job_type,
                j.retries,
                if j.retries == 1 { "y" } else { "ies" }
            );
            if j.state == baton_engine::runtime::JobState::FailedBackoff {
                d.push_str(", in retry backoff");
            }
            details.push(d);
        }
        if let Some(t) = task_of.get(&i.key) {
            match &t.value.assignee {
                Some(a) => details.push(format!("assignee \"{a}\"")),
                None => details.push("unassigned".to_owned()),
            }
        }
        if i.has_incident {
            details.push("incident".to_owned());
        }
        lines.push(format!("{prefix}{} ({})", i.element_id, details.join("; ")));
    }
}

/// `SERVICE_TASK` → `service task`.
pub(crate) fn kind_words(t: BpmnElementType) -> String {
    match t {
        BpmnElementType::SubProcess => "sub-process".to_owned(),
        BpmnElementType::EventSubProcess => "event sub-process".to_owned(),
        BpmnElementType::AdHocSubProcess => "ad-hoc sub-process".to_owned(),
        BpmnElementType::AdHocSubProcessInnerInstance => "ad-hoc inner instance".to_owned(),
        BpmnElementType::MultiInstanceBody => "multi-instance body".to_owned(),
        other => other.as_str().to_lowercase().replace('_', " "),
    }
}

/// The messages, timers and signals the instance waits for.
fn open_events(s: &Subject<'_>) -> Vec<String> {
    let mut lines: Vec<String> = s
        .engine
        .message_subscriptions(s.instance)
        .iter()
        .map(|m| {
            format!(
                "message \"{}\" (key \"{}\") at \"{}\"",
                m.message_name, m.correlation_key, m.element_id
            )
        })
        .collect();
    let mut timers: Vec<_> = s
        .engine
        .timers()
        .into_iter()
        .filter(|t| t.process_instance_key == Some(s.instance))
        .collect();
    timers.sort_by_key(|t| (t.due, t.key));
    for t in timers {
        let p = crate::history::process_at(s.engine, t.proc);
        lines.push(format!(
            "timer at \"{}\" due {}",
            p.element_id(t.target),
            crate::clock::format_instant(t.due)
        ));
    }
    for sig in s.engine.signal_subscriptions() {
        if sig.process_instance_key == Some(s.instance) {
            lines.push(format!(
                "signal \"{}\" at \"{}\"",
                sig.signal_name, sig.element_id
            ));
        }
    }
    lines
}
