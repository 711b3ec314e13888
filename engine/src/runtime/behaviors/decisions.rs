//! Decisions: deployed decision requirements graphs (DRGs) and their versions, business rule
//! tasks (`zeebe:calledDecision` with its binding types), standalone evaluation (CPT's
//! `EVALUATE_DECISION`), mocked decisions (CPT's `mockDmnDecision`), and the queries over
//! `DECISION_EVALUATION` records (CPT's `ASSERT_DECISION`).
//!
//! As in Zeebe, a decision is found by id (latest version, the version of the process's
//! deployment, or the latest version with a version tag), evaluated with every variable visible
//! at the task, and the evaluation is written as one `DECISION_EVALUATION` record (`EVALUATED`
//! or `FAILED`) listing every decision of the DRG that was evaluated. A missing decision is a
//! `CALLED_DECISION_ERROR` incident, a failed evaluation a `DECISION_EVALUATION_ERROR` incident.

use std::sync::Arc;

use baton_feel::{CachedVars, Env, Value, VarsFn};
use serde_json::{Map, Value as Json, json};

use crate::dmn::{self, DecisionType, Drg, EvaluatedDecision};
use crate::model::ElementIdx;
use crate::runtime::command::DecisionOutcome;
use crate::runtime::compile::definitions::DecisionDef;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    DecisionIdx, DecisionValue, DrgIdx, ErrorType, Intent, Key, OtherIntent, ProcIdx, RecordType,
    RecordValue, Rejection, RejectionType, ValueType, VariableDocument,
};
use crate::runtime::state::deployments::{DeployedDecision, DeployedDrg};
use crate::runtime::step::StepFailure;

/// A `.dmn` resource of a deployment.
pub(crate) struct DmnResource<'a> {
    pub name: &'a str,
    pub text: &'a str,
    pub drg: &'a Arc<Drg>,
}

/// What deploying DMN resources produced: (id, version, key) per DRG and per decision.
#[derive(Debug, Default)]
pub(crate) struct DeployedDmn {
    pub drgs: Vec<(String, i32, Key)>,
    pub decisions: Vec<(String, i32, Key)>,
    pub first_drg: Option<DrgIdx>,
}

/// One evaluated decision of a `DECISION_EVALUATION` record: what Camunda calls a decision
/// instance (its key is `<evaluation key>-<n>`).
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionInstanceView<'a> {
    /// `<evaluation key>-<n>`, `n` counting the evaluated decisions from 1.
    pub key: String,
    pub evaluation_key: Key,
    /// The position of the `DECISION_EVALUATION` record.
    pub position: u64,
    pub decision_id: &'a str,
    pub decision_name: &'a str,
    /// The deployed decision's key and version (`None` for business knowledge models).
    pub decision_key: Option<Key>,
    pub decision_version: Option<i32>,
    pub decision_type: DecisionType,
    /// `EVALUATED`, or `FAILED` for the decision whose evaluation failed.
    pub failed: bool,
    /// The evaluation failure message, on the failed decision.
    pub failure_message: Option<&'a str>,
    pub output: &'a Json,
    pub evaluated_inputs: &'a [dmn::EvaluatedInput],
    pub matched_rules: &'a [dmn::MatchedRule],
    /// The decision the business rule task or the standalone command called.
    pub root_decision_id: &'a str,
    pub process_instance_key: Option<Key>,
    pub element_instance_key: Option<Key>,
    pub element_id: Option<&'a str>,
}

impl Engine {
    pub(crate) fn drg(&self, idx: DrgIdx) -> &DeployedDrg {
        self.deployed.decisions.drg(idx)
    }

    /// Deployed decision versions, in deployment order.
    pub fn deployed_decisions(&self) -> &[DeployedDecision] {
        &self.deployed.decisions.decisions
    }

    /// Deployed DRG versions, in deployment order.
    pub fn deployed_drgs(&self) -> &[DeployedDrg] {
        &self.deployed.decisions.drgs
    }

