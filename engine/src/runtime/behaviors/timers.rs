//! Timers on the engine clock: ISO 8601 durations, dates and repeating intervals
//! (`R5/PT10S`, `R/P1D`, `R3/2026-01-01T09:00Z/PT1H`) and Spring cron cycles (`0 0 9 * * MON`),
//! for intermediate catch events, boundary events and event sub-process starts (a
//! non-interrupting cycle repeats from the previous due date, or from now when the clock jumped
//! past the next one), and timer start events
//! (scheduled at deployment for the latest version; each firing starts an instance). A timer
//! whose due date has passed (a zero or negative duration, a date in the past) fires as soon as
//! the command that created it is processed; the others fire when the clock is moved.

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::behaviors::events::Catch;
use crate::runtime::compile::definitions::{EventDef, TimerDef};
use crate::runtime::compile::process::ExecutableProcess;
use crate::runtime::cron::CronExpression;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, ErrorType, Intent, Key, OtherIntent, ProcIdx, RecordValue, Rejection,
    RejectionType, TimerValue, ValueType, VariableDocument,
};
use crate::runtime::state::timers::{Repeat, Timer};
use crate::runtime::step::{FollowUp, StepFailure};

/// The latest engine clock, epoch milliseconds: the last millisecond jiff reads as an instant
/// (9999-12-30T22:00:00Z), past which no date can be computed.
pub const LATEST_CLOCK_MS: i64 = 253_402_207_200_000;

/// [`LATEST_CLOCK_MS`] as an instant.
fn latest_clock() -> jiff::Timestamp {
    jiff::Timestamp::from_millisecond(LATEST_CLOCK_MS).unwrap_or(jiff::Timestamp::MAX)
}

/// A timer definition evaluated: first due date, repetitions, how it repeats.
pub(crate) struct Schedule {
    pub due: i64,
    pub repetitions: i32,
    pub repeat: Option<Repeat>,
}

fn bad(text: &str, what: &str) -> StepFailure {
    StepFailure::new(
        ErrorType::ExtractValueError,
        format!("Invalid timer {what} expression (failed to parse '{text}')"),
    )
}

/// A timer expression whose text is read, but whose date falls outside the engine clock.
fn past_the_clock(text: &str, what: &str) -> StepFailure {
    StepFailure::new(
        ErrorType::ExtractValueError,
        format!(
            "Invalid timer {what} expression '{text}': the due date would be after {}, the latest time the engine clock can show",
            latest_clock()
        ),
    )
}

/// Reads an ISO 8601 duration; one beyond what the clock can count (more than about 20,000
/// years) is said to be so, not to be unreadable.
fn parse_span(text: &str, interval: &str, what: &str) -> Result<jiff::Span, StepFailure> {
    interval.parse().map_err(|e: jiff::Error| {
        if e.to_string().contains("not in the required range") {
            past_the_clock(text, what)
        } else {
            bad(text, what)
        }
    })
}

fn add_span(at: i64, span: jiff::Span) -> Option<i64> {
    let ts = jiff::Timestamp::from_millisecond(at).ok()?;
    let zoned = ts.to_zoned_datetime(jiff::tz::TimeZone::UTC);
    let next = zoned.checked_add(span).ok()?;
    Some(next.timestamp().as_millisecond())
}

fn parse_instant(text: &str) -> Option<i64> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(ts.as_millisecond());
    }
    if let Ok(z) = text.parse::<jiff::ZonedDateTime>() {
        return Some(z.timestamp().as_millisecond());
    }
    None
}

