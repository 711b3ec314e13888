//! The fault, invariant, side-effect and snapshot extensions of CPT JSON files.

mod json;
mod models;
