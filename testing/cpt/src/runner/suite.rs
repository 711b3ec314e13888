//! Deploying a suite: its resources as one deployment, or as much of them as deploys.

use std::path::{Path, PathBuf};

use crate::discover::Suite;
use crate::results::SuiteInfo;
use baton_testing::Deployment;

fn is_bpmn(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "bpmn")
}

/// Deploys a suite's resources as one deployment. When that fails, the BPMN files alone are
/// deployed and each other resource (DMN, form) is added on its own where it can be; what could
/// not be deployed becomes a note (a case that needs it then fails and says why).
pub(super) fn deploy(suite: &Suite) -> (Result<Deployment, String>, SuiteInfo) {
    let mut notes: Vec<String> = Vec::new();
    for file in &suite.files {
        if let Ok(f) = &file.content {
            notes.extend(
                f.warnings
                    .iter()
                    .map(|w| format!("{}: {w}", file.path.display())),
            );
        }
    }
    let mut deployment = Deployment::new();
    let all = deployment.add_files(&suite.resources).map(|_| ());
    let result = match all {
        Ok(()) => Ok(deployment),
        Err(_) => {
            let bpmn: Vec<PathBuf> = suite
                .resources
                .iter()
                .filter(|p| is_bpmn(p))
                .cloned()
                .collect();
            let mut deployment = Deployment::new();
            match deployment.add_files(&bpmn) {
                Err(e) => Err(format!(
                    "the resources of {} do not deploy:\n{e}",
                    suite.dir.display()
                )),
                Ok(_) => {
                    // Grouped by reason: (reason, file names).
                    let mut left_out: Vec<(String, Vec<String>)> = Vec::new();
                    for other in suite.resources.iter().filter(|p| !is_bpmn(p)) {
                        let mut with = deployment.clone();
                        match with.add_files(std::slice::from_ref(other)) {
                            Ok(_) => deployment = with,
                            Err(e) => {
                                let reason = reason_of(&e.to_string(), other);
                                let name = other.file_name().map_or_else(
                                    || other.display().to_string(),
                                    |n| n.to_string_lossy().into_owned(),
                                );
                                match left_out.iter_mut().find(|(r, _)| *r == reason) {
                                    Some((_, files)) => files.push(name),
                                    None => left_out.push((reason, vec![name])),
                                }
                            }
                        }
                    }
                    for (reason, files) in left_out {
                        notes.push(format!(
                            "{}: not deployed: {} ({reason})",
                            suite.dir.display(),
                            files.join(", ")
                        ));
                    }
                    Ok(deployment)
                }
            }
        }
    };
    let info = SuiteInfo {
        dir: suite.dir.clone(),
        resources: suite.resources.clone(),
        notes,
    };
    (result, info)
}

/// The first problem of a deploy error, without the file's name and position (so the same
/// reason groups the files it applies to).
fn reason_of(error: &str, path: &Path) -> String {
    let line = error
        .lines()
        .find(|l| !l.starts_with("Expected to deploy new resources"))
        .unwrap_or_default();
    let shown = path.display().to_string();
    let rest = line.strip_prefix(shown.as_str()).unwrap_or(line);
    let rest = rest.trim_start_matches(':');
    // `line:col: ` of a diagnostic.
    let rest = match rest.split_once(": ") {
        Some((position, tail))
            if !position.is_empty() && position.chars().all(|c| c.is_ascii_digit() || c == ':') =>
        {
            tail
        }
        _ => rest,
    };
    rest.trim().to_owned()
}
