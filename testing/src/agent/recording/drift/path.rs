//! The path cause: the process took another path, read from the trajectories.

use super::Cause;
use crate::trace::TraceEvent;

/// The events that make the path: elements completed and terminated, incidents.
fn path_events(events: &[TraceEvent]) -> Vec<String> {
    events
        .iter()
        .filter(|e| {
            matches!(
                e,
                TraceEvent::ElementCompleted { .. }
                    | TraceEvent::ElementTerminated { .. }
                    | TraceEvent::IncidentCreated { .. }
                    | TraceEvent::IncidentResolved { .. }
            )
        })
        .map(ToString::to_string)
        .collect()
}

/// How many path events are shown after the first difference.
const PATH_SHOWN: usize = 4;

/// The process took another path after model call `after_call`, when the trajectories'
/// path events differ.
pub(super) fn path_cause(
    after_call: u32,
    recorded: &[TraceEvent],
    actual: &[TraceEvent],
) -> Option<Cause> {
    let (recorded, actual) = (path_events(recorded), path_events(actual));
    if recorded == actual {
        return None;
    }
    let common = recorded
        .iter()
        .zip(&actual)
        .take_while(|(r, a)| r == a)
        .count();
    let from = common.saturating_sub(1);
    let window = |events: &[String]| -> Vec<String> {
        events
            .iter()
            .skip(from)
            .take(PATH_SHOWN + 1)
            .cloned()
            .collect()
    };
    Some(Cause::PathChanged {
        after_call,
        recorded: window(&recorded),
        actual: window(&actual),
        skipped: from > 0,
    })
}
