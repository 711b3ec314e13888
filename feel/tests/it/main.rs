//! baton-feel behaviour tests: the case tables (`tests/cases/*.txt`), the conformance corpus,
//! the public API.

mod api;
mod cases;
mod conformance;
mod corpus;