    /// The latest version of a decision.
    pub fn latest_decision(&self, decision_id: &str) -> Option<&DeployedDecision> {
        self.deployed
            .decisions
            .latest(decision_id)
            .map(|idx| self.deployed.decisions.decision(idx))
    }

    /// Whether these DMN resources are all unchanged redeployments of the latest DRG versions
    /// (Zeebe then writes no new version).
    pub(crate) fn dmn_duplicates_only(&self, resources: &[DmnResource<'_>]) -> bool {
        !resources.is_empty()
            && resources.iter().all(|r| {
                self.deployed
                    .decisions
                    .latest_drg
                    .get(r.drg.id.as_str())
                    .is_some_and(|&idx| {
                        let latest = self.deployed.decisions.drg(idx);
                        *latest.resource_name == *r.name
                            && *latest.text == *r.text
                            && r.drg.decisions.iter().all(|d| {
                                self.deployed.decisions.latest(&d.id).is_some_and(|dec| {
                                    self.deployed.decisions.decision(dec).drg == idx
                                })
                            })
                    })
            })
    }

    /// Deploys DRGs as new versions: `DECISION_REQUIREMENTS CREATED` and one `DECISION CREATED`
    /// per decision. Keys are taken in resource order, as Zeebe's transformer does.
    pub(crate) fn deploy_drgs(
        &mut self,
        resources: &[DmnResource<'_>],
        deployment_key: Key,
    ) -> DeployedDmn {
        let mut out = DeployedDmn::default();
        for resource in resources {
            let drg = resource.drg;
            let drg_key = self.new_key();
            let version = self
                .deployed
                .decisions
                .latest_drg
                .get(drg.id.as_str())
                .map_or(1, |&idx| self.deployed.decisions.drg(idx).version + 1);
            let drg_idx = DrgIdx(self.deployed.decisions.drgs.len() as u32);
            self.deployed.decisions.drgs.push(DeployedDrg {
                key: drg_key,
                id: Arc::from(drg.id.as_str()),
                name: Arc::from(drg.name.as_str()),
                version,
                resource_name: Arc::from(resource.name),
                deployment_key,
                model: drg.clone(),
                text: Arc::from(resource.text),
            });
            self.deployed
                .decisions
                .latest_drg
                .insert(Arc::from(drg.id.as_str()), drg_idx);
            out.drgs.push((drg.id.clone(), version, drg_key));
            out.first_drg.get_or_insert(drg_idx);
            self.event(
                ValueType::DecisionRequirements,
                OtherIntent::Created,
                Some(drg_key),
                RecordValue::DecisionRequirements(drg_idx),
            );
            for (index, decision) in drg.decisions.iter().enumerate() {
                let key = self.new_key();
                let version = self
                    .deployed
                    .decisions
                    .latest(&decision.id)
                    .map_or(1, |idx| self.deployed.decisions.decision(idx).version + 1);
                let idx = DecisionIdx(self.deployed.decisions.decisions.len() as u32);
                self.deployed.decisions.decisions.push(DeployedDecision {
                    key,
                    id: decision.id.clone(),
                    name: decision.name.clone(),
                    version,
                    version_tag: decision.version_tag.as_deref().map(Arc::from),
                    drg: drg_idx,
                    index,
                    deployment_key,
                });
                self.deployed
                    .decisions
                    .latest
                    .insert(decision.id.clone(), idx);
                out.decisions.push((decision.id.to_string(), version, key));
                self.event(
                    ValueType::Decision,
                    OtherIntent::Created,
                    Some(key),
                    RecordValue::Decision(idx),
                );
            }
        }
        out
    }

    /// Carries out the command of [`Engine::register_decision`].
    pub(crate) fn apply_mock_decision(&mut self, decision_id: String, output: Json) {
        let id: Arc<str> = Arc::from(decision_id.as_str());
        let drg = Drg {
            id: format!("{decision_id}-mock"),
            name: format!("Mock of {decision_id}"),
            namespace: "https://baton.dev/mock".to_owned(),
            decisions: vec![dmn::model::Decision {
                id: id.clone(),
                name: id.clone(),
                result_name: id,
                result_type: None,
                version_tag: None,
                logic: dmn::model::Logic::Value(Value::from_json(&output)),
                required_decisions: Vec::new(),
                required_bkms: Vec::new(),
                span: Default::default(),
            }],
            bkms: Vec::new(),
            input_data: Vec::new(),
            span: Default::default(),
        };
        let name = format!("{decision_id}-mock.dmn");
        let text = output.to_string();
        let drg = Arc::new(drg);
        // Deploying decisions alone starts nothing, so it cannot hit the step limit.
        let _ = self.deploy_models(
            Vec::new(),
            &[DmnResource {
                name: &name,
                text: &text,
                drg: &drg,
            }],
            Vec::new(),
        );
    }

    /// Finds the decision a business rule task calls, by its binding type.
    pub(crate) fn called_decision(
        &self,
        decision_id: &str,
        def: &DecisionDef,
        scope: Key,
        proc: ProcIdx,
    ) -> Result<DecisionIdx, StepFailure> {
        let not_found = || {
            StepFailure::new(
                ErrorType::CalledDecisionError,
                format!(
                    "Expected to evaluate decision '{decision_id}', but no decision found for id '{decision_id}'"
                ),
            )
        };
        match def.binding_type.as_deref() {
            Some("deployment") => {
                let deployment_key = self.process(proc).deployment_key;
                self.deployed.decisions
                    .decisions
                    .iter()
                    .rposition(|d| &*d.id == decision_id && d.deployment_key == deployment_key)
                    .map(|i| DecisionIdx(i as u32))
                    .ok_or_else(|| {
                        StepFailure::new(
                            ErrorType::CalledDecisionError,
                            format!(
                                "Expected to evaluate decision '{decision_id}' with binding type 'deployment', but no such decision found in the deployment with key {deployment_key} which contained the current process. To resolve this incident, migrate the process instance to a process definition that is deployed together with the intended decision to evaluate."
                            ),
                        )
                    })
            }
            Some("versionTag") => {
                let tag = match &def.version_tag {
                    Some(expr) => self
                        .eval_string(expr, scope)
                        .map_err(|f| StepFailure::new(ErrorType::CalledDecisionError, f.message))?,
                    None => String::new(),
                };
                self.deployed.decisions
                    .decisions
                    .iter()
                    .rposition(|d| &*d.id == decision_id && d.version_tag.as_deref() == Some(&tag))
                    .map(|i| DecisionIdx(i as u32))
                    .ok_or_else(|| {
                        StepFailure::new(
                            ErrorType::CalledDecisionError,
                            format!(
                                "Expected to evaluate decision with id '{decision_id}' and version tag '{tag}', but no such decision found. To resolve this incident, deploy a decision with the given id and version tag."
                            ),
                        )
                    })
            }
            _ => self
                .deployed
                .decisions
                .latest(decision_id)
                .ok_or_else(not_found),
        }
    }

    /// Evaluates a deployed decision against a variable lookup, at the engine clock.
    pub(crate) fn run_decision(
        &self,
        decision: DecisionIdx,
        lookup: &dyn Fn(&str) -> Option<Value>,
    ) -> dmn::Evaluation {
        let deployed = self.deployed.decisions.decision(decision);
        let drg = &self.deployed.decisions.drg(deployed.drg).model;
        let now = jiff::Timestamp::from_millisecond(self.now)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let vars = CachedVars::new(VarsFn(lookup));
        let env = Env {
            seed: self.next_feel_seed(),
            ..Env::at(now)
        };
        dmn::evaluate(drg, &deployed.id, &vars, &env)
    }

    /// Writes the `DECISION_EVALUATION` record of an evaluation; returns its key.
    pub(crate) fn write_decision_evaluation(
        &mut self,
        decision: DecisionIdx,
        evaluation: dmn::Evaluation,
        instance: Option<(ProcIdx, Key, ElementIdx, Key)>,
    ) -> (Key, Arc<DecisionValueParts>) {
        let key = self.new_key();
        let deployed = self.deployed.decisions.decision(decision);
        let decision_id = deployed.id.clone();
        let matched_rules: Vec<u32> = evaluation
            .evaluated_decisions
            .iter()
            .rev()
            .find(|d| d.decision_id == decision_id)
            .map(|d| d.matched_rules.iter().map(|r| r.rule_index).collect())
            .unwrap_or_default();
        let output = evaluation.output_json();
        let (failure_message, failed_decision_id, intent) = match &evaluation.result {
            Ok(_) => (None, None, OtherIntent::Evaluated),
            Err(failure) => (
                Some(Arc::from(failure.message.as_str())),
                Some(failure.failed_decision_id.clone()),
                OtherIntent::Failed,
            ),
        };
        let evaluated_decisions = Arc::new(evaluation.evaluated_decisions);
        let parts = Arc::new(DecisionValueParts {
            output: output.clone(),
            matched_rules: matched_rules.clone(),
            failure_message: failure_message.clone(),
            evaluated_decisions: evaluated_decisions.clone(),
        });
        let value = DecisionValue {
            decision_id,
            decision: Some(decision),
            proc: instance.map(|i| i.0),
            process_instance_key: instance.map(|i| i.1),
            element: instance.map(|i| i.2),
            element_instance_key: instance.map(|i| i.3),
            output: Arc::new(output),
            matched_rules: Arc::new(matched_rules),
            failure_message,
            failed_decision_id,
            evaluated_decisions,
        };
        self.event(
            ValueType::DecisionEvaluation,
            intent,
            Some(key),
            RecordValue::DecisionEvaluation(Box::new(value)),
        );
        (key, parts)
    }

    /// Carries out the command of [`Engine::evaluate_decision`].
    pub(crate) fn apply_evaluate_decision(
        &mut self,
        decision_id: &str,
        variables: VariableDocument,
    ) -> Result<DecisionOutcome, Rejection> {
        if decision_id.is_empty() {
            return Err(self.reject_evaluation(
                decision_id,
                RejectionType::InvalidArgument,
                "Expected either a decision id or a valid decision key, but none provided"
                    .to_owned(),
            ));
        }
        let Some(decision) = self.deployed.decisions.latest(decision_id) else {
            return Err(self.reject_evaluation(
                decision_id,
                RejectionType::NotFound,
                format!(
                    "Expected to evaluate decision '{decision_id}', but no decision found for id '{decision_id}'"
                ),
            ));
        };
        let evaluation = {
            let lookup = |name: &str| variables.get(name).map(Value::from_json);
            self.run_decision(decision, &lookup)
        };
        let (key, parts) = self.write_decision_evaluation(decision, evaluation, None);
        let deployed = self.deployed.decisions.decision(decision);
        Ok(DecisionOutcome {
            key,
            decision_id: deployed.id.to_string(),
            decision_version: deployed.version,
            output: parts.output.clone(),
            matched_rules: parts.matched_rules.clone(),
            failure_message: parts.failure_message.as_deref().map(str::to_owned),
            evaluated_decisions: parts.evaluated_decisions.to_vec(),
        })
    }

    fn reject_evaluation(
        &mut self,
        decision_id: &str,
        rejection_type: RejectionType,
        message: String,
    ) -> Rejection {
        let value = DecisionValue {
            decision_id: Arc::from(decision_id),
            decision: None,
            proc: None,
            process_instance_key: None,
            element: None,
            element_instance_key: None,
            output: Arc::new(Json::Null),
            matched_rules: Arc::new(Vec::new()),
            failure_message: None,
            failed_decision_id: None,
            evaluated_decisions: Arc::new(Vec::new()),
        };
        self.reject(
            ValueType::DecisionEvaluation,
            Intent::Other(OtherIntent::Evaluate),
            None,
            RecordValue::DecisionEvaluation(Box::new(value)),
            Rejection::new(rejection_type, message),
        )
    }

    /// Every decision instance (each evaluated decision of each `DECISION_EVALUATION` event), in
    /// log order: what CPT's `ASSERT_DECISION` selects from (by decision id or name).
    pub fn decision_instances(&self) -> Vec<DecisionInstanceView<'_>> {
        let mut out = Vec::new();
        for record in &self.log.records {
            let RecordValue::DecisionEvaluation(value) = &record.value else {
                continue;
            };
            if record.record_type != RecordType::Event {
                continue;
            }
            let key = record.key.unwrap_or_default();
            let drg = value
                .decision
                .map(|d| self.deployed.decisions.decision(d).drg);
            let element_id = match (value.proc, value.element) {
                (Some(p), Some(e)) => Some(&*self.process(p).element(e).id),
                _ => None,
            };
            let count = value.evaluated_decisions.len();
            for (i, evaluated) in value.evaluated_decisions.iter().enumerate() {
                let deployed = drg.and_then(|drg| {
                    self.deployed
                        .decisions
                        .decisions
                        .iter()
                        .find(|d| d.drg == drg && d.id == evaluated.decision_id)
                });
                let failed = value.failure_message.is_some() && i + 1 == count;
                out.push(DecisionInstanceView {
                    key: format!("{key}-{}", i + 1),
                    evaluation_key: key,
                    position: record.position,
                    decision_id: &evaluated.decision_id,
                    decision_name: &evaluated.decision_name,
                    decision_key: deployed.map(|d| d.key),
                    decision_version: deployed.map(|d| d.version),
                    decision_type: evaluated.decision_type,
                    failed,
                    failure_message: if failed {
                        value.failure_message.as_deref()
                    } else {
                        None
                    },
                    output: &evaluated.output,
                    evaluated_inputs: &evaluated.evaluated_inputs,
                    matched_rules: &evaluated.matched_rules,
                    root_decision_id: &value.decision_id,
                    process_instance_key: value.process_instance_key,
                    element_instance_key: value.element_instance_key,
                    element_id,
                });
            }
        }
        out
    }

    /// The decision instances of one process instance (evaluated by its business rule tasks).
    pub fn decision_instances_of(
        &self,
        process_instance_key: Key,
    ) -> Vec<DecisionInstanceView<'_>> {
        self.decision_instances()
            .into_iter()
            .filter(|d| d.process_instance_key == Some(process_instance_key))
            .collect()
    }