/// Parses a timer definition's text as of `now`.
pub(crate) fn schedule(def: &TimerDef, text: &str, now: i64) -> Result<Schedule, StepFailure> {
    let text = text.trim();
    match def {
        TimerDef::Duration(_) => {
            let span = parse_span(text, text, "duration")?;
            let due = add_span(now, span).ok_or_else(|| past_the_clock(text, "duration"))?;
            Ok(Schedule {
                due,
                repetitions: 1,
                repeat: None,
            })
        }
        TimerDef::Date(_) => Ok(Schedule {
            due: parse_instant(text).ok_or_else(|| bad(text, "date"))?,
            repetitions: 1,
            repeat: None,
        }),
        TimerDef::Cycle(_) => {
            let Some(rest) = text.strip_prefix('R') else {
                // Not an ISO repeating interval: a cron expression, repeating forever.
                let cron = CronExpression::parse(text).map_err(|e| {
                    StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!("Invalid timer cycle expression (failed to parse '{text}': {e})"),
                    )
                })?;
                let due = cron.next_after(now).ok_or_else(|| {
                    StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!("Invalid timer cycle expression '{text}': it never matches"),
                    )
                })?;
                return Ok(Schedule {
                    due,
                    repetitions: -1,
                    repeat: Some(Repeat::Cron(Arc::new(cron))),
                });
            };
            let mut parts = rest.split('/');
            let count = parts.next().unwrap_or("");
            let repetitions = if count.is_empty() {
                -1
            } else {
                count.parse::<i32>().map_err(|_| bad(text, "cycle"))?
            };
            let (start, interval) = match (parts.next(), parts.next()) {
                (Some(i), None) => (None, i),
                (Some(s), Some(i)) => {
                    (Some(parse_instant(s).ok_or_else(|| bad(text, "cycle"))?), i)
                }
                _ => return Err(bad(text, "cycle")),
            };
            let span = parse_span(text, interval, "cycle")?;
            // A start in the past is due now (Zeebe's `Interval.toEpochMilli`).
            let due = match start {
                Some(s) => s.max(now),
                None => add_span(now, span).ok_or_else(|| past_the_clock(text, "cycle"))?,
            };
            Ok(Schedule {
                due,
                repetitions,
                repeat: Some(Repeat::Interval(span)),
            })
        }
    }
}

/// The due date of a repeating timer after it fired at `now` for its due date `due`, as Zeebe's
/// `TimerTriggerProcessor` reschedules it: a cron cycle at its next match after now; an
/// interval one interval after the previous due date, or, when that has passed too (the clock
/// jumped over several intervals), one interval after now (`RepeatingInterval.nextOccurrenceAfter`):
/// an overdue cycle fires once for the whole gap, never catching up interval by interval.
fn next_due(repeat: &Repeat, due: i64, now: i64) -> Option<i64> {
    match repeat {
        Repeat::Interval(span) => match add_span(due, *span)? {
            natural if natural > now => Some(natural),
            _ => add_span(now, *span),
        },
        Repeat::Cron(cron) => cron.next_after(now),
    }
}

impl Engine {
    /// Carries out the command of [`Engine::advance_clock`].
    pub(crate) fn apply_advance_clock(&mut self, millis: i64) -> Result<(), Rejection> {
        let target = self.now.saturating_add(millis.max(0));
        self.move_clock(target)
    }

    /// Carries out the command of [`Engine::set_clock`].
    pub(crate) fn apply_set_clock(&mut self, epoch_millis: i64) -> Result<(), Rejection> {
        self.move_clock(epoch_millis)
    }

    /// Pins the clock (Zeebe's `CLOCK PIN` command): a negative time is refused with Zeebe's
    /// message, and so is a time past the latest one dates can be computed for (year 9999), since
    /// no due date could be computed from it.
    fn move_clock(&mut self, epoch_millis: i64) -> Result<(), Rejection> {
        let start = self.begin();
        let refused = if epoch_millis < 0 {
            Some(format!(
                "Expected pin time to be not negative but it was {epoch_millis}"
            ))
        } else if epoch_millis > LATEST_CLOCK_MS {
            Some(format!(
                "Expected pin time to be at most {LATEST_CLOCK_MS} ({}, the latest time the engine clock can show) but it was {epoch_millis}",
                latest_clock()
            ))
        } else {
            None
        };
        if let Some(message) = refused {
            return Err(self.reject(
                ValueType::Clock,
                Intent::Other(OtherIntent::Pin),
                None,
                RecordValue::Clock { time: epoch_millis },
                Rejection::new(RejectionType::InvalidArgument, message),
            ));
        }
        self.now = epoch_millis;
        self.event(
            ValueType::Clock,
            OtherIntent::Pinned,
            None,
            RecordValue::Clock { time: epoch_millis },
        );
        self.expire_messages();
        // Fire what is due, let the engine react, and repeat: a cycle whose next due date has
        // already passed fires again (bounded by the step limit).
        self.fire_due_jobs();
        self.run(start)
    }
    fn timer_value(t: &Timer) -> TimerValue {
        TimerValue {
            proc: t.proc,
            process_instance_key: t.process_instance_key,
            element_instance_key: t.element_instance_key,
            target_element: t.target,
            due_date: t.due,
            repetitions: t.repetitions,
        }
    }

    /// Evaluates the timer definition of `event` in the scope `owner`.
    pub(crate) fn plan_timer(
        &self,
        owner: Key,
        event: ElementIdx,
    ) -> Result<Schedule, StepFailure> {
        let p = self.process(self.instances[&owner].proc).clone();
        self.plan_timer_in(&p, Some(owner), event)
    }

