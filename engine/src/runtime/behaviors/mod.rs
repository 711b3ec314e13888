//! What elements share, one behaviour per file, each an `impl Engine` block over the state it
//! owns (like Zeebe's `behavior/` package): jobs, variables and expressions, incidents, event
//! subscriptions and throws, messages, signals, timers, conditional events, compensation,
//! decisions, forms and Camunda user tasks. Client commands that belong to one behaviour are
//! carried out here (`apply_*`).

pub(crate) mod camunda_namespace;
pub(crate) mod compensation;
pub(crate) mod conditionals;
pub(crate) mod date_times;
pub(crate) mod decisions;
pub(crate) mod deployment;
pub(crate) mod events;
pub(crate) mod expressions;
pub(crate) mod forms;
pub(crate) mod global_listeners;
pub(crate) mod incidents;
pub(crate) mod jobs;
pub(crate) mod mappings;
pub(crate) mod messages;
pub(crate) mod process_instances;
pub(crate) mod signals;
pub(crate) mod suspension;
pub(crate) mod timers;
pub(crate) mod user_tasks;
pub(crate) mod variables;
