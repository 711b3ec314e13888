//! The instructions that check (ASSERT_*), and the states they check for.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::reader::present;
use super::{
    DecisionSelector, ElementSelector, IncidentSelector, InnerInstanceSelector, MessageSelector,
    ProcessSelector, UserTaskSelector, Variables,
};
use crate::jackson::jackson_enum_error;

// ---- states ---------------------------------------------------------------------------------

/// An enumeration of the format: read by the names the file writes, a wrong value rejected with
/// CPT's message (see [`jackson_enum_error`]).
macro_rules! cpt_enum {
    ($(#[$m:meta])* $name:ident = $java:literal { $($(#[$vm:meta])* $variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $variant),* }

        impl $name {
            /// Every value as the file writes it, in CPT's declaration order (baton's extension
            /// values last).
            pub const NAMES: &'static [&'static str] = &[$($text),*];

            /// The value as the file writes it.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),* }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                match text.as_str() {
                    $($text => Ok(Self::$variant),)*
                    other => Err(serde::de::Error::custom(jackson_enum_error($java, other, Self::NAMES))),
                }
            }
        }
    };
}

cpt_enum!(
    /// `ASSERT_PROCESS_INSTANCE.state`; `IS_SUSPENDED` is baton's extension (8.10 suspends
    /// process instances, CPT 8.10 has no state for it).
    ProcessInstanceState = "io.camunda.process.test.api.testCases.instructions.assertProcessInstance.ProcessInstanceState" {
        Active => "IS_ACTIVE",
        Completed => "IS_COMPLETED",
        Created => "IS_CREATED",
        Terminated => "IS_TERMINATED",
        Suspended => "IS_SUSPENDED",
    }
);

cpt_enum!(
    /// `ASSERT_ELEMENT_INSTANCE.state`.
    ElementInstanceState = "io.camunda.process.test.api.testCases.instructions.assertElementInstance.ElementInstanceState" {
        Active => "IS_ACTIVE",
        Completed => "IS_COMPLETED",
        Terminated => "IS_TERMINATED",
    }
);

cpt_enum!(
    /// `ASSERT_ELEMENT_INSTANCES.state`.
    ElementInstancesState = "io.camunda.process.test.api.testCases.instructions.assertElementInstances.ElementInstancesState" {
        Active => "IS_ACTIVE",
        Completed => "IS_COMPLETED",
        Terminated => "IS_TERMINATED",
        NotActive => "IS_NOT_ACTIVE",
        NotActivated => "IS_NOT_ACTIVATED",
        ActiveExactly => "IS_ACTIVE_EXACTLY",
        CompletedInOrder => "IS_COMPLETED_IN_ORDER",
    }
);

cpt_enum!(
    /// `ASSERT_USER_TASK.state`.
    UserTaskState = "io.camunda.process.test.api.testCases.instructions.assertUserTask.UserTaskState" {
        Created => "IS_CREATED",
        Completed => "IS_COMPLETED",
        Canceled => "IS_CANCELED",
        Failed => "IS_FAILED",
    }
);

cpt_enum!(
    /// `ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION.state`.
    MessageSubscriptionState = "io.camunda.process.test.api.testCases.instructions.assertProcessInstanceMessageSubscription.MessageSubscriptionState" {
        Waiting => "IS_WAITING",
        NotWaiting => "IS_NOT_WAITING",
        Correlated => "IS_CORRELATED",
    }
);

cpt_enum!(
    /// `ASSERT_INCIDENT.state`.
    IncidentState = "io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentState" {
        Active => "IS_ACTIVE",
        Resolved => "IS_RESOLVED",
    }
);

