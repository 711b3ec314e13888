//! [`Instruction`]: every instruction type baton reads, where each comes from, and reading one
//! by its `type`.

use serde_json::Value;

use super::actions::*;
use super::agent::*;
use super::assertions::*;
use super::reader::{REQUIRED_ATTRIBUTES, instruction_class, kind, missing_attributes, read};
use super::selectors::one_scope;
use super::{FormatError, Step, error};

/// Every instruction baton reads. See `docs/cli.md` for what each one does here.
#[derive(Debug, Clone, PartialEq)]
pub enum Instruction {
    AssertDecision(AssertDecision),
    AssertElementInstance(AssertElementInstance),
    AssertElementInstances(AssertElementInstances),
    AssertProcessInstance(AssertProcessInstance),
    AssertProcessInstanceMessageSubscription(AssertMessageSubscription),
    AssertUserTask(AssertUserTask),
    AssertVariable(AssertVariable),
    AssertVariables(AssertVariables),
    BroadcastSignal(BroadcastSignal),
    CompleteJob(CompleteJob),
    CompleteJobAdHocSubProcess(CompleteJobAdHocSubProcess),
    CompleteJobUserTaskListener(CompleteJobUserTaskListener),
    CompleteUserTask(CompleteUserTask),
    ConditionalBehavior(ConditionalBehavior),
    CorrelateMessage(CorrelateMessage),
    CreateProcessInstance(CreateProcessInstance),
    EvaluateConditionalStartEvent(EvaluateConditionalStartEvent),
    EvaluateDecision(EvaluateDecision),
    IncreaseTime(IncreaseTime),
    MockChildProcess(MockChildProcess),
    MockDmnDecision(MockDmnDecision),
    MockJobWorkerCompleteJob(MockJobWorkerCompleteJob),
    MockJobWorkerThrowBpmnError(MockJobWorkerThrowBpmnError),
    PublishMessage(PublishMessage),
    ResolveIncident(ResolveIncident),
    SetTime(SetTime),
    ThrowBpmnErrorFromJob(ThrowBpmnErrorFromJob),
    UpdateVariables(UpdateVariables),
    ReleaseJob(ReleaseJob),
    TriggerTimer(TriggerTimer),
    RunCalledProcess(RunCalledProcess),
    StubCallActivityComplete(StubCallActivityComplete),
    StubCallActivityThrowError(StubCallActivityThrowError),
    AssertIncident(AssertIncident),
    MockAiAgent(MockAiAgent),
    AssertAiAgent(AssertAiAgent),
    SuspendProcessInstance(ProcessInstanceCommand),
    ResumeProcessInstance(ProcessInstanceCommand),
    SetClusterVariables(SetClusterVariables),
    CreateGlobalTaskListener(CreateGlobalTaskListener),
    InjectJobFault(crate::faults::InjectJobFault),
    InjectModelFault(crate::faults::InjectModelFault),
    SetJobTimeout(crate::faults::SetJobTimeout),
    SetTimeSkipping(crate::faults::SetTimeSkipping),
    AssertInvariant(crate::faults::AssertInvariant),
    AssertSideEffects(crate::faults::AssertSideEffects),
    SaveSnapshot(crate::faults::SnapshotInstruction),
    RestoreSnapshot(crate::faults::SnapshotInstruction),
}

/// Where an instruction type comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// In the 8.9 schema.
    V89,
    /// New in the 8.10 runner (next docs, handler classes): CONDITIONAL_BEHAVIOR, ASSERT_INCIDENT.
    V810,
    /// The 8.11 development line only, unconfirmed: read, not run.
    DevLine,
    /// baton's own extension.
    Baton,
}

