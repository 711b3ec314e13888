//! Exploration files (`*.explore.json`), what `baton explore` runs: the setup as CPT instructions
//! (job mocks, decision mocks, child process mocks, the clock), the start, the space and the
//! invariants. The BPMN, DMN and form files beside it are deployed, as `baton test` deploys a
//! test file's folder. See `docs/cli.md` for the format.
//!
//! ```json
//! {
//!   "setup": [ { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "order-lookup", "variables": { "order": {} } } ],
//!   "start": { "processDefinitionId": "ai-agent-tool-loop", "variables": { "customerMessage": "Hi" } },
//!   "agents": [ { "elementId": "support-agent", "maxToolsPerTurn": 2 } ],
//!   "outcomes": { "ticket-create": [ { "complete": { "ticketId": "T-1" } }, { "throwError": { "errorCode": "DOWN" } } ] },
//!   "bounds": { "modelCalls": 4 },
//!   "invariants": [ { "neverBefore": { "element": "create-ticket", "before": "lookup-order" } }, "noIncident" ]
//! }
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::Instruction;
use baton_testing::agent::Turn;
use baton_testing::explore::{AgentSpace, ExploreError, Invariant, Report, Space};
use baton_testing::faults::Jobs;
use baton_testing::mocks::Answer;
use baton_testing::side_effects::DeclaredSideEffect;
use baton_testing::{DeployError, Deployment, ProcessTest};

/// Why an exploration file cannot be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    #[error("cannot read {}: {error}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        error: std::io::Error,
    },
    /// The JSON is not an exploration file: the path of the problem in it.
    #[error("{}: {}{message}", file.display(), if path.is_empty() { String::new() } else { format!("{path}: ") })]
    Format {
        file: PathBuf,
        path: String,
        message: String,
    },
    #[error("{}: the resources beside it do not deploy: {error}", file.display())]
    Deploy {
        file: PathBuf,
        #[source]
        error: DeployError,
    },
    #[error("{}: {error}", file.display())]
    Explore {
        file: PathBuf,
        #[source]
        error: ExploreError,
    },
}

