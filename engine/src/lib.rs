//! baton-engine: BPMN and DMN parsing, Zeebe's deploy checks and a deterministic token engine.
#![forbid(unsafe_code)]

pub mod deploy;
pub mod diagnostics;
pub mod dmn;
pub mod model;
pub mod runtime;
pub mod source;
mod xml;
