//! Time skipping: the clock jumps to the next due time while only time can make a run go on.

use baton_engine::runtime::Key;

use crate::process_test::Inner;

/// The most jumps time skipping makes after one action.
const SKIP_LIMIT: usize = 10_000;

/// With time skipping on: while the run can only go on when something falls due (a timer, a
/// job timeout, a retry backoff, an answer on its way), the clock jumps to it.
pub(crate) fn skip_time(cell: &std::cell::RefCell<Inner>) {
    if !cell.borrow().time_skipping {
        return;
    }
    for _ in 0..SKIP_LIMIT {
        let next = {
            let inner = cell.borrow();
            if !inner.waits_only_for_time() {
                return;
            }
            let now = inner.engine.now();
            match [inner.engine.next_due_time(), inner.workers.next_due()]
                .into_iter()
                .flatten()
                .min()
            {
                Some(due) if due > now => due,
                _ => return,
            }
        };
        cell.borrow_mut().trace_on();
        crate::process_test::move_clock(cell, next, crate::trace::ClockCause::TimeSkipping);
    }
    let mut inner = cell.borrow_mut();
    inner.sync();
    inner.add_error(
        None,
        format!(
            "time skipping stopped after {SKIP_LIMIT} jumps of the clock in one action: something keeps falling due (a timer cycle?) while nothing waits for the test"
        ),
    );
}

impl Inner {
    /// Whether a root run is active and nothing waits for the test: no user task, no job nobody
    /// answers, no incident, no token at a message or signal catch event, receive task or
    /// event-based gateway. A subscription that holds no token (a boundary event's, an event
    /// sub-process's start, a signal start event of a deployed process) only might interrupt
    /// what waits for time, and lets time pass: else a process with a message event
    /// sub-process would never skip.
    fn waits_only_for_time(&self) -> bool {
        let active = self.roots.iter().any(|r| {
            self.engine
                .process_instance(*r)
                .is_some_and(|p| p.state.is_active())
        });
        active
            && !self
                .engine
                .user_tasks()
                .iter()
                .any(|t| t.state == baton_engine::runtime::UserTaskState::Created)
            && self.engine.activatable_jobs(None).is_empty()
            && self.engine.incidents().is_empty()
            && !self
                .engine
                .all_message_subscriptions()
                .iter()
                .any(|m| self.holds_a_token(Some(m.element_instance_key), &m.element_id))
            && !self
                .engine
                .signal_subscriptions()
                .iter()
                .any(|s| self.holds_a_token(s.element_instance_key, &s.element_id))
    }

    /// Whether the subscription of `catch_element` opened by `element_instance` holds a token:
    /// the catch event or receive task itself subscribed, or an event-based gateway for the
    /// events after it (Zeebe opens a boundary event's subscription on the activity, an event
    /// sub-process start's on its scope, and a start event's on no instance).
    fn holds_a_token(&self, element_instance: Option<Key>, catch_element: &str) -> bool {
        element_instance
            .and_then(|key| self.engine.element_instance(key))
            .is_some_and(|instance| {
                instance.element_id == catch_element
                    || instance.element_type
                        == baton_engine::runtime::BpmnElementType::EventBasedGateway
            })
    }
}

impl crate::ProcessTest {
    /// Time skipping, as in Temporal's test environment: after every action, while a run is
    /// active and nothing waits for the test (no user task, no job nobody answers, no incident,
    /// no token at a message or signal catch event, receive task or event-based gateway), the
    /// clock jumps to the next due time: a timer, a job timeout, a retry backoff, an answer on
    /// its way. A boundary event's or an event sub-process's subscription does not stop it. Off
    /// by default (CPT's behaviour).
    pub fn time_skipping(self, on: bool) -> Self {
        self.set_time_skipping(on);
        self
    }

    /// Turns time skipping on or off in the middle of a test.
    pub fn set_time_skipping(&self, on: bool) {
        self.inner.borrow_mut().time_skipping = on;
        if on {
            skip_time(&self.inner);
        }
    }
}
