//! The serde plumbing of the format: fields read with the JSON path of a problem, unknown
//! fields named as warnings, and the sentences CPT's reader writes for missing attributes.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{FormatError, error};
use crate::jackson::Jackson;

/// The attributes CPT's reader requires, per instruction type, in its declaration order: the
/// ones neither optional nor defaulted nor a list or map (those default to empty). Missing, they
/// fail the file as CPT's reader fails it: `Cannot build <Class>, some of required attributes
/// are not set [a, b]`, `<Class>` being the instruction's model class.
pub(super) const REQUIRED_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("ASSERT_DECISION", &["decisionSelector"]),
    (
        "ASSERT_ELEMENT_INSTANCE",
        &["processInstanceSelector", "elementSelector", "state"],
    ),
    (
        "ASSERT_ELEMENT_INSTANCES",
        &["processInstanceSelector", "state"],
    ),
    ("ASSERT_INCIDENT", &["incidentSelector"]),
    ("ASSERT_PROCESS_INSTANCE", &["processInstanceSelector"]),
    (
        "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION",
        &["processInstanceSelector", "messageSelector", "state"],
    ),
    ("ASSERT_USER_TASK", &["userTaskSelector"]),
    (
        "ASSERT_VARIABLE",
        &["processInstanceSelector", "variableName"],
    ),
    ("ASSERT_VARIABLES", &["processInstanceSelector"]),
    ("BROADCAST_SIGNAL", &["signalName"]),
    ("COMPLETE_JOB", &["jobSelector"]),
    ("COMPLETE_JOB_AD_HOC_SUB_PROCESS", &["jobSelector"]),
    ("COMPLETE_JOB_USER_TASK_LISTENER", &["jobSelector"]),
    ("COMPLETE_USER_TASK", &["userTaskSelector"]),
    ("CONDITIONAL_BEHAVIOR", &[]),
    ("CORRELATE_MESSAGE", &["name"]),
    ("CREATE_PROCESS_INSTANCE", &["processDefinitionSelector"]),
    ("EVALUATE_CONDITIONAL_START_EVENT", &[]),
    ("EVALUATE_DECISION", &["decisionDefinitionSelector"]),
    ("INCREASE_TIME", &["duration"]),
    ("MOCK_CHILD_PROCESS", &["processDefinitionId"]),
    ("MOCK_DMN_DECISION", &["decisionDefinitionId"]),
    ("MOCK_JOB_WORKER_COMPLETE_JOB", &["jobType"]),
    (
        "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
        &["jobType", "errorCode"],
    ),
    ("PUBLISH_MESSAGE", &["name"]),
    ("RESOLVE_INCIDENT", &["incidentSelector"]),
    ("SET_TIME", &["time"]),
    ("THROW_BPMN_ERROR_FROM_JOB", &["jobSelector", "errorCode"]),
    ("UPDATE_VARIABLES", &["processInstanceSelector"]),
    ("RELEASE_JOB", &["jobSelector"]),
    (
        "TRIGGER_TIMER",
        &["processInstanceSelector", "elementSelector"],
    ),
    ("RUN_CALLED_PROCESS", &["elementSelector"]),
    ("STUB_CALL_ACTIVITY_COMPLETE", &["elementSelector"]),
    (
        "STUB_CALL_ACTIVITY_THROW_ERROR",
        &["elementSelector", "errorCode"],
    ),
    ("SUSPEND_PROCESS_INSTANCE", &["processInstanceSelector"]),
    ("RESUME_PROCESS_INSTANCE", &["processInstanceSelector"]),
    ("SET_CLUSTER_VARIABLES", &["variables"]),
    (
        "CREATE_GLOBAL_TASK_LISTENER",
        &["id", "jobType", "eventTypes"],
    ),
    ("INJECT_JOB_FAULT", &["jobSelector", "fault"]),
    ("INJECT_MODEL_FAULT", &["elementId", "modelCall", "fault"]),
    ("SET_JOB_TIMEOUT", &["timeout"]),
    ("SET_TIME_SKIPPING", &["enabled"]),
    ("ASSERT_INVARIANT", &["invariant"]),
    ("ASSERT_SIDE_EFFECTS", &["jobType"]),
];

