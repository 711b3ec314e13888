//! The coverage as Camunda Process Test's coverage report writes it (`report.json`, which CPT's
//! HTML report reads as `window.COVERAGE_DATA`), so that Camunda's coverage viewer renders
//! baton's runs: suites of runs, per process the completed elements and taken sequence flows,
//! per decision the matched rules, and the models with their element (rule) counts and XML.
//!
//! CPT changed the shape within its 8.10 line; this writes the newest one
//! (`processCoverages`, `decisionCoverages`, `processModels[].xml`, `decisionModels[].xml`)
//! and, beside it, the keys of the earlier viewer (`coverages`, `models`, `definitions`): each
//! viewer reads its keys and ignores the others.
//!
//! The numbers are CPT's: an element counts when an instance of it completed (an element still
//! waiting does not), `coverage` is (completed elements + taken flows) / (flow nodes + sequence
//! flows), a rule counts when it matched and a decision's `coverage` is matched rules / rules.
//! Unlike CPT, the flow an event-based gateway took is recorded, not inferred. A suite is a
//! test file (a Rust test's module); a run is a test case (a Rust test).

use std::path::Path;

use serde_json::{Map, Value, json};

use super::CoverageError;
use super::data::{CoverageFile, DecisionCoverageData, ProcessCoverageData};

/// A test's title split into CPT's suite and run: `<file> › <case>` (baton test), or
/// `<module>::<test>` (a Rust test); anything else is a suite of its own.
fn suite_and_run(title: &str) -> (String, String, String) {
    if let Some((file, case)) = title.rsplit_once(" › ") {
        let name = Path::new(file)
            .file_name()
            .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned());
        return (file.to_owned(), name, case.to_owned());
    }
    if let Some((module, test)) = title.rsplit_once("::") {
        let name = module.rsplit("::").next().unwrap_or(module).to_owned();
        return (module.to_owned(), name, test.to_owned());
    }
    (title.to_owned(), title.to_owned(), title.to_owned())
}

/// The model CPT reports for a process id: the one with the most elements and flows (CPT's
/// `selectMostCompleteModel`), first seen on a tie.
struct ProcessModel<'a> {
    data: &'a ProcessCoverageData,
    total: usize,
}

struct DecisionModel<'a> {
    data: &'a DecisionCoverageData,
}

fn pick_models<'a>(runs: &'a [CoverageFile]) -> (Vec<ProcessModel<'a>>, Vec<DecisionModel<'a>>) {
    let mut processes: Vec<ProcessModel<'a>> = Vec::new();
    let mut decisions: Vec<DecisionModel<'a>> = Vec::new();
    for file in runs {
        for p in &file.processes {
            let total = p.elements.len() + p.flows.len();
            match processes
                .iter_mut()
                .find(|m| m.data.process_id == p.process_id)
            {
                Some(m) if total > m.total => *m = ProcessModel { data: p, total },
                Some(_) => {}
                None => processes.push(ProcessModel { data: p, total }),
            }
        }
        for d in &file.decisions {
            match decisions
                .iter_mut()
                .find(|m| m.data.decision_id == d.decision_id)
            {
                Some(m) if d.rules.len() > m.data.rules.len() => *m = DecisionModel { data: d },
                Some(_) => {}
                None => decisions.push(DecisionModel { data: d }),
            }
        }
    }
    (processes, decisions)
}

/// What one process covered: ids in first-seen order, without repeats.
#[derive(Default)]
struct Covered {
    id: String,
    elements: Vec<String>,
    flows: Vec<String>,
}

fn add_unique(into: &mut Vec<String>, ids: &[String], model: &[&str]) {
    for id in ids {
        // Only what the reported model has (CPT's `retainCoverable`).
        if model.contains(&id.as_str()) && !into.contains(id) {
            into.push(id.clone());
        }
    }
}

fn process_entry(c: &Covered, total: usize) -> Value {
    let covered = c.elements.len() + c.flows.len();
    json!({
        "processDefinitionId": c.id,
        "completedElements": c.elements,
        "takenSequenceFlows": c.flows,
        "coverage": ratio(covered, total),
    })
}

fn ratio(covered: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        covered as f64 / total as f64
    }
}

