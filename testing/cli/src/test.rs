//! `baton test PATH...`: runs Camunda Process Test JSON files (see `baton_cpt`).
//!
//! Prints one line per test case as it finishes (`ok`, `FAILED` with the reason and the run
//! explained, `skipped` with the reason), the coverage, and last `N passed, M failed`
//! (`, K skipped`). Exits 0 only when no case failed. On a terminal, a status line on stderr
//! shows which case runs when a run takes long.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use baton_cpt::{self as cpt, Event};
use baton_providers::{ModelChoice, ModelClient};
use baton_testing::agent::recording::AgentCommand;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Test files (`*.test.json`, or JSON with a `testCases` array), or folders searched for
    /// them. The .bpmn/.dmn/.form files beside each test file are deployed with it.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Run only the test cases whose `<file> › <name>` contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Also deploy this file with every test file (repeatable).
    #[arg(long, value_name = "FILE")]
    deploy: Vec<PathBuf>,
    /// Write a JUnit XML report here (for CI).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write one coverage file per test case into this folder (merge them with
    /// `baton coverage report --input DIR`).
    #[arg(long, value_name = "DIR")]
    coverage_dir: Option<PathBuf>,
    /// Write each test case's run as engine commands (a JSON command log that replays to the
    /// same records) into this folder.
    #[arg(long, value_name = "DIR")]
    commands_dir: Option<PathBuf>,
    /// Write the coverage as Camunda Process Test's coverage report JSON (CPT writes it as
    /// target/process-test-coverage/report.json), for Camunda's coverage viewer.
    #[arg(long, value_name = "FILE")]
    cpt_json: Option<PathBuf>,
    /// Run only part K of N of the test cases (1-based; the same split on every machine), for
    /// a CI matrix; merge the parts' coverage with `baton coverage report --input DIR`.
    #[arg(long, value_name = "K/N", value_parser = super::explore::parse_shard)]
    shard: Option<(usize, usize)>,
    /// Record the cassette of every MOCK_AI_AGENT (whatever its `mode`), each model call
    /// answered by --agent-command, else by the model provider the agent element names (or
    /// --model); the files are written after every call.
    #[arg(long)]
    record: bool,
    /// With --record: the provider and model every agent calls instead of the one its element
    /// names, as PROVIDER:MODEL (anthropic:claude-sonnet-4-5, openai:gpt-4o,
    /// openai-compatible:llama3.1, bedrock:MODEL_ID, azure-openai:DEPLOYMENT, vertex-ai:MODEL,
    /// gemini:MODEL). Keys and base URLs come from each provider's environment variables.
    #[arg(
        long,
        value_name = "PROVIDER:MODEL",
        requires = "record",
        conflicts_with = "agent_command"
    )]
    model: Option<ModelChoice>,
    /// The model adapter when recording: a program (run by the shell) that reads one request as
    /// JSON on stdin and prints the turn that answers it as JSON on stdout.
    #[arg(long, value_name = "CMD")]
    agent_command: Option<String>,
    /// How long --agent-command may take for one turn, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60.0,
        allow_negative_numbers = true
    )]
    agent_timeout: f64,
    /// Replay cassettes without failing on drift and print, per test case, how the run left
    /// each cassette (requests, turns, path, final state). With --agent-command, the command
    /// answers instead of the cassette (a live model compared with the recording).
    #[arg(long, conflicts_with = "record")]
    drift: bool,
    /// Run each case twice: through, and restored from a snapshot of its engine after every
    /// instruction; the case fails when the two end with other records.
    #[arg(long)]
    check_restore: bool,
    /// Print the report as one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Run the test files on this endpoint of Camunda's REST API v2 instead of in-process:
    /// `baton serve`, Camunda 8 Run (http://localhost:8080), Self-Managed or SaaS.
    #[arg(long, value_name = "URL", conflicts_with_all = ["record", "drift", "check_restore", "commands_dir", "coverage_dir", "cpt_json", "shard"])]
    remote: Option<String>,
    /// Where the endpoint's management routes are (/actuator/clock, /actuator/cluster/purge);
    /// the --remote URL by default (Camunda 8 Run serves them on http://localhost:9600).
    #[arg(long, value_name = "URL", requires = "remote")]
    management: Option<String>,
    /// How requests to --remote authenticate: none, basic:USER:PASS, basic (from
    /// CAMUNDA_BASIC_AUTH_USERNAME and CAMUNDA_BASIC_AUTH_PASSWORD) or oauth (client
    /// credentials from CAMUNDA_CLIENT_ID, CAMUNDA_CLIENT_SECRET, CAMUNDA_OAUTH_URL, and
    /// optionally CAMUNDA_TOKEN_AUDIENCE and CAMUNDA_TOKEN_SCOPE).
    #[arg(long, value_name = "MODE", default_value = "none", requires = "remote")]
    auth: String,
    /// With --remote: how long an assertion polls the eventually consistent endpoint before it
    /// fails (`10s`, `500ms`).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout, requires = "remote")]
    assert_timeout: Duration,
    /// With --remote: also run every case on baton's engine (served in-process on a loopback
    /// port, through the same REST runner) and report, per case, where the observable outcomes
    /// differ; exits 1 when any does.
    #[arg(long, requires = "remote")]
    compare: bool,
    /// Do not print the coverage report.
    #[arg(long)]
    no_coverage: bool,
}