/// The nested objects of the format with required attributes, by the field that holds them:
/// (field, model class, required attributes).
const REQUIRED_NESTED: &[(&str, &str, &[&str])] = &[
    ("messageSelector", "MessageSelector", &["messageName"]),
    ("satisfiesJudge", "JudgeAssertion", &["expectation"]),
    (
        "similarTo",
        "SemanticSimilarityAssertion",
        &["expectedValue"],
    ),
    (
        "startInstructions",
        "CreateProcessInstanceStartInstruction",
        &["elementId"],
    ),
    (
        "runtimeInstructions",
        "CreateProcessInstanceTerminateRuntimeInstruction",
        &["afterElementId"],
    ),
];

/// CPT's reader's sentence for missing attributes (Immutables' builder message).
pub(super) fn missing_attributes(class: &str, missing: &[&str]) -> String {
    format!(
        "Cannot build {class}, some of required attributes are not set [{}]",
        missing.join(", ")
    )
}

/// The model class of an instruction type: `ASSERT_INCIDENT` -> `AssertIncidentInstruction`.
pub(super) fn instruction_class(type_name: &str) -> String {
    let mut class = String::with_capacity(type_name.len() + 11);
    for word in type_name.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            class.push(first);
            class.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    class.push_str("Instruction");
    class
}

/// Deserializes the fields of an instruction, naming the path of a problem; unknown fields
/// are ignored and named in `warnings`.
pub(crate) fn read<T: DeserializeOwned>(
    fields: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<T, FormatError> {
    let mut ignored = Vec::new();
    let result = serde_path_to_error::deserialize(serde_ignored::Deserializer::new(
        Jackson(fields),
        &mut |p: serde_ignored::Path<'_>| {
            let (parent, field) = match &p {
                serde_ignored::Path::Map { parent, key } => (json_path(parent), key.clone()),
                other => (json_path(other), String::new()),
            };
            let at = if parent.is_empty() {
                path.to_owned()
            } else if parent.starts_with('[') {
                format!("{path}{parent}")
            } else {
                format!("{path}.{parent}")
            };
            ignored.push(format!(
                "{at}: unknown field `{field}` is ignored (as CPT ignores it)"
            ));
        },
    ));
    warnings.extend(ignored);
    result.map_err(|e| {
        let inner = e.path().to_string();
        let at = if inner == "." || inner.is_empty() {
            path.to_owned()
        } else {
            format!("{path}.{inner}")
        };
        let message = e.into_inner().to_string();
        let message = nested_missing(&inner, &message).unwrap_or(message);
        error(at, message)
    })
}

/// serde's "missing field `x`" inside a nested object of the format, as CPT's reader says it.
fn nested_missing(inner_path: &str, message: &str) -> Option<String> {
    let field = message.strip_prefix("missing field `")?.strip_suffix('`')?;
    let holder = inner_path.rsplit('.').next()?;
    let holder = holder.split('[').next()?;
    let (_, class, required) = REQUIRED_NESTED.iter().find(|(f, _, _)| *f == holder)?;
    required
        .contains(&field)
        .then(|| missing_attributes(class, &[field]))
}

/// A serde_ignored path as a JSON path (`startInstructions[0]`).
fn json_path(p: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path as P;
    match p {
        P::Root => String::new(),
        P::Seq { parent, index } => format!("{}[{index}]", json_path(parent)),
        P::Map { parent, key } => {
            let parent = json_path(parent);
            if parent.is_empty() {
                key.clone()
            } else {
                format!("{parent}.{key}")
            }
        }
        P::Some { parent } | P::NewtypeStruct { parent } | P::NewtypeVariant { parent } => {
            json_path(parent)
        }
    }
}

