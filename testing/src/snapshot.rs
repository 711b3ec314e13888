//! Snapshots: a process test's engine saved at a wait point, as a value and as a file, and
//! restored into a new test (a restart: fresh mocks, the same side-effect ledger).
//!
//! A snapshot is the engine's commands since it was created, deployments first (what
//! `Engine::apply` carried out, [`ProcessTest::commands`]): the engine is deterministic, so the
//! same commands on a fresh engine give the same state and the same records, byte for byte,
//! including the records before the wait point (assertions and coverage read the whole run).
//! Beside the commands it keeps the deployed resources' content hashes (a snapshot restores only
//! onto the same deployment), the engine's limits (the same commands under other limits could
//! stop elsewhere), the root instances, and the clock and
//! record position it was taken at (checked when it is restored).
//!
//! What is not engine state is not in it, on purpose: answers on their way and the mocks are
//! the workers' (a restart starts with new workers); the ledger is the outside world's and
//! outlives the restart ([`ProcessTest::with_ledger`]).

use std::path::Path;

use baton_engine::runtime::{Command, Engine, EngineConfig, Key};
use serde_json::{Map, Value};

use crate::ProcessTest;
use crate::process_test::Inner;
use crate::settle::JobFeed;

/// The format this baton writes and reads.
pub const SNAPSHOT_FORMAT: u64 = 1;

/// A process test's engine at a wait point (see the module documentation).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The deployed resources in deployment order: name and `sha256:` content hash.
    pub resources: Vec<(String, String)>,
    /// Every command the engine carried out, deployments included.
    pub commands: Vec<Command>,
    /// The root instances started through the test, in order.
    pub roots: Vec<Key>,
    /// The engine clock when it was taken, epoch milliseconds.
    pub now_ms: i64,
    /// The position of the engine's last record when it was taken.
    pub position: u64,
    /// The engine's settings: its limits (a file without them: the defaults). A test's engine
    /// starts at the default instant; a test's start time is a command the snapshot holds.
    pub config: EngineConfig,
}

/// A snapshot that cannot be taken, read or restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error(
        "a snapshot is the engine's commands since the start, but {missed} were carried out while it did not record them: call ProcessTest::record_commands() before the first action"
    )]
    NotRecording { missed: u64 },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error(
        "{path}: the snapshot is of format {format}, newer than this baton reads (format {SNAPSHOT_FORMAT}): update baton"
    )]
    NewerFormat { path: String, format: u64 },
    #[error("the snapshot was taken with another deployment: {what}")]
    OtherDeployment { what: String },
    #[error(
        "the test ran before the restore ({what}): restore a snapshot into a test that only deployed"
    )]
    NotFresh { what: String },
    #[error(
        "the snapshot's commands did not give back its engine: they end at record {position} and {now}, the snapshot says record {expected_position} and {expected_now}"
    )]
    Diverged {
        position: u64,
        now: String,
        expected_position: u64,
        expected_now: String,
    },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("the snapshot does not hold together (was it edited by hand?): {what}")]
    Inconsistent { what: String },
}

fn invalid(path: &str, message: impl Into<String>) -> SnapshotError {
    SnapshotError::Invalid {
        path: path.to_string(),
        message: message.into(),
    }
}

