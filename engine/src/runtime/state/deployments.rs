//! What is deployed: processes (every version, the latest per BPMN process id), decision
//! requirements graphs, decisions and forms.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::dmn::Drg;
use crate::runtime::compile::process::ExecutableProcess;
use crate::runtime::records::{DecisionIdx, DrgIdx, Key, ProcIdx};

/// One deployed version of a decision requirements graph (a `.dmn` resource).
#[derive(Debug, Clone)]
pub struct DeployedDrg {
    pub key: Key,
    /// `definitions@id`.
    pub id: Arc<str>,
    pub name: Arc<str>,
    pub version: i32,
    pub resource_name: Arc<str>,
    pub deployment_key: Key,
    pub model: Arc<Drg>,
    /// The resource text: a resource deployed again unchanged is a duplicate, not a new version.
    pub(crate) text: Arc<str>,
}

/// One deployed version of a decision.
#[derive(Debug, Clone)]
pub struct DeployedDecision {
    pub key: Key,
    pub id: Arc<str>,
    pub name: Arc<str>,
    pub version: i32,
    pub version_tag: Option<Arc<str>>,
    pub drg: DrgIdx,
    /// The decision's index in its DRG.
    pub index: usize,
    pub deployment_key: Key,
}

/// Every deployed DRG and decision version, with the latest version of each id.
#[derive(Debug, Clone, Default)]
pub(crate) struct DecisionStore {
    pub drgs: Vec<DeployedDrg>,
    pub decisions: Vec<DeployedDecision>,
    pub(crate) latest_drg: BTreeMap<Arc<str>, DrgIdx>,
    pub(crate) latest: BTreeMap<Arc<str>, DecisionIdx>,
}

impl DecisionStore {
    pub fn drg(&self, idx: DrgIdx) -> &DeployedDrg {
        &self.drgs[idx.0 as usize]
    }

    pub fn decision(&self, idx: DecisionIdx) -> &DeployedDecision {
        &self.decisions[idx.0 as usize]
    }

    pub(crate) fn latest(&self, id: &str) -> Option<DecisionIdx> {
        self.latest.get(id).copied()
    }
}

/// A deployed form version.
#[derive(Debug, Clone)]
pub struct DeployedForm {
    pub key: Key,
    pub form_id: Arc<str>,
    pub version: i32,
    pub version_tag: Option<Arc<str>>,
    pub deployment_key: Key,
    pub resource_name: Arc<str>,
}

/// Everything deployed, every version.
#[derive(Debug, Clone, Default)]
pub(crate) struct Deployments {
    /// Processes in deployment order (a [`ProcIdx`] indexes them).
    pub(crate) processes: Vec<Arc<ExecutableProcess>>,
    /// Latest version per BPMN process id.
    pub(crate) latest: BTreeMap<Arc<str>, ProcIdx>,
    pub(crate) decisions: DecisionStore,
    pub(crate) forms: Vec<DeployedForm>,
}
