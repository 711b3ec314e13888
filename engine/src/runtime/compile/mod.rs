//! The executable model: each deployed process compiled once into what the engine runs
//! (elements with their resolved definitions, expressions parsed, scopes indexed).

pub(crate) mod executable;
pub(crate) mod expr;

pub use executable::{AdHocSubProcessView, CompileError, ExecutableProcess};