/// An exploration file, read.
#[derive(Debug, Clone)]
pub struct ExploreFile {
    pub path: PathBuf,
    pub name: Option<String>,
    setup: Vec<(String, Instruction)>,
    side_effects: Vec<(String, DeclaredSideEffect)>,
    pub space: Space,
    pub invariants: Vec<Invariant>,
    /// Unknown fields of setup instructions (CPT ignores them too).
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Raw {
    #[serde(rename = "$schema")]
    _schema: Option<String>,
    name: Option<String>,
    #[serde(default)]
    setup: Vec<Value>,
    start: RawStart,
    #[serde(default)]
    agents: Vec<RawAgent>,
    #[serde(default)]
    outcomes: indexmap::IndexMap<String, Vec<RawOutcome>>,
    #[serde(default)]
    side_effects: indexmap::IndexMap<String, RawSideEffect>,
    #[serde(default)]
    bounds: RawBounds,
    #[serde(default)]
    search: RawSearch,
    threads: Option<usize>,
    #[serde(default)]
    invariants: Vec<Invariant>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawStart {
    process_definition_id: String,
    #[serde(default)]
    variables: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawAgent {
    element_id: String,
    tools: Option<Vec<String>>,
    max_tools_per_turn: Option<usize>,
    #[serde(default = "yes")]
    every_order: bool,
    #[serde(default)]
    values: indexmap::IndexMap<String, indexmap::IndexMap<String, Vec<Value>>>,
    #[serde(default)]
    responses: Vec<Value>,
    #[serde(default = "yes")]
    generated_responses: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
enum RawOutcome {
    Complete(Map<String, Value>),
    CompleteWithExampleData,
    ThrowError {
        error_code: String,
        #[serde(default)]
        error_message: String,
        #[serde(default)]
        variables: Map<String, Value>,
    },
    Fail {
        #[serde(default)]
        error_message: String,
        retries: Option<i32>,
    },
}

/// A job type's side effect: its idempotency key (FEEL over the job's variables; left out:
/// the job key), and whether the outside world deduplicates by it.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSideEffect {
    key: Option<String>,
    #[serde(default)]
    deduplicated: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawBounds {
    model_calls: Option<u32>,
    tools_per_turn: Option<usize>,
    trajectories: Option<u64>,
    /// ISO-8601 duration (`PT30S`).
    time: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase", tag = "mode")]
enum RawSearch {
    #[default]
    Exhaustive,
    Sample {
        seed: u64,
        runs: u64,
    },
}

/// Serde's words for a variant written without its value (`"reaches"`) or with a value it
/// does not take (`{"noIncident": true}`), said with the variant's name; other messages as
/// they are.
fn variant_message(at: &str, message: String) -> String {
    let name = at.rsplit('.').next().unwrap_or(at);
    if name.is_empty() || name.ends_with(']') {
        return message;
    }
    if message.starts_with("invalid type: unit variant, expected") {
        return format!("\"{name}\" needs a value: write {{\"{name}\": ...}}");
    }
    if let Some(got) = message
        .strip_prefix("invalid type: ")
        .and_then(|m| m.strip_suffix(", expected unit"))
    {
        return format!("\"{name}\" takes no value: write \"{name}\" alone, not with {got}");
    }
    message
}

/// The setup instructions an exploration runs (each fork copies what they set up).
const SETUP_INSTRUCTIONS: [&str; 5] = [
    "MOCK_JOB_WORKER_COMPLETE_JOB",
    "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
    "MOCK_DMN_DECISION",
    "MOCK_CHILD_PROCESS",
    "SET_TIME",
];

impl ExploreFile {
    /// Reads an exploration file.
    pub fn read(path: impl AsRef<Path>) -> Result<ExploreFile, FileError> {
        use std::io::Read;
        let path = path.as_ref();
        let io = |error| FileError::Io {
            path: path.to_path_buf(),
            error,
        };
        // At most one byte more than a file may have: a device or a pipe that never ends
        // (`/dev/zero`) is refused like a file that is too large, not read forever.
        let limit = crate::discover::MAX_TEST_FILE_BYTES;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .map_err(io)?
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > limit {
            return Err(FileError::Format {
                file: path.to_path_buf(),
                path: String::new(),
                message: format!("the file has more than the {limit} bytes a test file may have"),
            });
        }
        let text = String::from_utf8(bytes).map_err(|e| FileError::Format {
            file: path.to_path_buf(),
            path: String::new(),
            message: format!("not UTF-8 text: {}", e.utf8_error()),
        })?;
        ExploreFile::parse(&text, path)
    }

    /// Reads an exploration file's text; `path` names it (and its folder holds the resources).
    pub fn parse(text: &str, path: &Path) -> Result<ExploreFile, FileError> {
        let format = |at: String, message: String| FileError::Format {
            file: path.to_path_buf(),
            path: at,
            message,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| {
            format(
                String::new(),
                format!("not JSON at line {}, column {}: {e}", e.line(), e.column()),
            )
        })?;
        let raw: Raw = serde_path_to_error::deserialize(&value).map_err(|e| {
            let at = e.path().to_string();
            let message = variant_message(&at, e.inner().to_string());
            format(if at == "." { String::new() } else { at }, message)
        })?;
        let mut warnings = Vec::new();
        let mut setup = Vec::new();
        for (i, instruction) in raw.setup.iter().enumerate() {
            let at = format!("setup[{i}]");
            let parsed = Instruction::from_json(instruction, &at, &mut warnings)
                .map_err(|e| format(e.path.clone(), e.message.clone()))?;
            if !SETUP_INSTRUCTIONS.contains(&parsed.type_name()) {
                return Err(format(
                    format!("{at}.type"),
                    format!(
                        "{} cannot set up an exploration; the setup takes {}",
                        parsed.type_name(),
                        SETUP_INSTRUCTIONS.join(", ")
                    ),
                ));
            }
            setup.push((at, parsed));
        }
        let mut side_effects = Vec::new();
        for (job_type, effect) in raw.side_effects {
            let declared = match &effect.key {
                Some(key) => DeclaredSideEffect::keyed_by(key)
                    .map_err(|e| format(format!("sideEffects.{job_type}.key"), e.to_string()))?,
                None => DeclaredSideEffect::keyed_by_job_key(),
            };
            let declared = if effect.deduplicated {
                declared.deduplicated()
            } else {
                declared
            };
            side_effects.push((job_type, declared));
        }
        let mut space = Space::start(
            raw.start.process_definition_id,
            Value::Object(raw.start.variables),
        );
        let mut agent_ids: Vec<String> = Vec::new();
        for (a, agent) in raw.agents.into_iter().enumerate() {
            if let Some(first) = agent_ids.iter().position(|id| *id == agent.element_id) {
                return Err(format(
                    format!("agents[{a}].elementId"),
                    format!(
                        "\"{}\" is shaped twice (agents[{first}] already shapes it): give one entry per agent",
                        agent.element_id
                    ),
                ));
            }
            agent_ids.push(agent.element_id.clone());
            let mut s = AgentSpace::new(agent.element_id);
            if let Some(tools) = agent.tools {
                s = s.tools(tools);
            }
            if let Some(n) = agent.max_tools_per_turn {
                s = s.max_tools_per_turn(n);
            }
            if !agent.every_order {
                s = s.in_document_order();
            }
            for (tool, parameters) in agent.values {
                for (parameter, values) in parameters {
                    s = s.values(tool.clone(), parameter, values);
                }
            }
            for (r, response) in agent.responses.iter().enumerate() {
                let at = format!("agents[{a}].responses[{r}]");
                let turn = Turn::from_json(response, &at)
                    .map_err(|problems| format(String::new(), problems.to_string()))?;
                s = s.response(turn);
            }
            if !agent.generated_responses {
                s = s.only_given_responses();
            }
            space = space.agent(s);
        }
        for (job_type, outcomes) in raw.outcomes {
            let answers: Vec<Answer> = outcomes
                .into_iter()
                .map(|o| match o {
                    RawOutcome::Complete(vars) => Answer::complete(Value::Object(vars)),
                    RawOutcome::CompleteWithExampleData => Answer::example_data(),
                    RawOutcome::ThrowError {
                        error_code,
                        error_message,
                        variables,
                    } => Answer::throw_error(error_code, error_message)
                        .with_variables(Value::Object(variables)),
                    RawOutcome::Fail {
                        error_message,
                        retries,
                    } => match retries {
                        Some(r) => Answer::fail(error_message).with_retries(r),
                        None => Answer::fail(error_message),
                    },
                })
                .collect();
            space = space.outcomes(job_type, answers);
        }
        if let Some(n) = raw.bounds.model_calls {
            space = space.max_model_calls(n);
        }
        if let Some(n) = raw.bounds.tools_per_turn {
            space = space.max_tools_per_turn(n);
        }
        if let Some(n) = raw.bounds.trajectories {
            space = space.max_trajectories(n);
        }
        if let Some(time) = raw.bounds.time {
            let ms = baton_testing::clock::parse_duration(&time)
                .map_err(|e| format("bounds.time".into(), e.to_string()))?;
            space = space.time_limit(Duration::from_millis(u64::try_from(ms).unwrap_or(0)));
        }
        if let RawSearch::Sample { seed, runs } = raw.search {
            space = space.sample(seed, runs);
        }
        if let Some(n) = raw.threads {
            space = space.threads(n);
        }
        let invariants = raw.invariants;
        Ok(ExploreFile {
            path: path.to_path_buf(),
            name: raw.name,
            setup,
            side_effects,
            space,
            invariants,
            warnings,
        })
    }

    /// The folder whose resources it runs against.
    pub fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// Deploys the folder's resources, runs the setup and explores the space.
    pub fn run(&self, space: &Space) -> Result<Report, FileError> {
        let resources =
            crate::discover::resources_of(&self.dir()).map_err(|e| FileError::Format {
                file: self.path.clone(),
                path: String::new(),
                message: e.to_string(),
            })?;
        let mut deployment = Deployment::new();
        deployment
            .add_files(&resources)
            .map_err(|error| FileError::Deploy {
                file: self.path.clone(),
                error,
            })?;
        let test = deployment.test();
        self.set_up(&test)?;
        for (job_type, effect) in &self.side_effects {
            test.try_declare_side_effect(Jobs::of_type(job_type.clone()), effect.clone())
                .map_err(|e| FileError::Format {
                    file: self.path.clone(),
                    path: format!("sideEffects.{job_type}"),
                    message: e.to_string(),
                })?;
        }
        let report = test.explore(space, self.invariants.clone());
        // The setup's mocks carry no expectations: nothing to verify when the test is dropped.
        report.map_err(|error| FileError::Explore {
            file: self.path.clone(),
            error,
        })
    }

    fn set_up(&self, test: &ProcessTest) -> Result<(), FileError> {
        use Instruction as I;
        for (at, instruction) in &self.setup {
            let refuse = |message: String| FileError::Format {
                file: self.path.clone(),
                path: at.clone(),
                message,
            };
            match instruction {
                I::MockJobWorkerCompleteJob(m) => {
                    if m.element_id.is_some() {
                        return Err(refuse(
                            "an exploration mocks job types, not single elements: leave out elementId".into(),
                        ));
                    }
                    let answer = if m.use_example_data {
                        Answer::example_data()
                    } else {
                        Answer::complete(Value::Object(m.variables.clone()))
                    };
                    let _ = test.mock_job(m.job_type.clone()).answer(answer);
                }
                I::MockJobWorkerThrowBpmnError(m) => {
                    if m.element_id.is_some() {
                        return Err(refuse(
                            "an exploration mocks job types, not single elements: leave out elementId".into(),
                        ));
                    }
                    let answer = Answer::throw_error(
                        m.error_code.clone(),
                        m.error_message.clone().unwrap_or_default(),
                    )
                    .with_variables(Value::Object(m.variables.clone()));
                    let _ = test.mock_job(m.job_type.clone()).answer(answer);
                }
                I::MockDmnDecision(m) => {
                    let output = m
                        .decision_output
                        .clone()
                        .unwrap_or_else(|| Value::Object(m.variables.clone().unwrap_or_default()));
                    test.mock_decision(m.decision_definition_id.clone(), output);
                }
                I::MockChildProcess(m) => {
                    test.mock_child_process(
                        &m.process_definition_id,
                        Value::Object(m.variables.clone()),
                    );
                }
                I::SetTime(t) => {
                    let ms = baton_testing::clock::parse_instant(&t.time)
                        .map_err(|e| refuse(e.to_string()))?;
                    test.act(|engine| engine.set_clock(ms))
                        .map_err(|r| refuse(r.message))?;
                }
                other => {
                    return Err(refuse(format!(
                        "{} cannot set up an exploration",
                        other.type_name()
                    )));
                }
            }
        }
        Ok(())
    }
}
