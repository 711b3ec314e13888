//! One case on the endpoint: its folder's resources deployed, its instructions run in order
//! (the first failure ends it, as in CPT), then the endpoint cleaned: the clock reset and the
//! cluster purged where the management routes exist, else the case's own instances cancelled
//! and its resources deleted (as CPT's data deletion does).

use std::path::PathBuf;

use baton_cpt::model::{Instruction, TestCase};
use baton_cpt::{CaseFailure, Outcome};
use baton_rest::Key;
use baton_rest::deployments::DeploymentResult;
use serde_json::{Value, json};

use super::RemoteOptions;
use super::observe::Observation;
use super::session::Session;
use crate::client::{CallError, Client};
use crate::poll::{Attempt, poll};

/// What an instruction that did not fail did.
pub(super) enum Done {
    Ok,
    /// A check the endpoint cannot make: the case goes on, and counts as skipped.
    SkipCheck(String),
    /// An instruction that would change the run but cannot be expressed: the case stops here
    /// and counts as skipped (what follows would test something else).
    SkipCase(String),
}

/// The endpoint across cases: what it turned out to serve.
pub(super) struct Endpoint<'a> {
    client: &'a Client,
    options: &'a RemoteOptions,
    /// Whether `/actuator/cluster/purge` is served (unknown until tried).
    purge: Option<bool>,
}

/// The suite's resources read: (file name, bytes).
pub(super) fn read_resources(paths: &[PathBuf]) -> Result<Vec<(String, Vec<u8>)>, String> {
    paths
        .iter()
        .map(|p| {
            std::fs::read(p)
                .map(|bytes| {
                    let name = p.file_name().map_or_else(
                        || p.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    );
                    (name, bytes)
                })
                .map_err(|e| format!("cannot read {}: {e}", p.display()))
        })
        .collect()
}

impl<'a> Endpoint<'a> {
    pub(super) fn new(client: &'a Client, options: &'a RemoteOptions) -> Self {
        Endpoint {
            client,
            options,
            purge: None,
        }
    }

    /// Runs one case: its outcome, warnings, and (when `observe`) what it left on the endpoint.
    pub(super) fn run_case(
        &mut self,
        resources: &[(String, Vec<u8>)],
        case: &TestCase,
        observe: bool,
    ) -> (Outcome, Vec<String>, Option<Result<Observation, String>>) {
        let mut warnings = Vec::new();
        let mut observed = None;
        let bpmn: Vec<(String, Vec<u8>)> = resources
            .iter()
            .filter(|(n, _)| n.ends_with(".bpmn"))
            .cloned()
            .collect();
        let deployed = if resources.is_empty() {
            Ok(None)
        } else {
            self.client.deploy(resources).map(Some)
        };
        let outcome = match &deployed {
            Err(e) => Outcome::Failed(CaseFailure {
                instruction: None,
                instruction_type: None,
                message: format!("the resources do not deploy: {e}"),
                explanation: String::new(),
            }),
            Ok(_) => {
                // A cluster purged before this case is the run's alone: its reads need no scope.
                let scoped = self.purge != Some(true);
                let session = Session::new(self.client, self.options.assert_timeout, &bpmn, scoped);
                let outcome = run_steps(&session, case, &mut warnings);
                if observe {
                    observed = Some(super::observe::observe(&session));
                }
                if let Err(e) =
                    self.clean_up(&session, deployed.as_ref().ok().and_then(|d| d.as_ref()))
                {
                    warnings.push(format!("the endpoint was not cleaned after the case: {e}"));
                }
                outcome
            }
        };
        (outcome, warnings, observed)
    }

