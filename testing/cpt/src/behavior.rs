//! CONDITIONAL_BEHAVIOR, deterministically: a behaviour is an [`AtQuiescence`] hook. Whenever
//! the engine waits, the behaviours are asked in registration order; the first whose conditions
//! all hold (each assertion probed once) fires its current action, the engine settles, and the
//! behaviours are asked again until none fires. The current action starts at the first; after
//! an action succeeds it moves to the next, and the last repeats.
//!
//! As in CPT, a behaviour re-arms only once its conditions have been false: one whose
//! conditions still hold after its own action would fire again in CPT after a 5 s reset
//! timeout, which baton does not wait for, so that is an error that fails the test case. An
//! action that fails is a warning (CPT logs it and tries again later); it never fails the test.

use std::cell::RefCell;
use std::rc::Rc;

use super::exec::{self, ACTION_TYPES, CONDITION_TYPES, InHook};
use super::model::{ConditionalBehavior, Instruction, Step};
use baton_testing::{AtQuiescence, ProcessTest, Quiescent};

/// What the behaviours of a test case reported.
#[derive(Debug, Default)]
pub(crate) struct BehaviorLog {
    /// Swallowed action failures.
    pub warnings: Vec<String>,
    /// Behaviours stuck with their conditions true after their own action.
    pub errors: Vec<String>,
}

struct Behavior {
    name: String,
    conditions: Vec<Instruction>,
    actions: Vec<Instruction>,
    next: usize,
    armed: bool,
    /// The 1-based number of the action fired last.
    fired: usize,
    stuck: bool,
    log: Rc<RefCell<BehaviorLog>>,
}

/// Checks a behaviour as CPT's runner does when the instruction runs, then registers it.
/// `number` is its 1-based registration number (the default name is `#<number>`).
pub(crate) fn register(
    test: &ProcessTest,
    behavior: &ConditionalBehavior,
    number: usize,
    log: Rc<RefCell<BehaviorLog>>,
) -> Result<(), String> {
    let name = match &behavior.name {
        Some(n) if n.trim().is_empty() => {
            return Err("CONDITIONAL_BEHAVIOR name must not be blank".to_owned());
        }
        Some(n) => n.clone(),
        None => format!("#{number}"),
    };
    let check =
        |steps: &[Step], allowed: &[&str], what: &str| -> Result<Vec<Instruction>, String> {
            if steps.is_empty() {
                return Err(format!(
                    "CONDITIONAL_BEHAVIOR must have at least one {what}"
                ));
            }
            steps
                .iter()
                .map(|s| {
                    let t = s.instruction.type_name();
                    if allowed.contains(&t) {
                        Ok(s.instruction.clone())
                    } else {
                        Err(format!(
                            "CONDITIONAL_BEHAVIOR {what} type must be one of [{}], but was: {t}",
                            allowed.join(", ")
                        ))
                    }
                })
                .collect()
        };
    let conditions = check(&behavior.conditions, CONDITION_TYPES, "condition")?;
    let actions = check(&behavior.actions, ACTION_TYPES, "action")?;
    test.at_quiescence(Behavior {
        name,
        conditions,
        actions,
        next: 0,
        armed: true,
        fired: 0,
        stuck: false,
        log,
    });
    Ok(())
}

impl AtQuiescence for Behavior {
    fn at_quiescence(&mut self, state: &mut Quiescent<'_>) -> bool {
        let mut ctx = InHook(state);
        let holds = self
            .conditions
            .iter()
            .all(|c| matches!(exec::run_generic(&mut ctx, c), Some(Ok(_))));
        if !holds {
            self.armed = true;
            return false;
        }
        if !self.armed {
            if !self.stuck {
                self.stuck = true;
                self.log.borrow_mut().errors.push(format!(
                    "conditional behaviour \"{}\": its conditions still hold after its action {} ({}); CPT would fire it again only after its 5 s reset timeout, which baton does not wait for. Make the action remove the state its conditions look for.",
                    self.name,
                    self.fired,
                    self.actions[self.fired.saturating_sub(1)].type_name()
                ));
            }
            return false;
        }
        let index = self.next;
        match exec::run_generic(&mut ctx, &self.actions[index]) {
            Some(Ok(_)) => {
                self.next = (index + 1).min(self.actions.len() - 1);
                self.armed = false;
                self.fired = index + 1;
                true
            }
            Some(Err(f)) => {
                self.log.borrow_mut().warnings.push(format!(
                    "conditional behaviour \"{}\": action {} ({}) failed and will be tried again: {}",
                    self.name,
                    index + 1,
                    self.actions[index].type_name(),
                    f.message.replace('\n', " ")
                ));
                false
            }
            None => false,
        }
    }
}