    /// Evaluates a timer definition; without a scope (timer start events, at deployment) no
    /// variables are visible.
    fn plan_timer_in(
        &self,
        p: &ExecutableProcess,
        owner: Option<Key>,
        event: ElementIdx,
    ) -> Result<Schedule, StepFailure> {
        let EventDef::Timer(def) = &p.element(event).event else {
            return Err(StepFailure::new(
                ErrorType::Unknown,
                format!("Expected '{}' to be a timer event", p.element(event).id),
            ));
        };
        // The typed evaluations of Zeebe's timer transformers (CatchEventTransformer): a duration
        // may be a DURATION, a PERIOD or ISO text, a date a DATE_TIME or ISO text, a cycle only
        // text. Values are handed to the parser in ISO form.
        let scope = owner.unwrap_or(0);
        let text = match def {
            TimerDef::Duration(x) => self.eval_interval(x, scope)?.to_string(),
            TimerDef::Date(x) => match self.eval_date_time(x, scope, false)? {
                Some(date_time) => date_time.zoned.timestamp().to_string(),
                None => String::new(),
            },
            TimerDef::Cycle(x) => self.eval_string(x, scope)?,
        };
        schedule(def, &text, self.now)
    }

    fn add_timer(&mut self, timer: Timer) {
        self.event(
            ValueType::Timer,
            OtherIntent::Created,
            Some(timer.key),
            RecordValue::Timer(Self::timer_value(&timer)),
        );
        if let Some(owner) = timer.element_instance_key
            && let Some(i) = self.instances.get_mut(&owner)
        {
            i.subscriptions.push(timer.key);
        }
        self.timers.insert(timer);
    }

    /// Schedules an evaluated timer of `event` for the element instance `owner`.
    pub(crate) fn write_timer(&mut self, owner: Key, event: ElementIdx, s: Schedule) {
        let inst = &self.instances[&owner];
        let (proc, pi) = (inst.proc, inst.process_instance_key);
        let key = self.new_key();
        self.add_timer(Timer {
            key,
            proc,
            process_instance_key: Some(pi),
            element_instance_key: Some(owner),
            target: event,
            due: s.due,
            repetitions: s.repetitions,
            repeat: s.repeat,
        });
    }

    /// Schedules the timer start events of a newly deployed latest version, canceling those of
    /// the version it replaces. A start timer that cannot be evaluated is not scheduled (the
    /// deploy checks reject what they can see).
    pub(crate) fn open_timer_start_events(&mut self, previous: Option<ProcIdx>, proc: ProcIdx) {
        if let Some(prev) = previous {
            let old: Vec<Key> = self
                .timers
                .by_key
                .values()
                .filter(|t| t.proc == prev && t.element_instance_key.is_none())
                .map(|t| t.key)
                .collect();
            for k in old {
                self.cancel_timer(k);
            }
        }
        let p = self.process(proc).clone();
        for &e in &p.event_start_events {
            if !matches!(p.element(e).event, EventDef::Timer(_)) {
                continue;
            }
            let Ok(s) = self.plan_timer_in(&p, None, e) else {
                continue;
            };
            let key = self.new_key();
            self.add_timer(Timer {
                key,
                proc,
                process_instance_key: None,
                element_instance_key: None,
                target: e,
                due: s.due,
                repetitions: s.repetitions,
                repeat: s.repeat,
            });
        }
    }

    /// Cancels a timer (its element instance is left, or its start event's version replaced).
    pub(crate) fn cancel_timer(&mut self, key: Key) {
        if let Some(t) = self.timers.remove(&key) {
            self.event(
                ValueType::Timer,
                OtherIntent::Canceled,
                Some(key),
                RecordValue::Timer(Self::timer_value(&t)),
            );
        }
    }

    /// Fires every timer that is due, earliest first (ties by key). Returns whether any fired.
    /// A timer of a suspended process instance is held until it resumes (`TIMER SUSPENDED`: out
    /// of the due dates, still cancellable).
    pub(crate) fn fire_due_timers(&mut self) -> bool {
        let now = self.now;
        let due: Vec<(i64, Key)> = self
            .timers
            .by_due
            .iter()
            .take_while(|(d, _)| *d <= now)
            .copied()
            .collect();
        let fired = !due.is_empty();
        self.steps += due.len();
        for (due, key) in due {
            if self.timers_fired >= self.config.timer_limit {
                // One more than the limit: the run loop stops the command.
                self.timers_fired += 1;
                break;
            }
            let suspended = self
                .timers
                .by_key
                .get(&key)
                .and_then(|t| t.process_instance_key)
                .filter(|pi| self.is_suspended(*pi));
            if let Some(pi) = suspended {
                self.timers.by_due.remove(&(due, key));
                let value = RecordValue::Timer(Self::timer_value(&self.timers.by_key[&key]));
                self.event(ValueType::Timer, OtherIntent::Suspended, Some(key), value);
                if let Some(held) = self.suspended.get_mut(&pi) {
                    held.push_back(FollowUp::TriggerTimer(key));
                }
                continue;
            }
            let Some(t) = self.timers.remove(&key) else {
                continue;
            };
            self.timers_fired += 1;
            self.fire_timer(t);
        }
        fired
    }

