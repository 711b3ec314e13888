//! `POST /v2/decision-definitions/evaluation`: a decision evaluated without a process instance
//! (latest version by id, or by key), answered with every evaluated decision, the matched rules
//! and the inputs; values as JSON text.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{StatusCode, Uri};
use axum::routing::post;
use baton_engine::runtime::{Rejection, RejectionType};
use baton_rest::{DEFAULT_TENANT, Key};
use serde_json::{Value, json};

use super::{ApiError, ApiResult, AppState, OrGone, json as answer_json, read_body, variables};
use crate::core::Core;

pub(super) fn routes() -> Router<AppState> {
    Router::new().route("/v2/decision-definitions/evaluation", post(evaluate))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EvaluationRequest {
    #[serde(default)]
    decision_definition_id: Option<String>,
    #[serde(default)]
    decision_definition_key: Option<Key>,
    #[serde(default)]
    variables: Option<baton_rest::Variables>,
    #[serde(default)]
    tenant_id: Option<String>,
}

async fn evaluate(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: EvaluationRequest = read_body(body, &uri, None)?;
    super::process_instances::check_tenant(request.tenant_id.as_deref(), &uri)?;
    if request.decision_definition_id.is_none() && request.decision_definition_key.is_none() {
        return Err(ApiError::bad_request(
            "At least one of [decisionDefinitionId, decisionDefinitionKey] is required",
            &uri,
        ));
    }
    let answer = state
        .core
        .call(move |core| evaluate_now(core, request))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("EVALUATE", &r, &uri))?;
    Ok(answer_json(StatusCode::OK, &answer))
}

fn evaluate_now(core: &mut Core, request: EvaluationRequest) -> Result<Value, Rejection> {
    let id = match (
        request.decision_definition_key,
        request.decision_definition_id,
    ) {
        (Some(key), _) => core
            .engine(|e| {
                e.deployed_decisions()
                    .iter()
                    .find(|d| d.key == key.0)
                    .map(|d| d.id.to_string())
            })
            .ok_or_else(|| {
                Rejection::new(
                    RejectionType::NotFound,
                    format!(
                        "Expected to evaluate decision with key '{key}', but no such decision found"
                    ),
                )
            })?,
        (None, Some(id)) => id,
        (None, None) => unreachable!("checked before"),
    };
    let vars = variables(request.variables);
    let outcome = core.act(|e| e.evaluate_decision(&id, vars))?;
    Ok(core.engine(|engine| {
        let version_of = |decision_id: &str| {
            engine
                .deployed_decisions()
                .iter()
                .rev()
                .find(|d| &*d.id == decision_id)
                .cloned()
        };
        let called = version_of(&outcome.decision_id);
        let drg = called.as_ref().map(|d| &engine.deployed_drgs()[d.drg.0 as usize]);
        let evaluated: Vec<Value> = outcome
            .evaluated_decisions
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let deployed = version_of(&d.decision_id);
                json!({
                    "decisionDefinitionId": &*d.decision_id,
                    "decisionDefinitionName": &*d.decision_name,
                    "decisionDefinitionVersion": deployed.as_ref().map_or(0, |x| x.version),
                    "decisionDefinitionType": d.decision_type.as_str(),
                    "output": d.output.to_string(),
                    "tenantId": DEFAULT_TENANT,
                    "matchedRules": d.matched_rules.iter().map(|r| json!({
                        "ruleId": &*r.rule_id,
                        "ruleIndex": r.rule_index,
                        "evaluatedOutputs": r.evaluated_outputs.iter().map(|o| json!({
                            "outputId": &*o.output_id,
                            "outputName": o.output_name.as_deref().unwrap_or_default(),
                            "outputValue": o.output_value.to_string(),
                            "ruleId": &*r.rule_id,
                            "ruleIndex": r.rule_index,
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "evaluatedInputs": d.evaluated_inputs.iter().map(|input| json!({
                        "inputId": &*input.input_id,
                        "inputName": &*input.input_name,
                        "inputValue": input.input_value.to_string(),
                    })).collect::<Vec<_>>(),
                    "decisionDefinitionKey": deployed.as_ref().map_or(String::new(), |x| x.key.to_string()),
                    "decisionEvaluationInstanceKey": format!("{}-{}", outcome.key, i + 1),
                })
            })
            .collect();
        json!({
            "decisionDefinitionId": outcome.decision_id,
            "decisionDefinitionKey": called.as_ref().map_or(String::new(), |d| d.key.to_string()),
            "decisionDefinitionName": called.as_ref().map_or(String::new(), |d| d.name.to_string()),
            "decisionDefinitionVersion": outcome.decision_version,
            "decisionEvaluationKey": outcome.key.to_string(),
            "decisionInstanceKey": outcome.key.to_string(),
            "decisionRequirementsId": drg.map_or(String::new(), |d| d.id.to_string()),
            "decisionRequirementsKey": drg.map_or(String::new(), |d| d.key.to_string()),
            "evaluatedDecisions": evaluated,
            "failedDecisionDefinitionId": outcome.failure_message.as_ref().map(|_| outcome.evaluated_decisions.last().map(|d| d.decision_id.to_string())),
            "failureMessage": outcome.failure_message,
            "output": outcome.output.to_string(),
            "tenantId": DEFAULT_TENANT,
        })
    }))
}
