//! Open incidents.

use std::sync::Arc;

use crate::runtime::records::{ElementRef, ErrorType, Key, ProcIdx};

/// An open incident.
#[derive(Debug, Clone)]
pub struct Incident {
    pub key: Key,
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    pub element_ref: ElementRef,
    pub element_instance_key: Key,
    pub job_key: Option<Key>,
    pub error_type: ErrorType,
    pub error_message: Arc<str>,
}
