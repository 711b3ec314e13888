//! baton-remote's behaviour tests: the runner against `baton serve` started in-process on a
//! free port (and against fake endpoints that answer badly).

mod corpus;
mod fake;
mod support;