/// After this long, a terminal gets a status line saying which case runs.
const PROGRESS_AFTER: Duration = Duration::from_millis(300);

struct Progress {
    enabled: bool,
    start: Instant,
    shown: bool,
}

impl Progress {
    fn show(&mut self, text: &str) {
        if !self.enabled || self.start.elapsed() < PROGRESS_AFTER {
            return;
        }
        let line: String = text.chars().take(110).collect();
        eprint!("\r\x1b[2K{line}");
        let _ = std::io::stderr().flush();
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
            self.shown = false;
        }
    }
}

/// Reads `10s`, `500ms` or `2` (seconds).
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.strip_suffix("ms") {
        Some(n) => (n, 0.001),
        None => (text.strip_suffix('s').unwrap_or(text), 1.0),
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0 && *n <= 86_400.0)
        .map(|n| Duration::from_secs_f64(n * unit))
        .ok_or_else(|| format!("expected a duration such as 10s or 500ms, got \"{text}\""))
}

pub fn run(args: &Args) -> ExitCode {
    let agent_timeout = match Duration::try_from_secs_f64(args.agent_timeout) {
        Ok(timeout) if !timeout.is_zero() => timeout,
        Err(_) if args.agent_timeout.is_finite() && args.agent_timeout > 0.0 => {
            eprintln!(
                "baton test: --agent-timeout {:?} is more seconds than can be counted (at most {})",
                args.agent_timeout,
                u64::MAX
            );
            return ExitCode::FAILURE;
        }
        _ => {
            eprintln!(
                "baton test: --agent-timeout must be a positive number of seconds, got {}",
                args.agent_timeout
            );
            return ExitCode::FAILURE;
        }
    };
    let options = cpt::Options {
        filter: args.filter.clone(),
        coverage_dir: args.coverage_dir.clone(),
        deploy: args.deploy.clone(),
        commands_dir: args.commands_dir.clone(),
        shard: args.shard,
        record: args.record,
        agent_command: args
            .agent_command
            .as_ref()
            .map(|command| AgentCommand::new(command.clone()).with_timeout(agent_timeout)),
        // Without an agent command, a recording asks the provider each element names.
        model: (args.record && args.agent_command.is_none()).then(|| {
            let choice = args.model.clone();
            cpt::ModelSource(Rc::new(move |_agent: &str| {
                ModelClient::new(choice.clone()).into_turn_source()
            }))
        }),
        drift: args.drift,
        check_restore: args.check_restore,
    };
    let mut progress = Progress {
        enabled: std::io::stderr().is_terminal(),
        start: Instant::now(),
        shown: false,
    };
    let text = !args.json;
    let mut on_event = |event: Event<'_>| match event {
        Event::Started { .. } => {}
        Event::Suite(info) => {
            let notes = cpt::text::suite_text(info);
            if text && !notes.is_empty() {
                progress.clear();
                outln!("{notes}");
            }
        }
        Event::CaseStarted {
            title,
            index,
            total,
        } => {
            progress.show(&format!("[{}/{total}] {title}", index + 1));
        }
        Event::CaseFinished { result, .. } => {
            if text {
                progress.clear();
                outln!("{}", cpt::text::case_text(result));
            }
        }
    };
    let mut comparison = None;
    let report = match &args.remote {
        None => cpt::run_with(&args.paths, &options, &mut on_event).map_err(|e| e.to_string()),
        Some(url) => run_remote(args, url, &mut on_event).map(|(report, compared)| {
            comparison = compared;
            report
        }),
    };
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            progress.clear();
            eprintln!("baton test: {e}");
            return ExitCode::FAILURE;
        }
    };
    progress.clear();
    if let Some(path) = &args.junit
        && let Err(e) = std::fs::write(path, cpt::junit::junit_xml(&report))
    {
        eprintln!("baton test: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    if let Some(path) = &args.cpt_json
        && let Err(e) = baton_testing::coverage::cpt_json::write(path, &report.case_coverage)
    {
        eprintln!("baton test: cannot write the CPT coverage report: {e}");
        return ExitCode::FAILURE;
    }
    if args.json {
        let mut document = cpt::json::report_json(&report);
        if let (Some(compared), Some(object)) = (&comparison, document.as_object_mut()) {
            object.insert(
                "comparison".into(),
                baton_remote::compare::comparison_json(compared),
            );
        }
        let json = serde_json::to_string_pretty(&document).expect("the report serializes");
        outln!("{json}");
    } else {
        if let Some(compared) = &comparison {
            outln!();
            out!("{}", baton_remote::compare::comparison_text(compared));
        }
        if !args.no_coverage && !report.coverage.processes.is_empty() {
            outln!();
            out!("{}", report.coverage_report());
        }
        outln!();
        outln!("{}", report.summary());
    }
    let same = comparison
        .as_ref()
        .is_none_or(|c| c.iter().all(|c| c.differences.is_empty()));
    if report.success() && same {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `--remote URL`: the files run on the endpoint; with `--compare`, on baton too, and the two
/// compared.
fn run_remote(
    args: &Args,
    url: &str,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<
    (
        cpt::Report,
        Option<Vec<baton_remote::compare::CaseComparison>>,
    ),
    String,
> {
    let auth = baton_remote::Auth::parse(&args.auth, &|name| std::env::var(name).ok())?;
    // A request gives up well after the longest poll it may be part of.
    let request_timeout = args.assert_timeout.max(Duration::from_secs(10)) * 3;
    let client = baton_remote::Client::new(url, args.management.as_deref(), auth, request_timeout);
    let options = baton_remote::RemoteOptions {
        assert_timeout: args.assert_timeout,
        filter: args.filter.clone(),
        deploy: args.deploy.clone(),
    };
    if !args.compare {
        return baton_remote::run_remote(&client, &args.paths, &options, on_event)
            .map(|report| (report, None))
            .map_err(|e| e.to_string());
    }
    let (report, remote) = baton_remote::observe_remote(&client, &args.paths, &options, on_event)
        .map_err(|e| e.to_string())?;
    let server = baton_serve::Server::start(baton_serve::ServeConfig::default().port(0))
        .map_err(|e| format!("--compare: baton's run cannot start: {e}"))?;
    let local = baton_remote::Client::new(
        &server.url(),
        None,
        baton_remote::Auth::None,
        request_timeout,
    );
    let (_, reference) = baton_remote::observe_remote(&local, &args.paths, &options, &mut |_| {})
        .map_err(|e| format!("--compare: baton's run: {e}"))?;
    server.stop();
    Ok((
        report,
        Some(baton_remote::compare::compare(&reference, &remote)),
    ))
}
