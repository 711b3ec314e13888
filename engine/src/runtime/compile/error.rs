//! Why a process does not compile: the element (if any) and the message.

use crate::model;

/// A compile error: the element (if any) and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub element_id: Option<String>,
    pub message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.element_id {
            Some(id) => write!(f, "element '{id}': {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

pub(crate) fn err(element: &model::Element, message: impl Into<String>) -> CompileError {
    CompileError {
        element_id: Some(element.id.to_string()),
        message: message.into(),
    }
}
