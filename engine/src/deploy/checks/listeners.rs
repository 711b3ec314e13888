//! Execution and task listeners (Zeebe's `ExecutionListenersValidator`,
//! `TaskListenersValidator`, `TaskListenerValidator`).

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn listeners(&mut self, id: &str, at: u32, zeebe: &Zeebe) {
        for listener in &zeebe.execution_listeners {
            let lat = listener.span.start;
            match listener.event_type.as_str() {
                "start" | "end" => {}
                "" => self.error(lat, Rule::MissingAttribute, id, "Attribute 'eventType' must be present and not empty"),
                other => self.error(
                    lat,
                    Rule::ExecutionListener,
                    id,
                    format!("Execution listener event type '{other}' is not supported. Supported event types are: start, end"),
                ),
            }
            self.job_type(
                id,
                lat,
                listener.job_type.as_ref(),
                listener.retries.as_ref(),
            );
        }
        let mut groups: Vec<(&str, &str, usize, u32)> = Vec::new();
        for listener in &zeebe.execution_listeners {
            let job_type = listener
                .job_type
                .as_ref()
                .map_or("null", |e| e.text.as_str());
            match groups
                .iter_mut()
                .find(|(event, ty, _, _)| *event == listener.event_type && *ty == job_type)
            {
                Some((_, _, count, _)) => *count += 1,
                None => groups.push((&listener.event_type, job_type, 1, listener.span.start)),
            }
        }
        for (event, job_type, count, lat) in groups {
            if count > 1 {
                self.error(
                    lat,
                    Rule::ExecutionListener,
                    id,
                    format!("Found '{count}' duplicates based on eventType[{event}] and type[{job_type}], these combinations should be unique."),
                );
            }
        }
        const TASK_EVENTS: &[&str] = &[
            "creating",
            "assigning",
            "updating",
            "completing",
            "canceling",
        ];
        const DEPRECATED: &[&str] = &["assignment", "update", "complete"];
        for listener in &zeebe.task_listeners {
            let lat = listener.span.start;
            let event = listener.event_type.as_str();
            if event.is_empty() {
                self.error(
                    lat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'eventType' must be present and not empty",
                );
            } else if !TASK_EVENTS.contains(&event) && !DEPRECATED.contains(&event) {
                self.error(
                    lat,
                    Rule::TaskListener,
                    id,
                    format!(
                        "Task listener event type '{event}' is not supported. Currently, only '{}' event types and '{}' deprecated event types are supported.",
                        TASK_EVENTS.join("', '"),
                        DEPRECATED.join("', '")
                    ),
                );
            }
            self.job_type(
                id,
                lat,
                listener.job_type.as_ref(),
                listener.retries.as_ref(),
            );
        }
        let _ = at;
    }
}

/// Whether an element has an execution listener of `event_type` (some elements refuse one).
pub(super) fn has_execution_listener(element: &Element, event_type: &str) -> bool {
    element
        .zeebe
        .execution_listeners
        .iter()
        .any(|listener| listener.event_type == event_type)
}