cpt_enum!(
    /// `ASSERT_INCIDENT.errorType`: Zeebe's incident error types as CPT 8.10 lists them (the
    /// handler compares them by name with the incident's).
    IncidentErrorType = "io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentErrorType" {
        Unspecified => "UNSPECIFIED",
        Unknown => "UNKNOWN",
        IoMappingError => "IO_MAPPING_ERROR",
        JobNoRetries => "JOB_NO_RETRIES",
        ExecutionListenerNoRetries => "EXECUTION_LISTENER_NO_RETRIES",
        TaskListenerNoRetries => "TASK_LISTENER_NO_RETRIES",
        AdHocSubProcessNoRetries => "AD_HOC_SUB_PROCESS_NO_RETRIES",
        ConditionError => "CONDITION_ERROR",
        ExtractValueError => "EXTRACT_VALUE_ERROR",
        CalledElementError => "CALLED_ELEMENT_ERROR",
        UnhandledErrorEvent => "UNHANDLED_ERROR_EVENT",
        MessageSizeExceeded => "MESSAGE_SIZE_EXCEEDED",
        CalledDecisionError => "CALLED_DECISION_ERROR",
        DecisionEvaluationError => "DECISION_EVALUATION_ERROR",
        FormNotFound => "FORM_NOT_FOUND",
        ResourceNotFound => "RESOURCE_NOT_FOUND",
        SecretResolutionError => "SECRET_RESOLUTION_ERROR",
        UnknownEnumValue => "UNKNOWN_ENUM_VALUE",
    }
);

// ---- instructions ---------------------------------------------------------------------------

/// ASSERT_USER_TASK.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertUserTask {
    pub user_task_selector: UserTaskSelector,
    pub state: Option<UserTaskState>,
    pub assignee: Option<String>,
    pub candidate_groups: Option<Vec<String>>,
    pub priority: Option<i32>,
    pub element_id: Option<String>,
    pub name: Option<String>,
    pub due_date: Option<String>,
    pub follow_up_date: Option<String>,
}

/// ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertMessageSubscription {
    pub process_instance_selector: ProcessSelector,
    pub message_selector: MessageSelector,
    pub state: MessageSubscriptionState,
}

/// ASSERT_PROCESS_INSTANCE.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertProcessInstance {
    pub process_instance_selector: ProcessSelector,
    pub state: Option<ProcessInstanceState>,
    pub has_active_incidents: Option<bool>,
}

/// ASSERT_ELEMENT_INSTANCES.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertElementInstances {
    pub process_instance_selector: ProcessSelector,
    #[serde(default)]
    pub element_selectors: Vec<ElementSelector>,
    pub state: ElementInstancesState,
}

/// ASSERT_ELEMENT_INSTANCE.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertElementInstance {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: ElementSelector,
    pub state: ElementInstanceState,
    /// Exactly this many (default 1).
    pub amount: Option<u32>,
}

/// ASSERT_VARIABLES.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertVariables {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: Option<ElementSelector>,
    /// baton's extension: the local variables of an ad-hoc inner instance.
    pub inner_instance_selector: Option<InnerInstanceSelector>,
    pub variable_names: Option<Vec<String>>,
    pub variables: Option<Variables>,
}

/// `satisfiesJudge` of ASSERT_VARIABLE: an LLM judge (not run offline).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeAssertion {
    pub expectation: String,
    pub threshold: Option<f64>,
    pub custom_prompt: Option<String>,
    pub attach_documents: Option<bool>,
}

/// `similarTo` of ASSERT_VARIABLE: embedding similarity (not run offline).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimilarTo {
    pub expected_value: String,
    pub threshold: Option<f64>,
}

/// ASSERT_VARIABLE.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertVariable {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: Option<ElementSelector>,
    /// baton's extension: a local variable of an ad-hoc inner instance.
    pub inner_instance_selector: Option<InnerInstanceSelector>,
    pub variable_name: String,
    pub satisfies_judge: Option<JudgeAssertion>,
    /// FEEL, evaluated with `{<variableName>: <value>}`; must be `true`.
    pub satisfies_expression: Option<String>,
    pub similar_to: Option<SimilarTo>,
}

/// ASSERT_INCIDENT (CPT 8.10): the oldest incident the selector matches, in any state; each
/// given property is a check of its own, in this order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertIncident {
    pub incident_selector: IncidentSelector,
    pub state: Option<IncidentState>,
    pub error_type: Option<IncidentErrorType>,
    /// Compared exactly.
    pub error_message: Option<String>,
    /// The incident's element id.
    pub element_id: Option<String>,
}

/// ASSERT_DECISION.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertDecision {
    pub decision_selector: DecisionSelector,
    /// Any JSON; `null` is an expected output too.
    #[serde(default, deserialize_with = "present")]
    pub output: Option<Value>,
    pub matched_rules: Option<Vec<u32>>,
    pub not_matched_rules: Option<Vec<u32>>,
    #[serde(default)]
    pub no_matched_rules: bool,
}
