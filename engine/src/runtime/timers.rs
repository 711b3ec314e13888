//! Timers on the engine clock: ISO 8601 durations, dates and repeating intervals
//! (`R5/PT10S`, `R/P1D`, `R3/2026-01-01T09:00Z/PT1H`), for intermediate catch events, boundary
//! events (a non-interrupting cycle repeats from the previous due date) and event sub-process
//! starts. Due timers fire when the clock is moved.

use std::sync::Arc;

use serde_json::Value as Json;

use super::executable::{EventDef, TimerDef};
use super::processor::Failure;
use super::records::{ErrorType, Key, OtherIntent, ProcIdx, RecordValue, TimerValue, ValueType};
use super::{Cmd, Engine};
use crate::model::ElementIdx;

/// A scheduled timer.
#[derive(Debug, Clone)]
pub struct Timer {
    pub key: Key,
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    /// The element instance the timer belongs to (the catch event, the activity of a boundary
    /// event, the scope of an event sub-process).
    pub element_instance_key: Key,
    /// The timer event (catch, boundary or start event).
    pub target: ElementIdx,
    pub due: i64,
    /// Firings left including this one (-1: unbounded).
    pub repetitions: i32,
    /// The interval of a cycle, for the next firing.
    pub interval: Option<jiff::Span>,
}

/// A timer definition evaluated: first due date, repetitions, interval.
pub(crate) struct Schedule {
    pub due: i64,
    pub repetitions: i32,
    pub interval: Option<jiff::Span>,
}

