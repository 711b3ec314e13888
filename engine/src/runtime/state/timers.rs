//! Scheduled timers, by key and by due date.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::cron::CronExpression;
use crate::runtime::records::{Key, ProcIdx};

/// How a cycle repeats.
#[derive(Debug, Clone)]
pub(crate) enum Repeat {
    /// An ISO repeating interval: the next due date is the previous one plus the interval (or
    /// the firing time plus the interval, when that has passed too).
    Interval(jiff::Span),
    /// A cron expression: the next match after the firing time.
    Cron(Arc<CronExpression>),
}

/// A scheduled timer.
#[derive(Debug, Clone)]
pub struct Timer {
    pub key: Key,
    pub proc: ProcIdx,
    /// `None` for a timer start event.
    pub process_instance_key: Option<Key>,
    /// The element instance the timer belongs to (the catch event, the activity of a boundary
    /// event, the scope of an event sub-process); `None` for a timer start event.
    pub element_instance_key: Option<Key>,
    /// The timer event (catch, boundary or start event).
    pub target: ElementIdx,
    pub due: i64,
    /// Firings left including this one (-1: unbounded).
    pub repetitions: i32,
    /// How a cycle goes on after this firing.
    pub(crate) repeat: Option<Repeat>,
}

/// Timers by key, with an index by due date.
#[derive(Debug, Clone, Default)]
pub(crate) struct TimerState {
    pub(crate) by_key: BTreeMap<Key, Timer>,
    pub(crate) by_due: BTreeSet<(i64, Key)>,
}

impl TimerState {
    pub(crate) fn contains_key(&self, key: &Key) -> bool {
        self.by_key.contains_key(key)
    }

    pub(crate) fn insert(&mut self, t: Timer) {
        self.by_due.insert((t.due, t.key));
        self.by_key.insert(t.key, t);
    }

    pub(crate) fn remove(&mut self, key: &Key) -> Option<Timer> {
        let t = self.by_key.remove(key)?;
        self.by_due.remove(&(t.due, t.key));
        Some(t)
    }

    /// Whether a timer is due at `now`.
    pub(crate) fn any_due(&self, now: i64) -> bool {
        self.by_due.first().is_some_and(|(due, _)| *due <= now)
    }
}
