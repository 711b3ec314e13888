//! Behaviour tests of baton-cli: the `baton` command run as a user runs it, one module per area.

mod agent;
mod cli;
mod coverage;
mod hostile;
mod remote;
mod serve;
mod support;
