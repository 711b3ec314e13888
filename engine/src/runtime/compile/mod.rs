//! The executable model: each deployed process compiled once into what the engine runs
//! (elements with their resolved definitions, expressions parsed, scopes indexed).

pub(crate) mod ad_hoc_elements;
pub(crate) mod compiler;
pub(crate) mod definitions;
pub(crate) mod error;
pub(crate) mod expr;
pub(crate) mod process;

pub use error::CompileError;
pub use process::{AdHocSubProcessView, ExecutableProcess};