impl Snapshot {
    /// The JSON form: `{format, now, position, engine: {stepLimit, timerLimit, instanceLimit,
    /// recordLimit}, roots, resources: [{name, sha256}], commands}`.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("format".into(), SNAPSHOT_FORMAT.into());
        let config = &self.config;
        let mut engine = Map::new();
        engine.insert("stepLimit".into(), config.step_limit.into());
        engine.insert("timerLimit".into(), config.timer_limit.into());
        engine.insert("instanceLimit".into(), config.instance_limit.into());
        engine.insert("recordLimit".into(), config.record_limit.into());
        object.insert(
            "now".into(),
            crate::clock::format_instant(self.now_ms).into(),
        );
        object.insert("position".into(), self.position.into());
        object.insert("engine".into(), Value::Object(engine));
        object.insert(
            "roots".into(),
            Value::Array(self.roots.iter().map(|k| (*k).into()).collect()),
        );
        object.insert(
            "resources".into(),
            Value::Array(
                self.resources
                    .iter()
                    .map(|(name, hash)| {
                        let mut r = Map::new();
                        r.insert("name".into(), name.clone().into());
                        r.insert("sha256".into(), hash.clone().into());
                        Value::Object(r)
                    })
                    .collect(),
            ),
        );
        object.insert(
            "commands".into(),
            serde_json::to_value(&self.commands).unwrap_or(Value::Null),
        );
        Value::Object(object)
    }

    /// Reads the JSON form; `source` names it in errors (a file's path).
    pub fn from_json(value: &Value, source: &str) -> Result<Snapshot, SnapshotError> {
        let Some(object) = value.as_object() else {
            return Err(invalid(source, "a snapshot must be a JSON object"));
        };
        let at = |field: &str| format!("{source}: {field}");
        let format = object
            .get("format")
            .and_then(Value::as_u64)
            .ok_or_else(|| invalid(&at("format"), "must be the snapshot format (1)"))?;
        if format > SNAPSHOT_FORMAT {
            return Err(SnapshotError::NewerFormat {
                path: at("format"),
                format,
            });
        }
        if format == 0 {
            return Err(invalid(&at("format"), "must be the snapshot format (1)"));
        }
        let now_ms = match object.get("now") {
            Some(Value::String(text)) => {
                crate::clock::parse_instant(text).map_err(|e| invalid(&at("now"), e.to_string()))?
            }
            _ => return Err(invalid(&at("now"), "must be an ISO-8601 instant")),
        };
        let position = object
            .get("position")
            .and_then(Value::as_u64)
            .ok_or_else(|| invalid(&at("position"), "must be a record position"))?;
        let config = match object.get("engine") {
            None => EngineConfig::default(),
            Some(Value::Object(engine)) => config_from(engine, &at("engine"))?,
            Some(_) => return Err(invalid(&at("engine"), "must be an object")),
        };
        let roots = match object.get("roots") {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    k.as_u64()
                        .ok_or_else(|| invalid(&at(&format!("roots[{i}]")), "must be a key"))
                })
                .collect::<Result<Vec<Key>, _>>()?,
            _ => return Err(invalid(&at("roots"), "must be an array of keys")),
        };
        let resources = match object.get("resources") {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let name = r.get("name").and_then(Value::as_str);
                    let hash = r.get("sha256").and_then(Value::as_str);
                    match (name, hash) {
                        (Some(n), Some(h)) => Ok((n.to_string(), h.to_string())),
                        _ => Err(invalid(
                            &at(&format!("resources[{i}]")),
                            "must be {\"name\", \"sha256\"}",
                        )),
                    }
                })
                .collect::<Result<Vec<_>, _>>()?,
            _ => return Err(invalid(&at("resources"), "must be an array")),
        };
        let commands_json = object
            .get("commands")
            .ok_or_else(|| invalid(&at("commands"), "is missing"))?;
        let commands: Vec<Command> =
            serde_path_to_error::deserialize(commands_json).map_err(|e| {
                invalid(
                    &at(&format!("commands{}", path_of(e.path()))),
                    e.inner().to_string(),
                )
            })?;
        Ok(Snapshot {
            resources,
            commands,
            roots,
            now_ms,
            position,
            config,
        })
    }

    /// Writes the JSON form to a file, atomically (a temporary file, then a rename).
    pub fn write(&self, path: &Path) -> Result<(), SnapshotError> {
        let text =
            serde_json::to_string_pretty(&self.to_json()).map_err(|e| SnapshotError::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "snapshot.json".to_string());
        crate::files::write_atomically(dir, &name, &text).map_err(|(p, e)| SnapshotError::Io {
            path: p.display().to_string(),
            message: e.to_string(),
        })?;
        Ok(())
    }

    /// Reads a snapshot file.
    pub fn read(path: &Path) -> Result<Snapshot, SnapshotError> {
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SnapshotError::Io {
            path: source.clone(),
            message: e.to_string(),
        })?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| invalid(&source, format!("not JSON: {e}")))?;
        Snapshot::from_json(&value, &source)
    }

    /// A fresh engine that carried out the snapshot's commands: the engine it was taken of.
    pub fn engine(&self) -> Result<Engine, SnapshotError> {
        let mut engine = Engine::new(EngineConfig {
            keep_records: true,
            start_time_ms: EngineConfig::default().start_time_ms,
            ..self.config.clone()
        });
        engine.record_commands(true);
        for command in &self.commands {
            // Rejected commands were kept too: they are rejected again.
            let _ = engine.apply(command.clone());
        }
        if engine.position() != self.position || engine.now() != self.now_ms {
            return Err(SnapshotError::Diverged {
                position: engine.position(),
                now: crate::clock::format_instant(engine.now()),
                expected_position: self.position,
                expected_now: crate::clock::format_instant(self.now_ms),
            });
        }
        // The resources are what the test's deployment is checked against: they must be what
        // the commands deploy, or a changed BPMN in the commands would pass the check.
        let deployed = resources_of(&engine);
        if deployed != self.resources {
            let list = |resources: &[(String, String)]| {
                resources
                    .iter()
                    .map(|(name, hash)| format!("{name} ({hash})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(SnapshotError::Inconsistent {
                what: format!(
                    "its commands deploy {}, its resources say {}",
                    list(&deployed),
                    list(&self.resources)
                ),
            });
        }
        for (i, root) in self.roots.iter().enumerate() {
            if engine.process_instance(*root).is_none() {
                return Err(SnapshotError::Inconsistent {
                    what: format!(
                        "roots[{i}] is {root}, but its commands created no process instance of that key"
                    ),
                });
            }
        }
        Ok(engine)
    }
}