    /// The decision instances of a decision, selected as CPT's `DecisionSelector` does: by id,
    /// by name, or both (all given fields must match).
    pub fn find_decision_instances(
        &self,
        decision_id: Option<&str>,
        decision_name: Option<&str>,
    ) -> Vec<DecisionInstanceView<'_>> {
        self.decision_instances()
            .into_iter()
            .filter(|d| decision_id.is_none_or(|id| d.decision_id == id))
            .filter(|d| decision_name.is_none_or(|name| d.decision_name == name))
            .collect()
    }

    /// The `value` of a `DECISION_EVALUATION` record as Zeebe's exporters write it.
    pub(crate) fn decision_record_json(
        &self,
        key: Option<Key>,
        d: &DecisionValue,
    ) -> Map<String, Json> {
        let mut value = Map::new();
        let deployed = d.decision.map(|idx| self.deployed.decisions.decision(idx));
        let drg_idx = deployed.map(|dec| dec.drg);
        let drg = drg_idx.map(|idx| self.deployed.decisions.drg(idx));
        value.insert(
            "decisionKey".into(),
            json!(deployed.map_or(-1, |x| x.key as i64)),
        );
        value.insert("decisionId".into(), json!(&*d.decision_id));
        value.insert(
            "decisionName".into(),
            json!(deployed.map_or("", |x| &*x.name)),
        );
        value.insert(
            "decisionVersion".into(),
            json!(deployed.map_or(-1, |x| x.version)),
        );
        value.insert(
            "decisionRequirementsId".into(),
            json!(drg.map_or("", |x| &*x.id)),
        );
        value.insert(
            "decisionRequirementsKey".into(),
            json!(drg.map_or(-1, |x| x.key as i64)),
        );
        value.insert(
            "decisionOutput".into(),
            json!(if d.failure_message.is_some() {
                String::new()
            } else {
                d.output.to_string()
            }),
        );
        let (process, element_id) = match (d.proc, d.element) {
            (Some(p), Some(e)) => {
                let p = self.process(p);
                (Some(p), Some(p.element(e).id.clone()))
            }
            _ => (None, None),
        };
        value.insert(
            "bpmnProcessId".into(),
            json!(process.map_or("", |p| &*p.bpmn_process_id)),
        );
        value.insert(
            "processDefinitionKey".into(),
            json!(process.map_or(-1, |p| p.key as i64)),
        );
        value.insert(
            "processInstanceKey".into(),
            json!(d.process_instance_key.map_or(-1, |k| k as i64)),
        );
        value.insert(
            "elementId".into(),
            json!(element_id.as_deref().unwrap_or("")),
        );
        value.insert(
            "elementInstanceKey".into(),
            json!(d.element_instance_key.map_or(-1, |k| k as i64)),
        );
        let evaluated: Vec<Json> = d
            .evaluated_decisions
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let deployed = self
                    .deployed.decisions
                    .decisions
                    .iter()
                    .find(|x| Some(x.drg) == drg_idx && x.id == e.decision_id);
                json!({
                    "decisionId": &*e.decision_id,
                    "decisionName": &*e.decision_name,
                    "decisionKey": deployed.map_or(-1, |x| x.key as i64),
                    "decisionVersion": deployed.map_or(-1, |x| x.version),
                    "decisionType": e.decision_type.as_str(),
                    "decisionOutput": e.output.to_string(),
                    "decisionEvaluationInstanceKey": format!("{}-{}", key.unwrap_or_default(), i + 1),
                    "evaluatedInputs": e.evaluated_inputs.iter().map(|input| json!({
                        "inputId": &*input.input_id,
                        "inputName": &*input.input_name,
                        "inputValue": input.input_value.to_string(),
                    })).collect::<Vec<_>>(),
                    "matchedRules": e.matched_rules.iter().map(|rule| json!({
                        "ruleId": rule_id(&e.decision_id, deployed.map_or(-1, |x| x.version), rule),
                        "ruleIndex": rule.rule_index,
                        "evaluatedOutputs": rule.evaluated_outputs.iter().map(|output| json!({
                            "outputId": &*output.output_id,
                            "outputName": output.output_name.as_deref().unwrap_or(""),
                            "outputValue": output.output_value.to_string(),
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        value.insert("evaluatedDecisions".into(), Json::Array(evaluated));
        value.insert(
            "evaluationFailureMessage".into(),
            json!(d.failure_message.as_deref().unwrap_or("")),
        );
        value.insert(
            "failedDecisionId".into(),
            json!(d.failed_decision_id.as_deref().unwrap_or("")),
        );
        value
    }
}

/// A rule's id, or the surrogate Zeebe synthesizes for a rule without one
/// (`ZB_SYNTH_RULE_ID_<decision>_v<version>_r<index>`).
pub fn rule_id(decision_id: &str, version: i32, rule: &dmn::MatchedRule) -> String {
    if rule.rule_id.trim().is_empty() {
        format!(
            "ZB_SYNTH_RULE_ID_{decision_id}_v{version}_r{}",
            rule.rule_index
        )
    } else {
        rule.rule_id.to_string()
    }
}

/// What a written evaluation produced, for the caller.
pub(crate) struct DecisionValueParts {
    pub output: Json,
    pub matched_rules: Vec<u32>,
    pub failure_message: Option<Arc<str>>,
    pub evaluated_decisions: Arc<Vec<EvaluatedDecision>>,
}
