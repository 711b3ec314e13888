//! baton-feel behaviour tests: the case tables (`tests/cases/*.txt`), the conformance corpus,
//! the public API, the limits on hostile expressions.

mod api;
mod cases;
mod conformance;
mod corpus;
mod fuzz;
mod limits;
