//! Deploying BPMN into a test: from files, from text, from a folder. A [`Deployment`] is parsed,
//! checked and compiled once and then cloned into each test ([`Deployment::test`]), which costs
//! microseconds: the compiled processes are shared, the state is not.

use std::path::{Path, PathBuf};

use baton_engine::deploy::{self, Resource};
use baton_engine::diagnostics::{Diagnostic, one_per_line};
use baton_engine::runtime::{Engine, EngineConfig, Rejection};

use crate::agent::ToolCache;

/// Why resources could not be deployed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeployError {
    /// A file or folder could not be read.
    #[error("could not read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The BPMN or DMN resources have problems Zeebe refuses at deployment: every one, with
    /// file, line:column and element id (shown as `file:line:col: error[rule] element: message`).
    #[error("{REJECTED}\n{}", one_per_line(.0))]
    Rejected(Vec<Diagnostic>),
    /// The engine refused the deployment for another reason (a form that is not JSON, a
    /// process it cannot compile): its message.
    #[error("{0}")]
    Refused(String),
    /// A resource kind baton cannot deploy yet.
    #[error("{0}")]
    Unsupported(String),
    /// A folder with no `.bpmn` file in it.
    #[error("no .bpmn file in {0} (searched recursively)")]
    EmptyFolder(PathBuf),
}

/// Parsed, checked and compiled resources, ready to be cloned into tests. See the module
/// documentation.
#[derive(Debug, Clone)]
pub struct Deployment {
    pub(crate) engine: Engine,
    /// The AI agent tools its tests' mocks resolved (shared by the tests, as the processes are).
    tool_cache: ToolCache,
}

impl Default for Deployment {
    fn default() -> Self {
        Deployment::new()
    }
}

impl Deployment {
    /// Nothing deployed yet, the clock at 2025-01-01T00:00:00Z.
    pub fn new() -> Deployment {
        Deployment {
            engine: Engine::new(EngineConfig::default()),
            tool_cache: ToolCache::new(),
        }
    }

    /// Deploys one BPMN file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Deployment, DeployError> {
        let mut d = Deployment::new();
        d.add_file(path)?;
        Ok(d)
    }

    /// Deploys BPMN text; `name` is how messages and coverage name it.
    pub fn from_xml(name: &str, xml: &str) -> Result<Deployment, DeployError> {
        let mut d = Deployment::new();
        d.add_xml(name, xml)?;
        Ok(d)
    }

    /// Deploys every `.bpmn` file of a folder and its sub-folders, as one deployment.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Deployment, DeployError> {
        let mut d = Deployment::new();
        d.add_dir(dir)?;
        Ok(d)
    }

    /// Adds one BPMN file.
    pub fn add_file(&mut self, path: impl AsRef<Path>) -> Result<&mut Self, DeployError> {
        deploy_files(&mut self.engine, &[path.as_ref().to_path_buf()])?;
        self.engine.clear_records();
        Ok(self)
    }

    /// Adds several files as one deployment (all or nothing), as a CPT test class deploys its
    /// resources.
    pub fn add_files(&mut self, paths: &[PathBuf]) -> Result<&mut Self, DeployError> {
        deploy_files(&mut self.engine, paths)?;
        Ok(self)
    }

    /// Adds BPMN text.
    pub fn add_xml(&mut self, name: &str, xml: &str) -> Result<&mut Self, DeployError> {
        deploy_resources(&mut self.engine, &[Resource::from_text(name, xml)])?;
        self.engine.clear_records();
        Ok(self)
    }

    /// Adds every `.bpmn` (and `.form`) file of a folder (recursively, in path order) as one
    /// deployment.
    pub fn add_dir(&mut self, dir: impl AsRef<Path>) -> Result<&mut Self, DeployError> {
        deploy_dir(&mut self.engine, dir.as_ref())?;
        self.engine.clear_records();
        Ok(self)
    }

    /// The BPMN process ids deployed, in deployment order (latest versions only once).
    pub fn process_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for p in self.engine.deployed_processes() {
            if !ids.iter().any(|i| **i == **p.bpmn_process_id()) {
                ids.push(p.bpmn_process_id().to_string());
            }
        }
        ids
    }

    /// A fresh test on these deployments: its own engine state, mocks and coverage. The
    /// deployments' own records are not copied (nothing reads them), so this costs a few
    /// microseconds.
    pub fn test(&self) -> crate::ProcessTest {
        crate::ProcessTest::from_engine(self.engine.clone(), self.tool_cache.clone())
    }
}