    /// A timer held while its process instance was suspended, let through on resume: `TIMER
    /// RESUMED`, then it fires (unless its element instance was left meanwhile).
    pub(crate) fn fire_held_timer(&mut self, key: Key) {
        let Some(t) = self.timers.remove(&key) else {
            return;
        };
        self.event(
            ValueType::Timer,
            OtherIntent::Resumed,
            Some(key),
            RecordValue::Timer(Self::timer_value(&t)),
        );
        self.fire_timer(t);
    }

    /// `TIMER TRIGGERED`: a start event starts an instance, a catch event is triggered; a cycle
    /// goes on.
    fn fire_timer(&mut self, t: Timer) {
        let key = t.key;
        self.event(
            ValueType::Timer,
            OtherIntent::Triggered,
            Some(key),
            RecordValue::Timer(Self::timer_value(&t)),
        );
        let p = self.process(t.proc).clone();
        let el = p.element(t.target);
        let repeats = (t.repetitions > 1 || t.repetitions < 0) && t.repeat.is_some();
        match t.element_instance_key {
            None => {
                // A timer start event: a new instance, and the next firing of a cycle.
                let pi = self.new_key();
                self.start_instance_at_event(t.proc, pi, t.target, None);
            }
            Some(owner) => {
                if let Some(i) = self.instances.get_mut(&owner)
                    && let Some(pos) = i.subscriptions.iter().position(|k| *k == key)
                {
                    i.subscriptions.remove(pos);
                }
                if !self.can_trigger(owner) {
                    return;
                }
                self.trigger_event(owner, t.target, None);
                // Only a non-interrupting boundary event or event sub-process repeats.
                let is_catch = el.element_type == BpmnElementType::IntermediateCatchEvent;
                if el.interrupting || is_catch || !self.instances.contains_key(&owner) {
                    return;
                }
            }
        }
        if repeats
            && let Some(repeat) = &t.repeat
            && let Some(next) = next_due(repeat, t.due, self.now)
        {
            let key = self.new_key();
            self.add_timer(Timer {
                key,
                due: next,
                repetitions: if t.repetitions < 0 {
                    -1
                } else {
                    t.repetitions - 1
                },
                ..t
            });
        }
    }

    /// An event subscription of `owner` for `event` fired (timer, message, signal): complete the
    /// waiting catch event, or start the boundary event / event sub-process.
    pub(crate) fn trigger_event(
        &mut self,
        owner: Key,
        event: ElementIdx,
        variables: Option<Arc<VariableDocument>>,
    ) {
        let Some(inst) = self.instances.get(&owner) else {
            return;
        };
        let p = self.process(inst.proc).clone();
        let el = p.element(event);
        match el.element_type {
            BpmnElementType::IntermediateCatchEvent | BpmnElementType::ReceiveTask
                if inst.element() == Some(event) =>
            {
                if let Some(i) = self.instances.get_mut(&owner) {
                    i.completion_vars =
                        variables.map(|v| Arc::new(crate::runtime::records::share_document_arc(v)));
                }
                self.queue.push_back(FollowUp::Complete(owner));
            }
            BpmnElementType::IntermediateCatchEvent => {
                // A catch event after an event-based gateway: the gateway completes and this
                // branch is taken.
                self.trigger_event_based_gateway(owner, event, variables);
            }
            BpmnElementType::BoundaryEvent => {
                self.trigger_catch(
                    Catch {
                        instance: owner,
                        element: event,
                        boundary: true,
                        interrupting: el.interrupting,
                    },
                    variables,
                );
            }
            BpmnElementType::StartEvent => {
                self.trigger_catch(
                    Catch {
                        instance: owner,
                        element: event,
                        boundary: false,
                        interrupting: el.interrupting,
                    },
                    variables,
                );
            }
            _ => {}
        }
    }

    /// Timers waiting, by key (for assertions).
    pub fn timers(&self) -> Vec<&Timer> {
        self.timers.by_key.values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_clock_is_the_last_millisecond_jiff_can_show() {
        assert!(jiff::Timestamp::from_millisecond(LATEST_CLOCK_MS + 1).is_err());
        assert_eq!(latest_clock().to_string(), "9999-12-30T22:00:00Z");
    }
}
