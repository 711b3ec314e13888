//! Behaviour tests of baton-engine: one test binary, one module per area.

mod builder;
mod camunda_namespace;
mod commands;
mod compensation;
mod conditionals;
mod core;
mod corpus;
mod deployment;
mod dmn;
mod feel_wired;
mod fidelity;
mod fixtures;
mod forms;
mod fuzz;
mod global_listeners;
mod golden;
mod hostile;
mod limits;
mod listeners;
mod messages;
mod signals;
mod suspension;
mod timers;
mod xml;