/// Every instruction type with its origin, in the order of the schema's enumeration.
pub const INSTRUCTION_TYPES: &[(&str, Origin)] = &[
    ("ASSERT_DECISION", Origin::V89),
    ("ASSERT_ELEMENT_INSTANCE", Origin::V89),
    ("ASSERT_ELEMENT_INSTANCES", Origin::V89),
    ("ASSERT_PROCESS_INSTANCE", Origin::V89),
    ("ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", Origin::V89),
    ("ASSERT_USER_TASK", Origin::V89),
    ("ASSERT_VARIABLE", Origin::V89),
    ("ASSERT_VARIABLES", Origin::V89),
    ("BROADCAST_SIGNAL", Origin::V89),
    ("COMPLETE_JOB", Origin::V89),
    ("COMPLETE_JOB_AD_HOC_SUB_PROCESS", Origin::V89),
    ("COMPLETE_JOB_USER_TASK_LISTENER", Origin::V89),
    ("COMPLETE_USER_TASK", Origin::V89),
    ("CONDITIONAL_BEHAVIOR", Origin::V810),
    ("CORRELATE_MESSAGE", Origin::V89),
    ("CREATE_PROCESS_INSTANCE", Origin::V89),
    ("EVALUATE_CONDITIONAL_START_EVENT", Origin::V89),
    ("EVALUATE_DECISION", Origin::V89),
    ("INCREASE_TIME", Origin::V89),
    ("MOCK_CHILD_PROCESS", Origin::V89),
    ("MOCK_DMN_DECISION", Origin::V89),
    ("MOCK_JOB_WORKER_COMPLETE_JOB", Origin::V89),
    ("MOCK_JOB_WORKER_THROW_BPMN_ERROR", Origin::V89),
    ("PUBLISH_MESSAGE", Origin::V89),
    ("RESOLVE_INCIDENT", Origin::V89),
    ("SET_TIME", Origin::V89),
    ("THROW_BPMN_ERROR_FROM_JOB", Origin::V89),
    ("UPDATE_VARIABLES", Origin::V89),
    ("RELEASE_JOB", Origin::DevLine),
    ("TRIGGER_TIMER", Origin::DevLine),
    ("RUN_CALLED_PROCESS", Origin::DevLine),
    ("STUB_CALL_ACTIVITY_COMPLETE", Origin::DevLine),
    ("STUB_CALL_ACTIVITY_THROW_ERROR", Origin::DevLine),
    ("ASSERT_INCIDENT", Origin::V810),
    ("MOCK_AI_AGENT", Origin::Baton),
    ("ASSERT_AI_AGENT", Origin::Baton),
    ("SUSPEND_PROCESS_INSTANCE", Origin::Baton),
    ("RESUME_PROCESS_INSTANCE", Origin::Baton),
    ("SET_CLUSTER_VARIABLES", Origin::Baton),
    ("CREATE_GLOBAL_TASK_LISTENER", Origin::Baton),
    ("INJECT_JOB_FAULT", Origin::Baton),
    ("INJECT_MODEL_FAULT", Origin::Baton),
    ("SET_JOB_TIMEOUT", Origin::Baton),
    ("SET_TIME_SKIPPING", Origin::Baton),
    ("ASSERT_INVARIANT", Origin::Baton),
    ("ASSERT_SIDE_EFFECTS", Origin::Baton),
    ("SAVE_SNAPSHOT", Origin::Baton),
    ("RESTORE_SNAPSHOT", Origin::Baton),
];

