//! Starting and stopping a server: [`Server::start`] builds the engine (deploying and
//! registering mocks first), binds, and serves on a runtime of its own, so a synchronous Rust
//! test can start one on a free port, talk to it over HTTP, and stop it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use baton_testing::ProcessTest;
use tokio::sync::oneshot;

use crate::ServeConfig;
use crate::core::{Core, CoreHandle};
use crate::http::{AppState, router};
use crate::mock_files::{JobMockSpec, agent_script};

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot deploy: {0}")]
    Deploy(String),
    #[error("--mock {job_type}={file}: {message}")]
    Mock {
        job_type: String,
        file: String,
        message: String,
    },
    #[error("--agent {element_id}={file}: {message}")]
    Agent {
        element_id: String,
        file: String,
        message: String,
    },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the server's runtime: {0}")]
    Runtime(std::io::Error),
}

/// The server: see [`Server::start`].
pub struct Server;

/// A running server: its address, and `stop()`.
pub struct ServerHandle {
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    http: Option<std::thread::JoinHandle<()>>,
    engine: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Builds the engine (deploys `config.deploy`, registers the mocks), binds the address and
    /// starts serving; returns once the server accepts requests.
    pub fn start(config: ServeConfig) -> Result<ServerHandle, StartError> {
        let config = Arc::new(config);
        let init_config = config.clone();
        let (core, engine) = CoreHandle::spawn(move || build_core(&init_config))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("baton-serve")
            .enable_io()
            .enable_time()
            .build()
            .map_err(StartError::Runtime)?;
        let requested = SocketAddr::new(config.host, config.port);
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(requested))
            .map_err(|source| StartError::Bind {
                addr: requested,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            addr: requested,
            source,
        })?;
        let state = AppState {
            core: core.clone(),
            config,
            addr,
        };
        let app = router(state);
        let (shutdown, stopped) = oneshot::channel::<()>();
        let http = std::thread::Builder::new()
            .name("baton-serve".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let ticker = tokio::spawn(tick(core));
                    let _ = axum::serve(listener, app)
                        .with_graceful_shutdown(async {
                            let _ = stopped.await;
                        })
                        .await;
                    ticker.abort();
                });
                // Long polls still held are dropped with the runtime.
                runtime.shutdown_timeout(Duration::from_secs(1));
            })
            .map_err(StartError::Runtime)?;
        Ok(ServerHandle {
            addr,
            shutdown: Some(shutdown),
            http: Some(http),
            engine: Some(engine),
        })
    }
}

/// Fires what falls due by the wall clock (timers, job timeouts, backoffs, message expiry).
async fn tick(core: CoreHandle) {
    let mut interval = tokio::time::interval(Duration::from_millis(50));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if core.raw(Core::fire_due).await.is_err() {
            return;
        }
    }
}

/// The core as the server starts: the `--deploy` files deployed, the file mocks registered
/// (a cluster purge builds it again).
pub(crate) fn build_core(config: &ServeConfig) -> Result<Core, StartError> {
    let mut test = ProcessTest::new();
    if let Some(dir) = &config.coverage_dir {
        test = test.named("baton-serve").coverage_dir(dir.clone());
    }
    // Waiting instances can wait for days, and clients loop: no runaway limit in practice.
    test = test.answer_limit(usize::MAX / 2);
    if !config.deploy.is_empty() {
        let resources = config
            .deploy
            .iter()
            .map(|path| {
                std::fs::read(path)
                    .map(|bytes| baton_engine::Resource::new(path.display().to_string(), bytes))
                    .map_err(|e| StartError::Deploy(format!("{}: {e}", path.display())))
            })
            .collect::<Result<Vec<_>, _>>()?;
        test.act(|e| e.deploy(&resources))
            .map_err(|r| StartError::Deploy(r.message))?;
    }
    let mut core = Core::new(test);
    for mock in &config.mocks {
        let problem = |message: String| StartError::Mock {
            job_type: mock.job_type.clone(),
            file: mock.file.display().to_string(),
            message,
        };
        let value = read_json(&mock.file).map_err(problem)?;
        let spec = JobMockSpec::from_json(&value, &mock.job_type).map_err(problem)?;
        let handle = spec.register(&core.test, &mock.job_type);
        core.mocks.push(handle);
    }
    for agent in &config.agents {
        let problem = |message: String| StartError::Agent {
            element_id: agent.element_id.clone(),
            file: agent.file.display().to_string(),
            message,
        };
        let value = read_json(&agent.file).map_err(problem)?;
        let script = agent_script(&value, &agent.file.display().to_string()).map_err(problem)?;
        let handle = core
            .test
            .try_mock_ai_agent(&agent.element_id, script)
            .map_err(|e| problem(e.to_string()))?;
        core.agents.push(handle);
    }
    core.sync();
    Ok(core)
}

fn read_json(path: &std::path::Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))
}

impl ServerHandle {
    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr>`: the REST address an SDK takes (it appends `/v2`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting requests, finishes those in flight, stops the engine (writing the
    /// coverage file when a folder was given).
    pub fn stop(mut self) {
        self.stop_now();
    }

    /// Serves until the process ends (the CLI).
    pub fn wait(mut self) {
        if let Some(http) = self.http.take() {
            let _ = http.join();
        }
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(http) = self.http.take() {
            let _ = http.join();
        }
        if let Some(engine) = self.engine.take() {
            let _ = engine.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop_now();
    }
}