/// How the engine's rejection of a deployment with problems begins (Zeebe's words).
const REJECTED: &str = "Expected to deploy new resources, but encountered the following errors:";

pub(crate) fn deploy_resources(
    engine: &mut Engine,
    resources: &[Resource],
) -> Result<(), DeployError> {
    engine
        .deploy(resources)
        .map(|_| ())
        .map_err(|rejection| rejected(resources, rejection))
}

/// Why the engine refused `resources`. Its rejection is Zeebe's (a type and a message), so the
/// problems themselves are the deploy checks' own, read again from the resources on this path
/// only; the engine's message when it refused them for something else.
fn rejected(resources: &[Resource], rejection: Rejection) -> DeployError {
    let models: Vec<Resource> = resources
        .iter()
        .filter(|r| !r.name.ends_with(".form"))
        .cloned()
        .collect();
    match deploy::check(&models) {
        Err(problems) if rejection.message == format!("{REJECTED}\n{problems}") => {
            DeployError::Rejected(problems.0)
        }
        _ => DeployError::Refused(rejection.message),
    }
}

pub(crate) fn deploy_files(engine: &mut Engine, paths: &[PathBuf]) -> Result<(), DeployError> {
    let mut resources = Vec::with_capacity(paths.len());
    for path in paths {
        let content = std::fs::read(path).map_err(|source| DeployError::Io {
            path: path.clone(),
            source,
        })?;
        resources.push(Resource::new(path.display().to_string(), content));
    }
    deploy_resources(engine, &resources)
}

pub(crate) fn deploy_dir(engine: &mut Engine, dir: &Path) -> Result<(), DeployError> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    if !files
        .iter()
        .any(|f| f.extension().is_some_and(|e| e == "bpmn"))
    {
        return Err(DeployError::EmptyFolder(dir.to_path_buf()));
    }
    deploy_files(engine, &files)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), DeployError> {
    let io = |source| DeployError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.') || n == "target");
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|e| e == "bpmn" || e == "dmn" || e == "form")
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejected_deployments_carry_the_diagnostics_and_the_engines_message() {
        let bad_bpmn = Resource::from_text(
            "bad.bpmn",
            r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"><bpmn:process id="p" isExecutable="true"><bpmn:serviceTask id="task"/></bpmn:process></bpmn:definitions>"#,
        );
        let bad_form = Resource::from_text("bad.form", "not json");
        for (resources, rejected) in [
            (vec![bad_bpmn.clone()], true),
            // The engine reads forms first: their problem is the one it reports.
            (vec![bad_bpmn, bad_form], false),
        ] {
            let mut engine = Engine::new(EngineConfig::default());
            let message = engine.deploy(&resources).unwrap_err().message;
            let error = deploy_resources(&mut engine, &resources).unwrap_err();
            assert_eq!(error.to_string(), message);
            match error {
                DeployError::Rejected(diagnostics) => {
                    assert!(rejected, "{message}");
                    let elements: Vec<Option<&str>> = diagnostics
                        .iter()
                        .map(|d| d.element_id.as_deref())
                        .collect();
                    assert_eq!(elements, [Some("p"), Some("task")]);
                }
                DeployError::Refused(_) => assert!(!rejected, "{message}"),
                other => panic!("{other:?}"),
            }
        }
    }
}