impl Instruction {
    /// The `type` it was written with.
    pub fn type_name(&self) -> &'static str {
        use Instruction::*;
        match self {
            AssertDecision(_) => "ASSERT_DECISION",
            AssertElementInstance(_) => "ASSERT_ELEMENT_INSTANCE",
            AssertElementInstances(_) => "ASSERT_ELEMENT_INSTANCES",
            AssertProcessInstance(_) => "ASSERT_PROCESS_INSTANCE",
            AssertProcessInstanceMessageSubscription(_) => {
                "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION"
            }
            AssertUserTask(_) => "ASSERT_USER_TASK",
            AssertVariable(_) => "ASSERT_VARIABLE",
            AssertVariables(_) => "ASSERT_VARIABLES",
            BroadcastSignal(_) => "BROADCAST_SIGNAL",
            CompleteJob(_) => "COMPLETE_JOB",
            CompleteJobAdHocSubProcess(_) => "COMPLETE_JOB_AD_HOC_SUB_PROCESS",
            CompleteJobUserTaskListener(_) => "COMPLETE_JOB_USER_TASK_LISTENER",
            CompleteUserTask(_) => "COMPLETE_USER_TASK",
            ConditionalBehavior(_) => "CONDITIONAL_BEHAVIOR",
            CorrelateMessage(_) => "CORRELATE_MESSAGE",
            CreateProcessInstance(_) => "CREATE_PROCESS_INSTANCE",
            EvaluateConditionalStartEvent(_) => "EVALUATE_CONDITIONAL_START_EVENT",
            EvaluateDecision(_) => "EVALUATE_DECISION",
            IncreaseTime(_) => "INCREASE_TIME",
            MockChildProcess(_) => "MOCK_CHILD_PROCESS",
            MockDmnDecision(_) => "MOCK_DMN_DECISION",
            MockJobWorkerCompleteJob(_) => "MOCK_JOB_WORKER_COMPLETE_JOB",
            MockJobWorkerThrowBpmnError(_) => "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
            PublishMessage(_) => "PUBLISH_MESSAGE",
            ResolveIncident(_) => "RESOLVE_INCIDENT",
            SetTime(_) => "SET_TIME",
            ThrowBpmnErrorFromJob(_) => "THROW_BPMN_ERROR_FROM_JOB",
            UpdateVariables(_) => "UPDATE_VARIABLES",
            ReleaseJob(_) => "RELEASE_JOB",
            TriggerTimer(_) => "TRIGGER_TIMER",
            RunCalledProcess(_) => "RUN_CALLED_PROCESS",
            StubCallActivityComplete(_) => "STUB_CALL_ACTIVITY_COMPLETE",
            StubCallActivityThrowError(_) => "STUB_CALL_ACTIVITY_THROW_ERROR",
            AssertIncident(_) => "ASSERT_INCIDENT",
            MockAiAgent(_) => "MOCK_AI_AGENT",
            AssertAiAgent(_) => "ASSERT_AI_AGENT",
            SuspendProcessInstance(_) => "SUSPEND_PROCESS_INSTANCE",
            ResumeProcessInstance(_) => "RESUME_PROCESS_INSTANCE",
            SetClusterVariables(_) => "SET_CLUSTER_VARIABLES",
            CreateGlobalTaskListener(_) => "CREATE_GLOBAL_TASK_LISTENER",
            InjectJobFault(_) => "INJECT_JOB_FAULT",
            InjectModelFault(_) => "INJECT_MODEL_FAULT",
            SetJobTimeout(_) => "SET_JOB_TIMEOUT",
            SetTimeSkipping(_) => "SET_TIME_SKIPPING",
            AssertInvariant(_) => "ASSERT_INVARIANT",
            AssertSideEffects(_) => "ASSERT_SIDE_EFFECTS",
            SaveSnapshot(_) => "SAVE_SNAPSHOT",
            RestoreSnapshot(_) => "RESTORE_SNAPSHOT",
        }
    }

    /// Reads one instruction; `path` names it in errors. Unknown fields are ignored (as CPT
    /// does) and named in `warnings`.
    pub fn from_json(
        value: &Value,
        path: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Instruction, FormatError> {
        let Some(object) = value.as_object() else {
            return Err(error(
                path,
                format!("an instruction must be an object, got {}", kind(value)),
            ));
        };
        let type_name = match object.get("type") {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(error(
                    format!("{path}.type"),
                    format!("must be a string, got {}", kind(other)),
                ));
            }
            None => return Err(error(path, "missing field `type`")),
        };
        if let Some((_, required)) = REQUIRED_ATTRIBUTES.iter().find(|(t, _)| *t == type_name) {
            let missing: Vec<&str> = required
                .iter()
                .copied()
                .filter(|a| object.get(*a).is_none_or(Value::is_null))
                .collect();
            if !missing.is_empty() {
                return Err(error(
                    path,
                    missing_attributes(&instruction_class(type_name), &missing),
                ));
            }
        }
        let mut fields = object.clone();
        fields.shift_remove("type");
        let fields = Value::Object(fields);
        use Instruction as I;
        let instruction = match type_name {
            "ASSERT_DECISION" => I::AssertDecision(read(fields, path, warnings)?),
            "ASSERT_ELEMENT_INSTANCE" => {
                let a: AssertElementInstance = read(fields, path, warnings)?;
                if a.amount == Some(0) {
                    return Err(error(format!("{path}.amount"), "must be at least 1"));
                }
                I::AssertElementInstance(a)
            }
            "ASSERT_ELEMENT_INSTANCES" => I::AssertElementInstances(read(fields, path, warnings)?),
            "ASSERT_PROCESS_INSTANCE" => I::AssertProcessInstance(read(fields, path, warnings)?),
            "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION" => {
                I::AssertProcessInstanceMessageSubscription(read(fields, path, warnings)?)
            }
            "ASSERT_USER_TASK" => I::AssertUserTask(read(fields, path, warnings)?),
            "ASSERT_VARIABLE" => {
                let a: AssertVariable = read(fields, path, warnings)?;
                one_scope(
                    a.element_selector.is_some(),
                    &a.inner_instance_selector,
                    path,
                )?;
                I::AssertVariable(a)
            }
            "BROADCAST_SIGNAL" => I::BroadcastSignal(read(fields, path, warnings)?),
            "COMPLETE_JOB" => I::CompleteJob(read(fields, path, warnings)?),
            "COMPLETE_JOB_AD_HOC_SUB_PROCESS" => {
                I::CompleteJobAdHocSubProcess(read(fields, path, warnings)?)
            }
            "COMPLETE_JOB_USER_TASK_LISTENER" => {
                I::CompleteJobUserTaskListener(read(fields, path, warnings)?)
            }
            "COMPLETE_USER_TASK" => I::CompleteUserTask(read(fields, path, warnings)?),
            "CONDITIONAL_BEHAVIOR" => {
                let raw: ConditionalBehaviorJson = read(fields, path, warnings)?;
                let mut steps = |list: &[Value], field: &str| -> Result<Vec<Step>, FormatError> {
                    list.iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let at = format!("{path}.{field}[{i}]");
                            Ok(Step {
                                instruction: Instruction::from_json(v, &at, warnings)?,
                                json: v.clone(),
                            })
                        })
                        .collect()
                };
                let conditions = steps(&raw.conditions, "conditions")?;
                let actions = steps(&raw.actions, "actions")?;
                I::ConditionalBehavior(ConditionalBehavior {
                    name: raw.name,
                    conditions,
                    actions,
                })
            }
            "CORRELATE_MESSAGE" => I::CorrelateMessage(read(fields, path, warnings)?),
            "CREATE_PROCESS_INSTANCE" => I::CreateProcessInstance(read(fields, path, warnings)?),
            "EVALUATE_CONDITIONAL_START_EVENT" => {
                I::EvaluateConditionalStartEvent(read(fields, path, warnings)?)
            }
            "EVALUATE_DECISION" => I::EvaluateDecision(read(fields, path, warnings)?),
            "INCREASE_TIME" => {
                let t: IncreaseTime = read(fields, path, warnings)?;
                // CPT's field is a java.time.Duration: Jackson reads it with the file
                // (Duration.parse), so a duration that does not read fails the file.
                baton_testing::clock::parse_duration(&t.duration)
                    .map_err(|e| error(format!("{path}.duration"), e.to_string()))?;
                I::IncreaseTime(t)
            }
            "MOCK_CHILD_PROCESS" => I::MockChildProcess(read(fields, path, warnings)?),
            "MOCK_DMN_DECISION" => I::MockDmnDecision(read(fields, path, warnings)?),
            "MOCK_JOB_WORKER_COMPLETE_JOB" => {
                I::MockJobWorkerCompleteJob(read(fields, path, warnings)?)
            }
            "MOCK_JOB_WORKER_THROW_BPMN_ERROR" => {
                I::MockJobWorkerThrowBpmnError(read(fields, path, warnings)?)
            }
            "PUBLISH_MESSAGE" => I::PublishMessage(read(fields, path, warnings)?),
            "RESOLVE_INCIDENT" => I::ResolveIncident(read(fields, path, warnings)?),
            "SET_TIME" => {
                let t: SetTime = read(fields, path, warnings)?;
                // A java.time.Instant in CPT, read with the file as INCREASE_TIME's duration.
                baton_testing::clock::parse_instant(&t.time)
                    .map_err(|e| error(format!("{path}.time"), e.to_string()))?;
                I::SetTime(t)
            }
            "THROW_BPMN_ERROR_FROM_JOB" => I::ThrowBpmnErrorFromJob(read(fields, path, warnings)?),
            "UPDATE_VARIABLES" => I::UpdateVariables(read(fields, path, warnings)?),
            "RELEASE_JOB" => I::ReleaseJob(read(fields, path, warnings)?),
            "TRIGGER_TIMER" => I::TriggerTimer(read(fields, path, warnings)?),
            "RUN_CALLED_PROCESS" => I::RunCalledProcess(read(fields, path, warnings)?),
            "STUB_CALL_ACTIVITY_COMPLETE" => {
                I::StubCallActivityComplete(read(fields, path, warnings)?)
            }
            "STUB_CALL_ACTIVITY_THROW_ERROR" => {
                I::StubCallActivityThrowError(read(fields, path, warnings)?)
            }
            "MOCK_AI_AGENT" => {
                let mut raw: MockAiAgentJson = read(fields, path, warnings)?;
                let element_id = std::mem::take(&mut raw.element_id);
                I::MockAiAgent(MockAiAgent {
                    element_id,
                    turns: raw.turns(path)?,
                })
            }
            "ASSERT_AI_AGENT" => I::AssertAiAgent(read(fields, path, warnings)?),
            "ASSERT_INCIDENT" => I::AssertIncident(read(fields, path, warnings)?),
            "ASSERT_VARIABLES" => {
                let a: AssertVariables = read(fields, path, warnings)?;
                one_scope(
                    a.element_selector.is_some(),
                    &a.inner_instance_selector,
                    path,
                )?;
                I::AssertVariables(a)
            }
            "SUSPEND_PROCESS_INSTANCE" => I::SuspendProcessInstance(read(fields, path, warnings)?),
            "RESUME_PROCESS_INSTANCE" => I::ResumeProcessInstance(read(fields, path, warnings)?),
            "SET_CLUSTER_VARIABLES" => {
                let s: SetClusterVariables = read(fields, path, warnings)?;
                if s.tenant_id.as_deref().is_some_and(|t| t.trim().is_empty()) {
                    return Err(error(
                        format!("{path}.tenantId"),
                        "must not be blank (leave it out for cluster-wide variables)",
                    ));
                }
                I::SetClusterVariables(s)
            }
            "INJECT_JOB_FAULT" => {
                I::InjectJobFault(crate::faults::inject_job_fault(fields, path, warnings)?)
            }
            "INJECT_MODEL_FAULT" => {
                I::InjectModelFault(crate::faults::inject_model_fault(fields, path, warnings)?)
            }
            "SET_JOB_TIMEOUT" => {
                I::SetJobTimeout(crate::faults::job_timeout(fields, path, warnings)?)
            }
            "SET_TIME_SKIPPING" => I::SetTimeSkipping(read(fields, path, warnings)?),
            "ASSERT_INVARIANT" => {
                I::AssertInvariant(crate::faults::assert_invariant(fields, path, warnings)?)
            }
            "ASSERT_SIDE_EFFECTS" => {
                I::AssertSideEffects(crate::faults::assert_side_effects(fields, path, warnings)?)
            }
            "SAVE_SNAPSHOT" => I::SaveSnapshot(crate::faults::snapshot_instruction(
                fields,
                path,
                warnings,
                "SAVE_SNAPSHOT",
            )?),
            "RESTORE_SNAPSHOT" => I::RestoreSnapshot(crate::faults::snapshot_instruction(
                fields,
                path,
                warnings,
                "RESTORE_SNAPSHOT",
            )?),
            "CREATE_GLOBAL_TASK_LISTENER" => I::CreateGlobalTaskListener(global_task_listener(
                read(fields, path, warnings)?,
                path,
            )?),
            other => {
                // Within 3 edits only of a type about as long (the edit distance is at least
                // the difference in length): a huge `type` is compared with nothing.
                let length = other.chars().take(64).count();
                let closest = INSTRUCTION_TYPES
                    .iter()
                    .filter(|(t, _)| length.abs_diff(t.len()) <= 3)
                    .map(|(t, _)| (strsim::levenshtein(other, t), *t))
                    .min()
                    .filter(|(distance, _)| *distance <= 3);
                let hint = match closest {
                    Some((_, t)) => format!("did you mean {t}?"),
                    None => {
                        let known: Vec<&str> = INSTRUCTION_TYPES.iter().map(|(t, _)| *t).collect();
                        format!("known types: {}", known.join(", "))
                    }
                };
                return Err(error(
                    format!("{path}.type"),
                    format!(
                        "unknown instruction type \"{}\"; {hint}",
                        baton_testing::variables::truncate(other, 60)
                    ),
                ));
            }
        };
        Ok(instruction)
    }

    /// The instructions nested in this one (a conditional behaviour's conditions and actions).
    pub fn nested(&self) -> Vec<&Step> {
        match self {
            Instruction::ConditionalBehavior(b) => b.conditions.iter().chain(&b.actions).collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::parse_one;

    #[test]
    fn every_instruction_type_is_read() {
        let samples = [
            json!({"type": "ASSERT_DECISION", "decisionSelector": {"decisionDefinitionId": "d"}, "output": null}),
            json!({"type": "ASSERT_ELEMENT_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelector": {"elementId": "a"}, "state": "IS_COMPLETED", "amount": 2}),
            json!({"type": "ASSERT_ELEMENT_INSTANCES", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelectors": [{"elementName": "A"}], "state": "IS_ACTIVE_EXACTLY"}),
            json!({"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}, "hasActiveIncidents": false}),
            json!({"type": "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", "processInstanceSelector": {"processDefinitionId": "p"}, "messageSelector": {"messageName": "m"}, "state": "IS_CORRELATED"}),
            json!({"type": "ASSERT_USER_TASK", "userTaskSelector": {"taskName": "T"}, "state": "IS_CANCELED", "candidateGroups": ["g"], "priority": 50}),
            json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "v", "satisfiesExpression": "v > 1", "similarTo": {"expectedValue": "x", "threshold": 0.8}}),
            json!({"type": "ASSERT_VARIABLES", "processInstanceSelector": {"processDefinitionId": "p"}, "variableNames": ["a"], "variables": {"a": 1}}),
            json!({"type": "BROADCAST_SIGNAL", "signalName": "s"}),
            json!({"type": "COMPLETE_JOB", "jobSelector": {"jobType": "t"}, "useExampleData": true}),
            json!({"type": "COMPLETE_JOB_AD_HOC_SUB_PROCESS", "jobSelector": {"elementId": "a"}, "activateElements": [{"elementId": "x", "variables": {"toolCall": {}}}], "completionConditionFulfilled": true}),
            json!({"type": "COMPLETE_JOB_USER_TASK_LISTENER", "jobSelector": {"jobType": "l"}, "corrections": {"assignee": "kim", "candidateGroups": []}}),
            json!({"type": "COMPLETE_USER_TASK", "userTaskSelector": {"elementId": "t"}, "variables": {"ok": true}}),
            json!({"type": "CONDITIONAL_BEHAVIOR", "conditions": [{"type": "ASSERT_USER_TASK", "userTaskSelector": {"taskName": "T"}, "state": "IS_CREATED"}], "actions": [{"type": "COMPLETE_USER_TASK", "userTaskSelector": {"taskName": "T"}}]}),
            json!({"type": "CORRELATE_MESSAGE", "name": "m", "correlationKey": "k"}),
            json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {"processDefinitionId": "p"}, "startInstructions": [{"elementId": "a"}], "runtimeInstructions": [{"type": "TERMINATE_PROCESS_INSTANCE", "afterElementId": "a"}]}),
            json!({"type": "EVALUATE_CONDITIONAL_START_EVENT", "variables": {"x": 1}}),
            json!({"type": "EVALUATE_DECISION", "decisionDefinitionSelector": {"decisionDefinitionId": "d"}}),
            json!({"type": "INCREASE_TIME", "duration": "PT1H"}),
            json!({"type": "MOCK_CHILD_PROCESS", "processDefinitionId": "c", "variables": {"a": 1}}),
            json!({"type": "MOCK_DMN_DECISION", "decisionDefinitionId": "d", "decisionOutput": [1, 2]}),
            json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "t"}),
            json!({"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR", "jobType": "t", "errorCode": "E"}),
            json!({"type": "PUBLISH_MESSAGE", "name": "m", "timeToLive": 0, "messageId": "1"}),
            json!({"type": "RESOLVE_INCIDENT", "incidentSelector": {"elementId": "a"}}),
            json!({"type": "SET_TIME", "time": "2026-01-19T13:00:00Z"}),
            json!({"type": "THROW_BPMN_ERROR_FROM_JOB", "jobSelector": {"jobType": "t"}, "errorCode": "E"}),
            json!({"type": "UPDATE_VARIABLES", "processInstanceSelector": {"processDefinitionId": "p"}, "variables": {}, "createLocalVariables": true}),
            json!({"type": "RELEASE_JOB", "jobSelector": {"jobType": "t"}}),
            json!({"type": "TRIGGER_TIMER", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelector": {"elementId": "t"}}),
            json!({"type": "RUN_CALLED_PROCESS", "elementSelector": {"elementId": "c"}}),
            json!({"type": "STUB_CALL_ACTIVITY_COMPLETE", "elementSelector": {"elementId": "c"}}),
            json!({"type": "STUB_CALL_ACTIVITY_THROW_ERROR", "elementSelector": {"elementId": "c"}, "errorCode": "E"}),
            json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "payment-task", "processDefinitionId": "order"}, "state": "IS_ACTIVE", "errorType": "JOB_NO_RETRIES", "errorMessage": "Payment worker failed", "elementId": "payment-task"}),
            json!({"type": "MOCK_AI_AGENT", "elementId": "agent", "cassette": "a.json"}),
            json!({"type": "ASSERT_AI_AGENT", "elementId": "agent", "calledTools": ["a"], "modelCalls": 2, "status": "TOOL_CALLING", "metrics": {"modelCalls": 2, "toolCalls": 1}, "historyRoles": ["USER", "ASSISTANT", "TOOL_RESULT"]}),
            json!({"type": "SUSPEND_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}}),
            json!({"type": "RESUME_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}}),
            json!({"type": "SET_CLUSTER_VARIABLES", "variables": {"KEY": 1}, "tenantId": "acme"}),
            json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "audit", "jobType": "audit-listener", "eventTypes": ["Creating", "completing"], "retries": 2, "afterNonGlobal": true, "priority": 10}),
            json!({"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "t"}, "fault": "FAIL", "times": 2, "retryBackoff": "PT10S", "errorMessage": "503"}),
            json!({"type": "INJECT_MODEL_FAULT", "elementId": "agent", "modelCall": 2, "fault": "TIMEOUT", "latency": "PT1M"}),
            json!({"type": "SET_JOB_TIMEOUT", "timeout": "PT30S"}),
            json!({"type": "SET_TIME_SKIPPING", "enabled": true}),
            json!({"type": "ASSERT_INVARIANT", "invariant": "NEVER_BEFORE", "elementId": "a", "beforeElementId": "b"}),
            json!({"type": "ASSERT_SIDE_EFFECTS", "jobType": "t", "count": 1}),
            json!({"type": "SAVE_SNAPSHOT", "name": "s"}),
            json!({"type": "RESTORE_SNAPSHOT", "name": "s"}),
        ];
        assert_eq!(samples.len(), INSTRUCTION_TYPES.len());
        for (sample, (name, _)) in samples.iter().zip(INSTRUCTION_TYPES) {
            let instruction = parse_one(sample.clone()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(instruction.type_name(), *name);
        }
        let Instruction::AssertDecision(d) = parse_one(samples[0].clone()).unwrap() else {
            unreachable!()
        };
        assert_eq!(
            d.output,
            Some(Value::Null),
            "an explicit null output is kept"
        );
    }

    #[test]
    fn the_extensions_are_checked_when_read() {
        let Instruction::CreateGlobalTaskListener(l) =
            parse_one(json!({"type": "CREATE_GLOBAL_TASK_LISTENER",
            "id": "audit", "jobType": "audit", "eventTypes": ["CREATING", "all", "creating"]}))
            .unwrap()
        else {
            unreachable!()
        };
        assert_eq!(
            l.event_types,
            ["all"],
            "`all` with others is `all`, as Camunda reads it"
        );
        let cases = [
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": ["start"]}),
                "i.eventTypes[0]: \"start\" is not a user task event; expected one of creating, assigning, updating, completing, canceling, all",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": []}),
                "i.eventTypes: needs at least one of creating, assigning, updating, completing, canceling, all",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": ["all"], "retries": 0}),
                "i.retries: must be a positive number, got 0",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": ["all"], "priority": 101}),
                "i.priority: must be an integer between 0 and 100, got 101",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": " ", "jobType": "t", "eventTypes": ["all"]}),
                "i.id: must not be blank",
            ),
            (
                json!({"type": "SET_CLUSTER_VARIABLES", "variables": {}, "tenantId": ""}),
                "i.tenantId: must not be blank (leave it out for cluster-wide variables)",
            ),
            (
                json!({"type": "ASSERT_VARIABLES", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelector": {"elementId": "a"}, "innerInstanceSelector": {"elementId": "agent", "toolElementId": "t"}}),
                "i: give elementSelector or innerInstanceSelector, not both",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "toolCall", "innerInstanceSelector": {"elementId": "agent"}}),
                "i.innerInstanceSelector: needs toolElementId, or variableName (with valueContains), to choose an inner instance",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "toolCall", "innerInstanceSelector": {"elementId": "agent", "valueContains": "x"}}),
                "i.innerInstanceSelector: valueContains needs variableName (the variable whose value is searched)",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "toolCall", "innerInstanceSelector": {"toolElementId": "t"}}),
                "i.innerInstanceSelector: missing field `elementId`",
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(parse_one(json).unwrap_err().to_string(), expected);
        }
    }
}
