//! Deployments: resources are checked and compiled all or nothing under one deployment key;
//! each process becomes the latest version of its BPMN process id, and the start events that
//! wait for an event (message, timer, signal, condition) move to the latest version.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::model;
use crate::model::ElementIdx;
use crate::runtime::behaviors::decisions::DmnResource;
use crate::runtime::command::DeploymentInfo;
use crate::runtime::compile::compiler::CompileInput;
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::compile::expr::Expr;
use crate::runtime::compile::process::ExecutableProcess;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    Key, OtherIntent, ProcIdx, RecordValue, Rejection, RejectionType, ValueType,
};

impl Engine {
    /// Carries out the command of [`Engine::deploy`].
    pub(crate) fn apply_deploy(
        &mut self,
        resources: &[crate::deploy::Resource],
    ) -> Result<DeploymentInfo, Rejection> {
        // `.form` resources are forms (JSON); the others go through the BPMN or DMN checks.
        let is_form = |r: &crate::deploy::Resource| r.name.ends_with(".form");
        let mut forms = Vec::new();
        for r in resources.iter().filter(|r| is_form(r)) {
            let (id, tag) = crate::runtime::behaviors::forms::parse_form(&r.name, r.content())?;
            forms.push((r.name.clone(), id, tag));
        }
        // Without forms the resources are checked as given, not copied.
        let others: Vec<crate::deploy::Resource>;
        let resources = if forms.is_empty() {
            resources
        } else {
            others = resources.iter().filter(|r| !is_form(r)).cloned().collect();
            &others
        };
        let mut checked = if resources.is_empty() {
            Vec::new()
        } else {
            crate::deploy::check(resources).map_err(|d| {
                Rejection::new(
                    RejectionType::InvalidArgument,
                    format!(
                        "Expected to deploy new resources, but encountered the following errors:\n{d}"
                    ),
                )
            })?
        };
        // The checked models are not needed after this: compiling takes them over rather than
        // copying them.
        let mut owned: Vec<model::Definitions> = checked
            .iter_mut()
            .filter_map(|r| match &mut r.model {
                crate::deploy::DeployedModel::Bpmn(definitions) => {
                    Some(std::mem::take(&mut **definitions))
                }
                crate::deploy::DeployedModel::Dmn(_) => None,
            })
            .collect();
        let bpmn: Vec<(&str, model::Definitions)> = checked
            .iter()
            .filter(|r| r.definitions().is_some())
            .map(|r| r.source.name())
            .zip(owned.drain(..))
            .collect();
        let dmn: Vec<DmnResource<'_>> = checked
            .iter()
            .filter_map(|r| {
                r.drg().map(|drg| DmnResource {
                    name: r.source.name(),
                    text: r.source.text(),
                    drg,
                })
            })
            .collect();
        self.deploy_models(bpmn, &dmn, forms)
    }

    /// Deploys one BPMN text (see [`Engine::deploy`]).
    pub fn deploy_xml(&mut self, name: &str, xml: &str) -> Result<DeploymentInfo, Rejection> {
        self.deploy(&[crate::deploy::Resource::from_text(name, xml)])
    }

    /// Deploys the processes of a parsed definitions document. Each process becomes the latest
    /// version of its BPMN process id.
    pub fn deploy_definitions(
        &mut self,
        resource_name: &str,
        definitions: &model::Definitions,
    ) -> Result<DeploymentInfo, Rejection> {
        // A model built in code has no resource a replay could deploy.
        self.record_unreplayable();
        self.deploy_models(vec![(resource_name, definitions.clone())], &[], Vec::new())
    }