#[derive(Default)]
struct Matched {
    id: String,
    rules: Vec<u32>,
}

fn decision_entry(m: &Matched, model: &DecisionCoverageData) -> Value {
    let ids: Vec<&str> = m
        .rules
        .iter()
        .filter_map(|r| {
            model
                .rules
                .get(*r as usize - 1)
                .map(|rule| rule.id.as_str())
        })
        .collect();
    json!({
        "decisionDefinitionId": m.id,
        "matchedRuleIds": ids,
        "matchedRuleIndices": m.rules,
        "coverage": ratio(ids.len(), model.rules.len()),
    })
}

/// The coverage of a set of runs (a suite's, or all), per process and decision.
#[derive(Default)]
struct Tally {
    processes: Vec<Covered>,
    decisions: Vec<Matched>,
}

impl Tally {
    fn add(
        &mut self,
        file: &CoverageFile,
        models: &(Vec<ProcessModel<'_>>, Vec<DecisionModel<'_>>),
    ) {
        for p in &file.processes {
            // A process a run did not enter is not in its coverage (CPT covers the instances).
            if p.covered_elements.is_empty() {
                continue;
            }
            let Some(model) = models.0.iter().find(|m| m.data.process_id == p.process_id) else {
                continue;
            };
            let elements: Vec<&str> = model.data.elements.iter().map(|e| e.id.as_str()).collect();
            let flows: Vec<&str> = model.data.flows.iter().map(|f| f.id.as_str()).collect();
            let at = match self.processes.iter().position(|c| c.id == p.process_id) {
                Some(i) => i,
                None => {
                    self.processes.push(Covered {
                        id: p.process_id.clone(),
                        ..Covered::default()
                    });
                    self.processes.len() - 1
                }
            };
            let c = &mut self.processes[at];
            add_unique(&mut c.elements, &p.completed_elements, &elements);
            add_unique(&mut c.flows, &p.taken_flows, &flows);
        }
        for d in &file.decisions {
            if !d.evaluated {
                continue;
            }
            let Some(model) = models
                .1
                .iter()
                .find(|m| m.data.decision_id == d.decision_id)
            else {
                continue;
            };
            let at = match self.decisions.iter().position(|m| m.id == d.decision_id) {
                Some(i) => i,
                None => {
                    self.decisions.push(Matched {
                        id: d.decision_id.clone(),
                        ..Matched::default()
                    });
                    self.decisions.len() - 1
                }
            };
            let m = &mut self.decisions[at];
            for r in &d.matched_rules {
                if (*r as usize) <= model.data.rules.len() && !m.rules.contains(r) {
                    m.rules.push(*r);
                }
            }
            m.rules.sort_unstable();
        }
    }