    /// The clock back to the wall clock; then everything purged, or the case's own data
    /// deleted.
    fn clean_up(
        &mut self,
        session: &Session<'_>,
        deployment: Option<&DeploymentResult>,
    ) -> Result<(), String> {
        if session.clock_moved.get() {
            reset_clock(self.client);
        }
        if self.purge != Some(false) {
            match purge(self.client, self.options) {
                Ok(()) => {
                    self.purge = Some(true);
                    return Ok(());
                }
                Err(e) if e.not_served() => self.purge = Some(false),
                Err(e) => return Err(e.to_string()),
            }
        }
        for key in session.created.borrow().iter() {
            match self.client.call_text(
                "POST",
                &format!("/v2/process-instances/{key}/cancellation"),
                None::<&()>,
            ) {
                // Already ended (404) or ending (409): nothing to do.
                Ok(_)
                | Err(CallError::Status {
                    status: 404 | 409, ..
                }) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        for key in deployment.map(resource_keys).unwrap_or_default() {
            match self.client.call_text(
                "POST",
                &format!("/v2/resources/{key}/deletion"),
                None::<&()>,
            ) {
                Ok(_) | Err(CallError::Status { status: 404, .. }) => {}
                Err(e) if e.not_served() => {
                    return Err(format!(
                        "the endpoint neither purges nor deletes resources ({e}); the case's definitions stay deployed"
                    ));
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(())
    }
}

fn resource_keys(d: &DeploymentResult) -> Vec<Key> {
    d.deployments
        .iter()
        .filter_map(|m| {
            m.process_definition
                .as_ref()
                .map(|p| p.process_definition_key)
                .or(m
                    .decision_requirements
                    .as_ref()
                    .map(|r| r.decision_requirements_key))
                .or(m.form.as_ref().map(|f| f.form_key))
                .or(m.resource.as_ref().map(|r| r.resource_key))
        })
        .collect()
}

/// `DELETE /actuator/clock`, else `POST /v2/clock/reset`; an endpoint with neither has a clock
/// no case could move.
fn reset_clock(client: &Client) {
    if client
        .call_text("DELETE", "/actuator/clock", None::<&()>)
        .is_err()
    {
        let _ = client.call_text("POST", "/v2/clock/reset", None::<&()>);
    }
}

/// `POST /actuator/cluster/purge`, then `GET /actuator/cluster` until the change completed.
fn purge(client: &Client, options: &RemoteOptions) -> Result<(), CallError> {
    let started: Value = client.call("POST", "/actuator/cluster/purge", None::<&()>)?;
    let change = started.get("changeId").and_then(Value::as_i64).unwrap_or(0);
    poll(
        options
            .assert_timeout
            .max(std::time::Duration::from_secs(30)),
        || match client.call::<Value>("GET", "/actuator/cluster", None::<&()>) {
            Ok(cluster) => {
                let last = &cluster["lastChange"];
                let done = last["id"].as_i64().is_some_and(|id| id >= change)
                    && last["status"] == json!("COMPLETED")
                    && cluster["pendingChange"].is_null();
                if done {
                    Attempt::Done(())
                } else {
                    Attempt::Retry(CallError::Decode {
                        method: "GET",
                        path: "/actuator/cluster".into(),
                        message: format!("the purge (change {change}) did not complete: {cluster}"),
                    })
                }
            }
            Err(e) => Attempt::Retry(e),
        },
    )
}

/// The instructions in order, until the first failure or a skip that ends the case.
fn run_steps(session: &Session<'_>, case: &TestCase, warnings: &mut Vec<String>) -> Outcome {
    let mut skipped: Vec<String> = Vec::new();
    for (i, step) in case.instructions.iter().enumerate() {
        let type_name = step.instruction.type_name();
        let result = run_step(session, &step.instruction, warnings).and_then(|done| {
            // The workers answer what the instruction started before the next one runs.
            session.pump().map(|()| done)
        });
        match result {
            Ok(Done::Ok) => {}
            Ok(Done::SkipCheck(reason)) => {
                skipped.push(format!("instruction {} ({type_name}): {reason}", i + 1));
            }
            Ok(Done::SkipCase(reason)) => {
                skipped.push(format!(
                    "instruction {} ({type_name}): {reason}; the case stops here",
                    i + 1
                ));
                break;
            }
            Err(message) => {
                return Outcome::Failed(CaseFailure {
                    instruction: Some(i + 1),
                    instruction_type: Some(type_name.to_owned()),
                    message,
                    explanation: session.explain(),
                });
            }
        }
    }
    if skipped.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Skipped {
            reason: skipped.join("; "),
        }
    }
}

/// One instruction.
fn run_step(
    session: &Session<'_>,
    instruction: &Instruction,
    warnings: &mut Vec<String>,
) -> Result<Done, String> {
    if let Some(result) = super::checks::run_check(session, instruction) {
        return result;
    }
    super::actions::run_action(session, instruction, warnings)
}
