//! The virtual clock of a process test: every move of it, and the answers on their way that
//! fall due during one.

use std::cell::RefCell;

use baton_engine::runtime::LATEST_CLOCK_MS;

use super::{Inner, ProcessTest, settle_step};
use crate::clock::IntoDuration;

/// Moves the clock to `target` as Camunda Process Test's `increaseTime` pins Zeebe's clock:
/// everything due at or before it fires at the new time (see [`move_engine_clock`]). Answers on
/// their way (a mocked worker's latency) split the move at their due times: the engine's clock
/// moves to each, then the answer arrives. Every clock move of a test goes through here.
pub(crate) fn move_clock(cell: &RefCell<Inner>, target: i64, cause: crate::trace::ClockCause) {
    if !(0..=LATEST_CLOCK_MS).contains(&target) {
        let when = match jiff::Timestamp::from_millisecond(target) {
            Ok(t) => t.to_string(),
            Err(_) => format!("{target} ms after 1970"),
        };
        let message = format!(
            "moving the clock: {when} is outside the times the engine clock can show (1970-01-01T00:00:00Z to {})",
            crate::clock::format_instant(LATEST_CLOCK_MS)
        );
        cell.borrow_mut().add_error(None, message);
        return;
    }
    loop {
        let stop = match cell.borrow().workers.next_due() {
            Some(due) if due <= target => due,
            _ => target,
        };
        move_engine_clock(cell, stop, cause);
        loop {
            let now = cell.borrow().engine.now();
            let Some(pending) = cell.borrow_mut().workers.pop_due(now) else {
                break;
            };
            crate::workers::deliver_late(cell, pending);
        }
        let now = cell.borrow().engine.now();
        let more = cell
            .borrow()
            .workers
            .next_due()
            .is_some_and(|d| d <= target);
        if (now >= target || stop >= target) && !more {
            return;
        }
        if now < stop {
            // The engine could not reach `stop` (an error was recorded).
            return;
        }
    }
}

/// Moves the engine's clock to `target` in one step, as Zeebe's pinned clock: its due-date
/// checkers fire everything due at or before the new time (timers in due-date order, job
/// timeouts and backoffs, message expiries), a cycle that fell behind fires once and goes on one
/// interval after it; then the mocks answer, at the new time (a timer their answers start counts
/// from it).
fn move_engine_clock(cell: &RefCell<Inner>, target: i64, cause: crate::trace::ClockCause) {
    {
        let mut inner = cell.borrow_mut();
        if inner.trace.on && target > inner.engine.now() {
            inner.trace_push(
                0,
                crate::trace::TraceEvent::ClockMoved { to: target, cause },
            );
        }
    }
    let result = cell.borrow_mut().engine.set_clock(target);
    if let Err(r) = result {
        let mut inner = cell.borrow_mut();
        inner.sync();
        inner.add_error(None, format!("moving the clock: {}", r.message));
        return;
    }
    settle_step(cell, || {
        format!(
            "the clock moved to {}",
            crate::clock::format_instant(target)
        )
    });
}

impl ProcessTest {
    /// Moves the virtual clock forward (`"PT5M"`, or a `std::time::Duration`); what falls due
    /// fires, and the mocks answer.
    #[track_caller]
    pub fn advance_time(&self, duration: impl IntoDuration) {
        let ms = match duration.into_millis() {
            Ok(ms) => ms,
            Err(m) => panic!("{m}"),
        };
        let target = self.inner.borrow().engine.now().saturating_add(ms);
        self.clock_to(target);
    }

    /// Sets the virtual clock to an ISO-8601 instant.
    #[track_caller]
    pub fn set_time(&self, instant: &str) {
        match crate::clock::parse_instant(instant) {
            Ok(ms) => self.clock_to(ms),
            Err(m) => panic!("{m}"),
        }
    }

    pub(super) fn clock_to(&self, target: i64) {
        move_clock(&self.inner, target, crate::trace::ClockCause::Test);
        crate::workers::skip_time(&self.inner);
    }

    /// The virtual clock as an ISO-8601 instant.
    pub fn now(&self) -> String {
        crate::clock::format_instant(self.inner.borrow().engine.now())
    }
}