    fn process_entries(&self, models: &[ProcessModel<'_>]) -> Vec<Value> {
        self.processes
            .iter()
            .map(|c| {
                let total = models
                    .iter()
                    .find(|m| m.data.process_id == c.id)
                    .map_or(0, |m| m.total);
                process_entry(c, total)
            })
            .collect()
    }

    fn decision_entries(&self, models: &[DecisionModel<'_>]) -> Vec<Value> {
        self.decisions
            .iter()
            .filter_map(|m| {
                let model = models.iter().find(|x| x.data.decision_id == m.id)?;
                Some(decision_entry(m, model.data))
            })
            .collect()
    }

    /// The earlier viewer's `models` of the processes covered here.
    fn legacy_models(&self, models: &[ProcessModel<'_>]) -> Vec<Value> {
        self.processes
            .iter()
            .filter_map(|c| models.iter().find(|m| m.data.process_id == c.id))
            .map(|m| {
                json!({
                    "processDefinitionId": m.data.process_id,
                    "totalElementCount": m.total,
                    "version": version_text(m.data.version),
                })
            })
            .collect()
    }
}

fn version_text(version: Option<i32>) -> String {
    version.unwrap_or(1).to_string()
}

/// A suite of runs: its id and name, and each run's name and coverage.
struct Suite<'a> {
    id: String,
    name: String,
    runs: Vec<(String, &'a CoverageFile)>,
}

/// The report document for these runs (each coverage file one run, in order).
pub fn report(runs: &[CoverageFile]) -> Value {
    let models = pick_models(runs);
    // Suites in first-seen order, each with its runs.
    let mut suites: Vec<Suite<'_>> = Vec::new();
    for file in runs {
        let title = file.tests.join(", ");
        let (id, name, run) = suite_and_run(&title);
        match suites.iter_mut().find(|s| s.id == id) {
            Some(suite) => suite.runs.push((run, file)),
            None => suites.push(Suite {
                id,
                name,
                runs: vec![(run, file)],
            }),
        }
    }
    let mut all = Tally::default();
    let mut suite_values = Vec::with_capacity(suites.len());
    for Suite {
        id,
        name,
        runs: list,
    } in &suites
    {
        let mut suite = Tally::default();
        let mut run_values = Vec::with_capacity(list.len());
        for (run, file) in list {
            let mut one = Tally::default();
            one.add(file, &models);
            suite.add(file, &models);
            all.add(file, &models);
            let processes = one.process_entries(&models.0);
            run_values.push(json!({
                "name": run,
                "displayName": null,
                "testParameters": null,
                "processCoverages": processes,
                "decisionCoverages": one.decision_entries(&models.1),
                "coverages": processes,
            }));
        }
        let processes = suite.process_entries(&models.0);
        suite_values.push(json!({
            "id": id,
            "name": name,
            "runs": run_values,
            "processCoverages": processes,
            "decisionCoverages": suite.decision_entries(&models.1),
            "coverages": processes,
            "models": suite.legacy_models(&models.0),
        }));
    }
    let process_models: Vec<Value> = models
        .0
        .iter()
        .map(|m| {
            json!({
                "processDefinitionId": m.data.process_id,
                "processName": m.data.name.as_deref().unwrap_or(&m.data.process_id),
                "totalElementCount": m.total,
                "version": version_text(m.data.version),
                "xml": m.data.xml,
            })
        })
        .collect();
    let decision_models: Vec<Value> = models
        .1
        .iter()
        .map(|m| {
            let name = if m.data.name.is_empty() {
                &m.data.decision_id
            } else {
                &m.data.name
            };
            json!({
                "decisionDefinitionId": m.data.decision_id,
                "decisionName": name,
                "totalRuleCount": m.data.rules.len(),
                "version": version_text(m.data.version),
                "xml": m.data.xml,
            })
        })
        .collect();
    let definitions: Map<String, Value> = models
        .0
        .iter()
        .filter_map(|m| Some((m.data.process_id.clone(), Value::from(m.data.xml.clone()?))))
        .collect();
    let decision_definitions: Map<String, Value> = models
        .1
        .iter()
        .filter_map(|m| Some((m.data.decision_id.clone(), Value::from(m.data.xml.clone()?))))
        .collect();
    let processes = all.process_entries(&models.0);
    json!({
        "suites": suite_values,
        "processModels": process_models,
        "decisionModels": decision_models,
        "processCoverages": processes,
        "decisionCoverages": all.decision_entries(&models.1),
        "coverages": processes,
        "models": all.legacy_models(&models.0),
        "definitions": definitions,
        "decisionDefinitions": decision_definitions,
    })
}

/// Writes the report of these runs to `path` (its folder is created if missing), atomically.
pub fn write(path: &Path, runs: &[CoverageFile]) -> Result<(), CoverageError> {
    let mut text = serde_json::to_string_pretty(&report(runs)).expect("the report serializes");
    text.push('\n');
    let dir = crate::files::folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report.json".to_owned());
    crate::files::write_atomically(dir, &name, &text)
        .map(|_| ())
        .map_err(|(path, source)| CoverageError::Io { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_split_into_suites_and_runs() {
        assert_eq!(
            suite_and_run("tests/orders.test.json › happy path"),
            (
                "tests/orders.test.json".to_owned(),
                "orders.test.json".to_owned(),
                "happy path".to_owned()
            )
        );
        assert_eq!(
            suite_and_run("coverage::orders::pays"),
            (
                "coverage::orders".to_owned(),
                "orders".to_owned(),
                "pays".to_owned()
            )
        );
        assert_eq!(
            suite_and_run("main"),
            ("main".to_owned(), "main".to_owned(), "main".to_owned())
        );
    }
}