/// The engine's settings of a snapshot file; a setting left out is the default.
fn config_from(engine: &Map<String, Value>, at: &str) -> Result<EngineConfig, SnapshotError> {
    let mut config = EngineConfig::default();
    for (field, value) in engine {
        let path = format!("{at}.{field}");
        let limit = || {
            value
                .as_u64()
                .filter(|n| *n > 0)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| invalid(&path, "must be a positive whole number"))
        };
        match field.as_str() {
            "stepLimit" => config.step_limit = limit()?,
            "timerLimit" => config.timer_limit = limit()?,
            "instanceLimit" => config.instance_limit = limit()?,
            "recordLimit" => config.record_limit = limit()?,
            _ => {
                return Err(invalid(
                    &path,
                    "is not a setting (stepLimit, timerLimit, instanceLimit, recordLimit)",
                ));
            }
        }
    }
    Ok(config)
}

fn path_of(path: &serde_path_to_error::Path) -> String {
    let text = path.to_string();
    if text == "." {
        String::new()
    } else if text.starts_with('[') {
        text
    } else {
        format!(".{text}")
    }
}

/// The name and content hash of every resource an engine deployed, in order.
fn resources_of(engine: &Engine) -> Vec<(String, String)> {
    engine
        .deployed_resources()
        .map(|r| {
            (
                r.name.clone(),
                crate::agent::recording::format::sha256(r.content()),
            )
        })
        .collect()
}

impl ProcessTest {
    /// Saves the engine at this wait point (see [`crate::snapshot`]). The test must record its
    /// commands from the start ([`ProcessTest::record_commands`]).
    pub fn snapshot(&self) -> Result<Snapshot, SnapshotError> {
        let inner = self.inner.borrow();
        let commands = inner
            .engine
            .recorded_commands()
            .map_err(|e| SnapshotError::NotRecording { missed: e.missed })?
            .to_vec();
        Ok(Snapshot {
            resources: resources_of(&inner.engine),
            commands,
            roots: inner.roots.clone(),
            now_ms: inner.engine.now(),
            position: inner.engine.position(),
            config: inner.engine.config().clone(),
        })
    }