fn bad(text: &str, what: &str) -> Failure {
    Failure::new(
        ErrorType::ExtractValueError,
        format!("Invalid timer {what} expression (failed to parse '{text}')"),
    )
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
pub(crate) fn schedule(def: &TimerDef, text: &str, now: i64) -> Result<Schedule, Failure> {
    let text = text.trim();
    match def {
        TimerDef::Duration(_) => {
            let span: jiff::Span = text.parse().map_err(|_| bad(text, "duration"))?;
            let due = add_span(now, span).ok_or_else(|| bad(text, "duration"))?;
            Ok(Schedule {
                due,
                repetitions: 1,
                interval: None,
            })
        }
        TimerDef::Date(_) => Ok(Schedule {
            due: parse_instant(text).ok_or_else(|| bad(text, "date"))?,
            repetitions: 1,
            interval: None,
        }),
        TimerDef::Cycle(_) => {
            let Some(rest) = text.strip_prefix('R') else {
                return Err(Failure::new(
                    ErrorType::ExtractValueError,
                    format!(
                        "Invalid timer cycle expression '{text}': cron expressions are not supported by this engine version yet"
                    ),
                ));
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
            let span: jiff::Span = interval.parse().map_err(|_| bad(text, "cycle"))?;
            let due = match start {
                Some(s) => s,
                None => add_span(now, span).ok_or_else(|| bad(text, "cycle"))?,
            };
            Ok(Schedule {
                due,
                repetitions,
                interval: Some(span),
            })
        }
    }
}

impl Engine {
    fn timer_value(t: &Timer) -> TimerValue {
        TimerValue {
            proc: t.proc,
            process_instance_key: Some(t.process_instance_key),
            element_instance_key: Some(t.element_instance_key),
            target_element: t.target,
            due_date: t.due,
            repetitions: t.repetitions,
        }
    }

    /// Evaluates the timer definition of `event` in the scope `owner`.
    pub(crate) fn plan_timer(&self, owner: Key, event: ElementIdx) -> Result<Schedule, Failure> {
        let p = self.process(self.instances[&owner].proc);
        let EventDef::Timer(def) = &p.element(event).event else {
            return Err(Failure::new(
                ErrorType::Unknown,
                format!("Expected '{}' to be a timer event", p.element(event).id),
            ));
        };
        let expr = match def {
            TimerDef::Duration(x) | TimerDef::Date(x) | TimerDef::Cycle(x) => x,
        };
        let text = match self.eval(expr, owner, None)? {
            Json::String(s) => s,
            other => {
                return Err(Failure::new(
                    ErrorType::ExtractValueError,
                    format!(
                        "Expected result of the expression '{}' to be one of '[DURATION, PERIOD, STRING]', but was '{}'",
                        super::variables::expr_source(expr),
                        super::variables::json_type_name(&other)
                    ),
                ));
            }
        };
        schedule(def, &text, self.now)
    }

    /// Schedules an evaluated timer of `event` for the element instance `owner`.
    pub(crate) fn write_timer(&mut self, owner: Key, event: ElementIdx, s: Schedule) {
        let inst = &self.instances[&owner];
        let (proc, pi) = (inst.proc, inst.process_instance_key);
        let key = self.new_key();
        let timer = Timer {
            key,
            proc,
            process_instance_key: pi,
            element_instance_key: owner,
            target: event,
            due: s.due,
            repetitions: s.repetitions,
            interval: s.interval,
        };
        self.event(
            ValueType::Timer,
            OtherIntent::Created,
            Some(key),
            RecordValue::Timer(Self::timer_value(&timer)),
        );
        self.timers.insert(key, timer);
        if let Some(i) = self.instances.get_mut(&owner) {
            i.subscriptions.push(key);
        }
    }

    /// Cancels a timer (its element instance is left).
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
    pub(crate) fn fire_due_timers(&mut self) -> bool {
        let now = self.now;
        let mut due: Vec<(i64, Key)> = self
            .timers
            .values()
            .filter(|t| t.due <= now)
            .map(|t| (t.due, t.key))
            .collect();
        due.sort_unstable();
        let fired = !due.is_empty();
        self.steps += due.len();
        for (_, key) in due {
            let Some(t) = self.timers.remove(&key) else {
                continue;
            };
            self.event(
                ValueType::Timer,
                OtherIntent::Triggered,
                Some(key),
                RecordValue::Timer(Self::timer_value(&t)),
            );
            if let Some(i) = self.instances.get_mut(&t.element_instance_key)
                && let Some(pos) = i.subscriptions.iter().position(|k| *k == key)
            {
                i.subscriptions.remove(pos);
            }
            self.trigger_event(t.element_instance_key, t.target, None);
            // A cycle on a non-interrupting event repeats from the previous due date.
            let p = self.process(t.proc).clone();
            let interrupting = p.element(t.target).interrupting;
            let is_catch =
                p.element(t.target).element_type == super::BpmnElementType::IntermediateCatchEvent;
            if !interrupting
                && !is_catch
                && (t.repetitions > 1 || t.repetitions < 0)
                && let Some(interval) = t.interval
                && let Some(next) = add_span(t.due, interval)
                && self.instances.contains_key(&t.element_instance_key)
            {
                let key = self.new_key();
                let timer = Timer {
                    key,
                    due: next,
                    repetitions: if t.repetitions < 0 {
                        -1
                    } else {
                        t.repetitions - 1
                    },
                    ..t
                };
                self.event(
                    ValueType::Timer,
                    OtherIntent::Created,
                    Some(key),
                    RecordValue::Timer(Self::timer_value(&timer)),
                );
                if let Some(i) = self.instances.get_mut(&timer.element_instance_key) {
                    i.subscriptions.push(key);
                }
                self.timers.insert(key, timer);
            }
        }
        fired
    }

    /// An event subscription of `owner` for `event` fired (timer, message, signal): complete the
    /// waiting catch event, or start the boundary event / event sub-process.
    pub(crate) fn trigger_event(
        &mut self,
        owner: Key,
        event: ElementIdx,
        variables: Option<Arc<super::VariableDocument>>,
    ) {
        let Some(inst) = self.instances.get(&owner) else {
            return;
        };
        let p = self.process(inst.proc).clone();
        let el = p.element(event);
        match el.element_type {
            super::BpmnElementType::IntermediateCatchEvent
            | super::BpmnElementType::ReceiveTask
                if inst.element() == Some(event) =>
            {
                if let Some(i) = self.instances.get_mut(&owner) {
                    i.completion_vars = variables;
                }
                self.queue.push_back(Cmd::Complete(owner));
            }
            super::BpmnElementType::IntermediateCatchEvent => {
                // A catch event after an event-based gateway: the gateway completes and this
                // branch is taken.
                self.trigger_event_based_gateway(owner, event, variables);
            }
            super::BpmnElementType::BoundaryEvent => {
                self.trigger_catch(
                    super::events::Catch {
                        instance: owner,
                        element: event,
                        boundary: true,
                        interrupting: el.interrupting,
                    },
                    variables,
                );
            }
            super::BpmnElementType::StartEvent => {
                self.trigger_catch(
                    super::events::Catch {
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
        self.timers.values().collect()
    }
}
