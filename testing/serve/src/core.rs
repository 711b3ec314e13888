//! The engine thread: one [`Core`] (a `ProcessTest` with its engine and mocks, the clock, the
//! read model) owned by one thread that carries out requests one at a time, in the order they
//! arrive. The HTTP face talks to it through a [`CoreHandle`].
//!
//! The clock: the engine's clock follows the wall clock (plus an offset the management routes
//! move) unless `PUT /v2/clock` pinned it. Before each request the engine clock is moved to
//! the wall time, so what the request creates carries the time it arrived (a job's deadline,
//! an instance's start date); a background tick moves it when something falls due (timers, job
//! timeouts, backoffs, message expiry). Time is mapped here, at the edge: the engine itself
//! only ever sees clock commands.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{SystemTime, UNIX_EPOCH};

use baton_engine::{Engine, Rejection};
use baton_testing::ProcessTest;
use tokio::sync::{Notify, oneshot};

use crate::read_model::ReadModel;

/// How the engine clock relates to the wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClockMode {
    /// Wall time plus an offset (milliseconds; the actuator's `clock/add` grows it).
    Wall { offset_ms: i64 },
    /// Pinned at an instant (`PUT /v2/clock`); only clock requests move it.
    Pinned,
}

/// What the engine thread owns.
pub(crate) struct Core {
    pub test: ProcessTest,
    pub clock: ClockMode,
    pub read: ReadModel,
    /// The mocks registered (kept so their handles live as long as the server).
    pub mocks: Vec<baton_testing::JobMock>,
    pub agents: Vec<baton_testing::agent::AiAgentHandle>,
    /// The last cluster purge (the actuator's `changeId`; 0: none yet).
    pub change_id: u64,
    /// What a create request gave a process instance that the engine does not keep: its tags
    /// and business id.
    pub meta: std::collections::BTreeMap<baton_engine::Key, (Vec<String>, Option<String>)>,
}

/// The wall clock in epoch milliseconds.
pub(crate) fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Core {
    pub fn new(test: ProcessTest) -> Core {
        let mut core = Core {
            test,
            clock: ClockMode::Wall { offset_ms: 0 },
            read: ReadModel::default(),
            mocks: Vec::new(),
            agents: Vec::new(),
            change_id: 0,
            meta: Default::default(),
        };
        core.follow_wall_clock();
        core
    }

    /// Runs an engine command, lets the mocks answer, and keeps the read model up to date.
    pub fn act<T>(
        &mut self,
        command: impl FnOnce(&mut Engine) -> Result<T, Rejection>,
    ) -> Result<T, Rejection> {
        let result = self.test.act(command);
        self.sync();
        result
    }

    /// Reads the engine.
    pub fn engine<T>(&self, read: impl FnOnce(&Engine) -> T) -> T {
        self.test.with_engine(read)
    }

    /// Lets the mocks answer what waits (after a mock was registered).
    pub fn settle(&mut self) {
        let _ = self.act(|_| Ok(()));
    }

    pub fn sync(&mut self) {
        let read = &mut self.read;
        self.test.with_engine(|e| read.sync(e));
    }

    /// The time the engine clock should show now.
    pub fn target_time(&self) -> Option<i64> {
        match self.clock {
            ClockMode::Wall { offset_ms } => Some(wall_ms().saturating_add(offset_ms)),
            ClockMode::Pinned => None,
        }
    }

    /// Moves the engine clock to the wall time (when it follows it and the wall time is ahead).
    pub fn follow_wall_clock(&mut self) {
        if let Some(target) = self.target_time()
            && target > self.engine(Engine::now)
        {
            // A time between the epoch and year 9999 is never refused.
            let _ = self.act(|e| e.set_clock(target));
        }
    }

    /// The engine clock as the actuator reports it: `{"epochMilli", "instant"}`.
    pub fn clock_json(&self) -> serde_json::Value {
        let now = self.engine(Engine::now);
        serde_json::json!({"epochMilli": now, "instant": crate::read_model::iso(now)})
    }

    /// Moves the clock only when something is due by the wall time (the background tick).
    pub fn fire_due(&mut self) {
        if let Some(target) = self.target_time()
            && self
                .engine(Engine::next_due_time)
                .is_some_and(|due| due <= target)
        {
            self.follow_wall_clock();
        }
    }
}

type Task = Box<dyn FnOnce(&mut Core) + Send>;

/// The engine thread went away (a bug inside the engine panicked while serving a request).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CoreGone;

/// How the HTTP face reaches the core: send a closure, await its answer.
#[derive(Clone)]
pub(crate) struct CoreHandle {
    tasks: mpsc::Sender<Task>,
    /// Woken after every request that changed the engine: long polls and `awaitCompletion`
    /// look again.
    pub changed: Arc<Notify>,
}

impl CoreHandle {
    /// Starts the engine thread; `init` builds the core there (the `ProcessTest` is not `Send`)
    /// and may refuse to start.
    pub fn spawn<E: Send + 'static>(
        init: impl FnOnce() -> Result<Core, E> + Send + 'static,
    ) -> Result<(CoreHandle, std::thread::JoinHandle<()>), E> {
        let (tasks, inbox) = mpsc::channel::<Task>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), E>>();
        let changed = Arc::new(Notify::new());
        let wake = changed.clone();
        let thread = std::thread::Builder::new()
            .name("baton-engine".into())
            .spawn(move || {
                let mut core = match init() {
                    Ok(core) => {
                        let _ = ready_tx.send(Ok(()));
                        core
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                core.sync();
                while let Ok(task) = inbox.recv() {
                    let before = core.read.position();
                    // A panic answers this request with an error (its sender is dropped); the
                    // next request finds the engine as the panic left it.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| task(&mut core)));
                    if core.read.position() != before {
                        wake.notify_waiters();
                    }
                }
            })
            .expect("the engine thread starts");
        match ready_rx.recv() {
            Ok(Ok(())) => Ok((CoreHandle { tasks, changed }, thread)),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => panic!("the engine thread stopped while starting"),
        }
    }

    /// Carries out `f` on the engine thread after moving the clock to the wall time.
    pub async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Core) -> T + Send + 'static,
    ) -> Result<T, CoreGone> {
        self.raw(move |core| {
            core.follow_wall_clock();
            f(core)
        })
        .await
    }

    /// Carries out `f` as it is (no clock move first).
    pub async fn raw<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Core) -> T + Send + 'static,
    ) -> Result<T, CoreGone> {
        let (answer, answered) = oneshot::channel();
        self.tasks
            .send(Box::new(move |core| {
                let _ = answer.send(f(core));
            }))
            .map_err(|_| CoreGone)?;
        answered.await.map_err(|_| CoreGone)
    }
}
