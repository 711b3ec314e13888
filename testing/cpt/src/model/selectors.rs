//! The selectors of the format: what an instruction acts on or checks, by the fields it gives.

use serde::Deserialize;

use super::{FormatError, error};

/// `{processDefinitionId}`: the latest version of a process (CREATE_PROCESS_INSTANCE) or any
/// instance of it, child instances included (the `processInstanceSelector` of assertions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessSelector {
    pub process_definition_id: Option<String>,
}

/// `{elementId}` or `{elementName}`; with both, the id wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementSelector {
    pub element_id: Option<String>,
    pub element_name: Option<String>,
}

/// `{jobType, elementId, processDefinitionId}`: all given fields must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSelector {
    pub job_type: Option<String>,
    pub element_id: Option<String>,
    pub process_definition_id: Option<String>,
}

/// `{elementId, taskName, processDefinitionId}`: all given fields must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserTaskSelector {
    pub element_id: Option<String>,
    pub task_name: Option<String>,
    pub process_definition_id: Option<String>,
}

/// `{elementId, processDefinitionId}`: all given fields must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IncidentSelector {
    pub element_id: Option<String>,
    pub process_definition_id: Option<String>,
}

/// `{decisionDefinitionId, decisionDefinitionName}` (ASSERT_DECISION).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionSelector {
    pub decision_definition_id: Option<String>,
    pub decision_definition_name: Option<String>,
}

/// `{decisionDefinitionId}` (EVALUATE_DECISION).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionDefinitionSelector {
    pub decision_definition_id: Option<String>,
}

/// `{messageName, correlationKey?}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSelector {
    pub message_name: String,
    pub correlation_key: Option<String>,
}

/// baton's extension of ASSERT_VARIABLE(S) (camunda/camunda#50753): the variables of one inner
/// instance of an ad-hoc sub-process (one tool call of an AI agent), chosen by what it ran. The
/// first inner instance (in creation order) that matches every given field is selected.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InnerInstanceSelector {
    /// The ad-hoc sub-process.
    pub element_id: String,
    /// An element that ran in the inner instance (the tool).
    pub tool_element_id: Option<String>,
    /// A local variable of the inner instance (`toolCall`) ...
    pub variable_name: Option<String>,
    /// ... whose value contains this text (a string's text, else its JSON).
    pub value_contains: Option<String>,
}

/// `elementSelector` and `innerInstanceSelector` name the scope two ways: at most one of them.
pub(super) fn one_scope(
    element: bool,
    inner: &Option<InnerInstanceSelector>,
    path: &str,
) -> Result<(), FormatError> {
    let Some(inner) = inner else {
        return Ok(());
    };
    if element {
        return Err(error(
            path,
            "give elementSelector or innerInstanceSelector, not both",
        ));
    }
    if inner.tool_element_id.is_none()
        && inner.variable_name.is_none()
        && inner.value_contains.is_none()
    {
        return Err(error(
            format!("{path}.innerInstanceSelector"),
            "needs toolElementId, or variableName (with valueContains), to choose an inner instance",
        ));
    }
    if inner.value_contains.is_some() && inner.variable_name.is_none() {
        return Err(error(
            format!("{path}.innerInstanceSelector"),
            "valueContains needs variableName (the variable whose value is searched)",
        ));
    }
    Ok(())
}