    /// A new test whose engine is the snapshot's (deployments included), recording its
    /// commands; register the mocks of the second run on it, and give it the first run's
    /// ledger ([`ProcessTest::with_ledger`]).
    pub fn from_snapshot(snapshot: &Snapshot) -> Result<ProcessTest, SnapshotError> {
        let test = ProcessTest::new();
        test.restart_from(snapshot)?;
        Ok(test)
    }

    /// Restarts this test from a snapshot (as after a crash: what the engine did since is lost):
    /// the engine comes back as it was saved, with its settings; the workers
    /// are new (mocks, AI agent mocks, faults, side-effect declarations, answers on their way
    /// and hooks are dropped: register the second run's); the ledger, the invariants and the
    /// settings stay, and the ledger's next side effects count as the next run's. The test's
    /// own deployments must be those the snapshot was taken with (a test from
    /// [`Deployment::test`](crate::Deployment::test) restores the snapshot of another test of
    /// that deployment).
    pub fn restart_from(&self, snapshot: &Snapshot) -> Result<&Self, SnapshotError> {
        {
            let inner = self.inner.borrow();
            check_deployment(&inner, snapshot)?;
        }
        let engine = snapshot.engine()?;
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        inner.feed = JobFeed::from_now(&engine);
        inner.engine = engine;
        inner.history = crate::history::History::default();
        inner.roots = snapshot.roots.clone();
        inner.job_mocks.clear();
        for mock in &inner.all_mocks {
            mock.borrow_mut().active = false;
        }
        inner.element_answerers.clear();
        inner.hooks.clear();
        inner.workers.restart();
        inner.trace.restart();
        inner.seed_after_restart();
        inner.sync();
        Ok(self)
    }
}

impl ProcessTest {
    /// Rebuilds the engine from its own snapshot and swaps it in (everything else goes on as
    /// it was): `Err` when the rebuilt engine's records differ. The CPT runner's restore check.
    pub fn reload_engine(&self) -> Result<(), String> {
        let snapshot = self.snapshot().map_err(|e| e.to_string())?;
        let engine = snapshot.engine().map_err(|e| e.to_string())?;
        let mut inner = self.inner.borrow_mut();
        let before = inner.engine.render_log();
        let after = engine.render_log();
        if let Some(difference) = first_difference_of(&before, &after) {
            return Err(format!(
                "a snapshot of the engine here restores to other records: {difference}"
            ));
        }
        inner.engine = engine;
        Ok(())
    }
}

/// The first line where two record logs differ, both shown (the restore check's message).
pub fn first_difference_of(a: &str, b: &str) -> Option<String> {
    let mut lines = a.lines().zip(b.lines());
    if let Some((x, y)) = lines.find(|(x, y)| x != y) {
        return Some(format!("\n  run through: {x}\n  restored:    {y}"));
    }
    let (n, m) = (a.lines().count(), b.lines().count());
    (n != m).then(|| format!("{n} records run through, {m} restored"))
}

/// Whether a test may restore `snapshot`: the resources it deployed are the snapshot's (as far
/// as both go).
fn check_deployment(inner: &Inner, snapshot: &Snapshot) -> Result<(), SnapshotError> {
    let deployed = resources_of(&inner.engine);
    for (i, (name, hash)) in deployed.iter().enumerate() {
        match snapshot.resources.get(i) {
            Some((n, h)) if n == name && h == hash => {}
            Some((n, h)) if n == name => {
                return Err(SnapshotError::OtherDeployment {
                    what: format!(
                        "{name} differs ({h} in the snapshot, {hash} deployed): the file changed since the snapshot was taken"
                    ),
                });
            }
            Some((n, _)) => {
                return Err(SnapshotError::OtherDeployment {
                    what: format!("the snapshot deployed {n} where this test deployed {name}"),
                });
            }
            None => {
                return Err(SnapshotError::OtherDeployment {
                    what: format!("the snapshot has no resource {name}"),
                });
            }
        }
    }
    Ok(())
}
