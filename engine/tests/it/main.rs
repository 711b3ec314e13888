//! Behaviour tests of the token engine.

mod builder;
mod core;