/// `Some(value)` for a field that is present, `null` included.
pub(super) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{IncidentState, Instruction, parse_one};

    #[test]
    fn errors_name_the_path() {
        let cases = [
            (
                json!({"type": "COMPLETE_JOB", "jobSelector": {"jobType": {"name": "charge"}}}),
                "i.jobSelector.jobType: Cannot deserialize value of type `java.lang.String` from Object value (token `JsonToken.START_OBJECT`)",
            ),
            (
                json!({"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}, "state": "IS_DONE"}),
                "i.state: Cannot deserialize value of type `io.camunda.process.test.api.testCases.instructions.assertProcessInstance.ProcessInstanceState` from String \"IS_DONE\": not one of the values accepted for Enum class: [IS_TERMINATED, IS_CREATED, IS_SUSPENDED, IS_ACTIVE, IS_COMPLETED]",
            ),
            (
                json!({"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": [{"type": "NOPE"}]}),
                "i.actions[0].type: unknown instruction type \"NOPE\"",
            ),
            (
                json!({"type": "MOCK_AI_AGENT", "elementId": "a"}),
                "i: MOCK_AI_AGENT needs exactly one of `turns`",
            ),
            (json!({"jobType": "x"}), "i: missing field `type`"),
            (
                json!({"type": "ASSERT_AI_AGENT", "elementId": "a", "status": "RUNNING"}),
                "i.status: unknown variant `RUNNING`, expected one of `INITIALIZING`, `TOOL_DISCOVERY`, `THINKING`, `TOOL_CALLING`, `IDLE`, `COMPLETED`",
            ),
            (
                json!({"type": "ASSERT_AI_AGENT", "elementId": "a", "historyRoles": ["USER", "SYSTEM"]}),
                "i.historyRoles[1]: unknown variant `SYSTEM`, expected one of `USER`, `ASSISTANT`, `TOOL_RESULT`",
            ),
            (
                json!({"type": "ASSERT_AI_AGENT", "elementId": "a", "metrics": {"modelCalls": "2"}}),
                "i.metrics.modelCalls: invalid type: string \"2\", expected u64",
            ),
        ];
        for (json, expected) in cases {
            let message = parse_one(json).unwrap_err().to_string();
            assert!(message.starts_with(expected), "{message}");
        }
    }

    #[test]
    fn unknown_fields_are_ignored_with_a_warning_as_cpt_ignores_them() {
        let mut warnings = Vec::new();
        let i = Instruction::from_json(
            &json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {"processDefinitionId": "p"},
                    "startInstructions": [{"type": "START_BEFORE_ELEMENT", "elementId": "a"}], "variable": {}}),
            "i",
            &mut warnings,
        )
        .unwrap();
        assert_eq!(i.type_name(), "CREATE_PROCESS_INSTANCE");
        assert_eq!(
            warnings,
            [
                "i.startInstructions[0]: unknown field `type` is ignored (as CPT ignores it)",
                "i: unknown field `variable` is ignored (as CPT ignores it)"
            ]
        );
    }

    /// CPT 8.10's model (camunda/camunda testing/camunda-process-test-json-test-cases,
    /// `AssertIncidentInstruction`, Immutables + Jackson builder): `incidentSelector` is the one
    /// required attribute, the reader names it as Immutables' builder does, and the enumerations
    /// reject a wrong value with Jackson's message (`SchemaValidationTest`
    /// shouldRejectAssertIncidentWithoutSelector / ...WithInvalidEnum reject the same files).
    #[test]
    fn assert_incident_is_read_with_cpts_messages() {
        let Instruction::AssertIncident(a) = parse_one(json!({"type": "ASSERT_INCIDENT",
            "incidentSelector": {"processDefinitionId": "order"}, "state": "IS_RESOLVED"}))
        .unwrap() else {
            unreachable!()
        };
        assert_eq!(a.state, Some(IncidentState::Resolved));
        assert_eq!(a.error_type, None);
        // A number where text is expected is read as its text, as CPT's reader (Jackson)
        // coerces it.
        let Instruction::AssertIncident(a) = parse_one(json!({"type": "ASSERT_INCIDENT",
            "incidentSelector": {"elementId": 42}, "errorMessage": 7}))
        .unwrap() else {
            unreachable!()
        };
        assert_eq!(a.incident_selector.element_id.as_deref(), Some("42"));
        assert_eq!(a.error_message.as_deref(), Some("7"));
        let cases = [
            (
                json!({"type": "ASSERT_INCIDENT", "state": "IS_ACTIVE"}),
                "i: Cannot build AssertIncidentInstruction, some of required attributes are not set [incidentSelector]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": null}),
                "i: Cannot build AssertIncidentInstruction, some of required attributes are not set [incidentSelector]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "a"}, "state": "INVALID"}),
                "i.state: Cannot deserialize value of type `io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentState` from String \"INVALID\": not one of the values accepted for Enum class: [IS_ACTIVE, IS_RESOLVED]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "a"}, "errorType": "INVALID"}),
                "i.errorType: Cannot deserialize value of type `io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentErrorType` from String \"INVALID\": not one of the values accepted for Enum class: [CALLED_ELEMENT_ERROR, SECRET_RESOLUTION_ERROR, RESOURCE_NOT_FOUND, CALLED_DECISION_ERROR, DECISION_EVALUATION_ERROR, JOB_NO_RETRIES, EXECUTION_LISTENER_NO_RETRIES, AD_HOC_SUB_PROCESS_NO_RETRIES, UNSPECIFIED, TASK_LISTENER_NO_RETRIES, FORM_NOT_FOUND, EXTRACT_VALUE_ERROR, IO_MAPPING_ERROR, CONDITION_ERROR, UNHANDLED_ERROR_EVENT, UNKNOWN_ENUM_VALUE, UNKNOWN, MESSAGE_SIZE_EXCEEDED]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "a"}, "errorMessage": [7]}),
                "i.errorMessage: Cannot deserialize value of type `java.lang.String` from Array value (token `JsonToken.START_ARRAY`)",
            ),
            (
                json!({"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR"}),
                "i: Cannot build MockJobWorkerThrowBpmnErrorInstruction, some of required attributes are not set [jobType, errorCode]",
            ),
            (
                json!({"type": "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", "processInstanceSelector": {"processDefinitionId": "p"}, "messageSelector": {}, "state": "IS_WAITING"}),
                "i.messageSelector: Cannot build MessageSelector, some of required attributes are not set [messageName]",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "v", "similarTo": {"threshold": 0.5}}),
                "i.similarTo: Cannot build SemanticSimilarityAssertion, some of required attributes are not set [expectedValue]",
            ),
            (
                json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {"processDefinitionId": "p"}, "startInstructions": [{}]}),
                "i.startInstructions[0]: Cannot build CreateProcessInstanceStartInstruction, some of required attributes are not set [elementId]",
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(parse_one(json).unwrap_err().to_string(), expected);
        }
    }

    /// The table of required attributes agrees with what the instructions read: taking away one
    /// attribute of each sample fails with CPT's sentence exactly when the table lists it, and
    /// lists and maps default to empty as CPT's reader defaults them.
    #[test]
    fn required_attributes_match_the_instructions() {
        let samples = [
            json!({"type": "ASSERT_DECISION", "decisionSelector": {"decisionDefinitionId": "d"}}),
            json!({"type": "ASSERT_ELEMENT_INSTANCE", "processInstanceSelector": {}, "elementSelector": {}, "state": "IS_ACTIVE", "amount": 1}),
            json!({"type": "ASSERT_ELEMENT_INSTANCES", "processInstanceSelector": {}, "elementSelectors": [], "state": "IS_ACTIVE"}),
            json!({"type": "ASSERT_INCIDENT", "incidentSelector": {}, "state": "IS_ACTIVE", "errorType": "UNKNOWN", "errorMessage": "m", "elementId": "e"}),
            json!({"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {}, "state": "IS_ACTIVE", "hasActiveIncidents": true}),
            json!({"type": "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", "processInstanceSelector": {}, "messageSelector": {"messageName": "m"}, "state": "IS_WAITING"}),
            json!({"type": "ASSERT_USER_TASK", "userTaskSelector": {}, "assignee": "a"}),
            json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {}, "variableName": "v", "satisfiesExpression": "true"}),
            json!({"type": "ASSERT_VARIABLES", "processInstanceSelector": {}, "variableNames": [], "variables": {}}),
            json!({"type": "BROADCAST_SIGNAL", "signalName": "s", "variables": {}}),
            json!({"type": "COMPLETE_JOB", "jobSelector": {}, "variables": {}, "useExampleData": false}),
            json!({"type": "COMPLETE_JOB_AD_HOC_SUB_PROCESS", "jobSelector": {}, "activateElements": []}),
            json!({"type": "COMPLETE_JOB_USER_TASK_LISTENER", "jobSelector": {}, "denied": false}),
            json!({"type": "COMPLETE_USER_TASK", "userTaskSelector": {}, "variables": {}}),
            json!({"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": []}),
            json!({"type": "CORRELATE_MESSAGE", "name": "m", "correlationKey": "k"}),
            json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {}, "variables": {}, "startInstructions": []}),
            json!({"type": "EVALUATE_CONDITIONAL_START_EVENT", "variables": {}}),
            json!({"type": "EVALUATE_DECISION", "decisionDefinitionSelector": {}, "variables": {}}),
            json!({"type": "INCREASE_TIME", "duration": "PT1H"}),
            json!({"type": "MOCK_CHILD_PROCESS", "processDefinitionId": "c", "variables": {}}),
            json!({"type": "MOCK_DMN_DECISION", "decisionDefinitionId": "d", "variables": {}}),
            json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "t", "variables": {}}),
            json!({"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR", "jobType": "t", "errorCode": "E", "errorMessage": "m"}),
            json!({"type": "PUBLISH_MESSAGE", "name": "m", "timeToLive": 1}),
            json!({"type": "RESOLVE_INCIDENT", "incidentSelector": {}}),
            json!({"type": "SET_TIME", "time": "2026-01-19T13:00:00Z"}),
            json!({"type": "THROW_BPMN_ERROR_FROM_JOB", "jobSelector": {}, "errorCode": "E", "variables": {}}),
            json!({"type": "UPDATE_VARIABLES", "processInstanceSelector": {}, "variables": {}}),
            json!({"type": "RELEASE_JOB", "jobSelector": {}}),
            json!({"type": "TRIGGER_TIMER", "processInstanceSelector": {}, "elementSelector": {}}),
            json!({"type": "RUN_CALLED_PROCESS", "elementSelector": {}}),
            json!({"type": "STUB_CALL_ACTIVITY_COMPLETE", "elementSelector": {}, "variables": {}}),
            json!({"type": "STUB_CALL_ACTIVITY_THROW_ERROR", "elementSelector": {}, "errorCode": "E"}),
            json!({"type": "SUSPEND_PROCESS_INSTANCE", "processInstanceSelector": {}}),
            json!({"type": "RESUME_PROCESS_INSTANCE", "processInstanceSelector": {}}),
            json!({"type": "SET_CLUSTER_VARIABLES", "variables": {}, "tenantId": "t"}),
            json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "l", "jobType": "t", "eventTypes": ["all"], "retries": 1}),
            json!({"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "t"}, "fault": "NO_ANSWER"}),
            json!({"type": "INJECT_MODEL_FAULT", "elementId": "agent", "modelCall": 1, "fault": "REFUSAL"}),
            json!({"type": "SET_JOB_TIMEOUT", "timeout": "PT30S"}),
            json!({"type": "SET_TIME_SKIPPING", "enabled": false}),
            json!({"type": "ASSERT_INVARIANT", "invariant": "NO_INCIDENT"}),
            json!({"type": "ASSERT_SIDE_EFFECTS", "jobType": "t", "atMostOncePerKey": true}),
        ];
        assert_eq!(samples.len(), REQUIRED_ATTRIBUTES.len());
        for sample in samples {
            let type_name = sample["type"].as_str().unwrap();
            parse_one(sample.clone()).unwrap_or_else(|e| panic!("{type_name}: {e}"));
            let (_, required) = REQUIRED_ATTRIBUTES
                .iter()
                .find(|(t, _)| *t == type_name)
                .unwrap();
            for field in sample.as_object().unwrap().keys().filter(|k| *k != "type") {
                let mut without = sample.clone();
                without.as_object_mut().unwrap().remove(field);
                let result = parse_one(without);
                let expected = format!(
                    "i: Cannot build {}, some of required attributes are not set [{field}]",
                    instruction_class(type_name)
                );
                match (required.contains(&field.as_str()), result) {
                    (true, Err(e)) => assert_eq!(e.to_string(), expected),
                    (true, Ok(_)) => panic!("{type_name} reads without {field}"),
                    (false, Err(e)) if e.to_string().contains("needs") => {}
                    (false, Err(e)) => panic!("{type_name} without {field}: {e}"),
                    (false, Ok(_)) => {}
                }
            }
        }
    }
}