    /// Deploys checked models as one deployment: forms first (so the processes find them), then
    /// processes (`PROCESS CREATED`), then decision requirements graphs (`DECISION_REQUIREMENTS
    /// CREATED`, `DECISION CREATED`), then `DEPLOYMENT CREATED`.
    pub(crate) fn deploy_models(
        &mut self,
        bpmn: Vec<(&str, model::Definitions)>,
        dmn: &[DmnResource<'_>],
        forms: Vec<(String, String, Option<String>)>,
    ) -> Result<DeploymentInfo, Rejection> {
        for (resource_name, definitions) in &bpmn {
            if !definitions.processes.iter().any(|p| p.is_executable) {
                return Err(Rejection::new(
                    RejectionType::InvalidArgument,
                    format!(
                        "Expected to deploy at least one executable process, but '{resource_name}' has none"
                    ),
                ));
            }
        }
        // Unchanged DMN resources alone are a duplicate deployment: no new versions.
        let duplicates_only = bpmn.is_empty() && forms.is_empty() && self.dmn_duplicates_only(dmn);
        let deployment_key = self.new_key();
        for (name, id, tag) in forms {
            self.deploy_form(&name, id, tag, deployment_key);
        }
        // Compile everything first: a deployment is all or nothing.
        let mut compiled = Vec::new();
        for (resource_name, mut definitions) in bpmn {
            let processes = std::mem::take(&mut definitions.processes);
            for process in processes.into_iter().filter(|p| p.is_executable) {
                let version = self
                    .deployed
                    .latest
                    .get(process.id.as_str())
                    .map(|p| self.process(*p).version + 1)
                    .unwrap_or(1);
                let key = self.new_key();
                let exe = crate::runtime::compile::compiler::compile(
                    CompileInput {
                        definitions: &mut definitions,
                        process,
                    },
                    key,
                    version,
                    deployment_key,
                    resource_name,
                )
                .map_err(|e| {
                    Rejection::new(
                        RejectionType::InvalidArgument,
                        format!("Expected to deploy new resources, but encountered the following errors:\n'{resource_name}': {e}"),
                    )
                })?;
                compiled.push(exe);
            }
        }
        let mut info = DeploymentInfo {
            deployment_key,
            processes: Vec::new(),
            decision_requirements: Vec::new(),
            decisions: Vec::new(),
        };
        let mut replaced = Vec::new();
        for exe in compiled {
            let idx = ProcIdx(self.deployed.processes.len() as u32);
            info.processes
                .push((exe.bpmn_process_id.to_string(), exe.version, exe.key));
            let key = exe.key;
            let previous = self
                .deployed
                .latest
                .insert(exe.bpmn_process_id.clone(), idx);
            replaced.push((previous, idx));
            self.deployed.processes.push(Arc::new(exe));
            self.event(
                ValueType::Process,
                OtherIntent::Created,
                Some(key),
                RecordValue::Process(idx),
            );
        }
        let mut first_drg = None;
        if !duplicates_only {
            let deployed = self.deploy_drgs(dmn, deployment_key);
            info.decision_requirements = deployed.drgs;
            info.decisions = deployed.decisions;
            first_drg = deployed.first_drg;
        }
        if let Some(&(_, _, first)) = info.processes.first() {
            let idx = self.latest_by_key(first);
            self.event(
                ValueType::Deployment,
                OtherIntent::Created,
                Some(deployment_key),
                RecordValue::Process(idx),
            );
        } else if let Some(drg) = first_drg {
            self.event(
                ValueType::Deployment,
                OtherIntent::Created,
                Some(deployment_key),
                RecordValue::DecisionRequirements(drg),
            );
        }
        // Start events that wait for an event belong to the latest version only.
        let start = self.begin();
        for (previous, idx) in replaced {
            self.open_start_event_subscriptions(previous, idx);
        }
        self.run(start)?;
        Ok(info)
    }

    /// Replaces the start event subscriptions (message, timer, signal) of the version `previous`
    /// with those of the new latest version `proc`.
    fn open_start_event_subscriptions(&mut self, previous: Option<ProcIdx>, proc: ProcIdx) {
        self.open_message_start_subscriptions(previous, proc);
        self.open_signal_start_subscriptions(previous, proc);
        self.open_timer_start_events(previous, proc);
        self.open_conditional_start_subscriptions(previous, proc);
    }

    /// The start events of `proc` that wait for a named event, with their names: `name_of`
    /// picks the name of the events of one kind (message or signal) from a definition. The
    /// names are evaluated at deployment, without variables; an expression that does not give
    /// a string stands for its text.
    pub(crate) fn named_start_events(
        &self,
        proc: ProcIdx,
        name_of: fn(&EventDef) -> Option<&Option<Expr>>,
    ) -> Vec<(ElementIdx, Arc<str>)> {
        let p = self.process(proc);
        let mut named = Vec::new();
        for &e in &p.event_start_events {
            let Some(name) = name_of(&p.element(e).event) else {
                continue;
            };
            let name = match name {
                Some(x) => match self.eval(x, 0, None) {
                    Ok(Json::String(s)) => s,
                    _ => x.text(),
                },
                None => String::new(),
            };
            named.push((e, Arc::from(name.as_str())));
        }
        named
    }

    fn latest_by_key(&self, key: Key) -> ProcIdx {
        ProcIdx(
            self.deployed
                .processes
                .iter()
                .position(|p| p.key == key)
                .unwrap_or_default() as u32,
        )
    }

    /// The deployed process with this BPMN process id (latest version).
    pub fn latest_process(&self, bpmn_process_id: &str) -> Option<&ExecutableProcess> {
        self.deployed
            .latest
            .get(bpmn_process_id)
            .map(|i| &**self.process(*i))
    }

    /// All deployed process versions, in deployment order.
    pub fn deployed_processes(&self) -> impl Iterator<Item = &ExecutableProcess> {
        self.deployed.processes.iter().map(|p| &**p)
    }
}
