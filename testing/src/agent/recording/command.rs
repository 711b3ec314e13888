//! The language-neutral model adapter: a program that reads one request as JSON on stdin and
//! writes the turn that answers it as JSON on stdout (a short Python or Node script calling the
//! user's model). baton itself never calls a model or the network.
//!
//! The request is `{"agent", "modelCall", "request": {tools, systemPrompt, userPrompt,
//! toolCallResults, events, responseFormat, limits, messages}}`, the values as the model sees
//! them (neither normalised nor redacted); the answer is a turn in the cassette format
//! (`{"toolCalls": [...]}`, `{"responseText": "..."}`, `{"error": "..."}`, ...).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::agent::problems::Problems;
use crate::agent::turn::Turn;

/// How long an agent command may take for one turn unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// A program run once per model call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCommand {
    /// The command line, run by the shell (`sh -c`, `cmd /C` on Windows).
    pub command: String,
    pub timeout: Duration,
}

/// Why the agent command gave no turn.
#[derive(Debug, thiserror::Error)]
pub enum AgentCommandError {
    #[error("cannot run the agent command `{command}`: {error}")]
    Spawn {
        command: String,
        #[source]
        error: std::io::Error,
    },
    #[error(
        "the agent command `{command}` failed ({status}) on model call {call} of \"{agent}\"{}",
        stderr_tail(stderr)
    )]
    Failed {
        command: String,
        agent: String,
        call: u32,
        status: String,
        stderr: String,
    },
    #[error("the agent command `{command}` did not answer model call {call} of \"{agent}\" within {} s{}: it was stopped, with what it started (raise the limit with --agent-timeout){}", timeout.as_secs_f64(), if *held_open { " (it ended, but a program it started still held its output open)" } else { "" }, stderr_tail(stderr))]
    TimedOut {
        command: String,
        agent: String,
        call: u32,
        timeout: Duration,
        /// The command itself ended; something it left running kept its stdout open.
        held_open: bool,
        stderr: String,
    },
    #[error(
        "the agent command `{command}` printed no JSON for model call {call} of \"{agent}\": {problem}; it must print one turn as JSON, e.g. {{\"responseText\": \"…\"}}{}",
        stderr_tail(stderr)
    )]
    NoJson {
        command: String,
        agent: String,
        call: u32,
        problem: String,
        stderr: String,
    },
    #[error(
        "the agent command `{command}` printed an invalid turn for model call {call} of \"{agent}\": {problems}"
    )]
    InvalidTurn {
        command: String,
        agent: String,
        call: u32,
        problems: Problems,
    },
}

fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.trim_end().lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = &lines[lines.len().saturating_sub(5)..];
    format!("; its stderr ends with:\n    {}", tail.join("\n    "))
}

/// How often a waiting run checks whether the program has ended.
const POLL: Duration = Duration::from_millis(5);

/// A century: the deadline of a timeout too long for the clock.
const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// How long the end of stderr is waited for once the program is done or stopped.
const GRACE: Duration = Duration::from_millis(200);

/// Reads a pipe to its end beside the run; the text arrives on the channel once the pipe is
/// closed (every process holding it has ended).
fn read_all(mut pipe: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = pipe.read_to_end(&mut text);
        let _ = sender.send(String::from_utf8_lossy(&text).into_owned());
    });
    receiver
}

impl AgentCommand {
    pub fn new(command: impl Into<String>) -> AgentCommand {
        AgentCommand {
            command: command.into(),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    pub fn with_timeout(mut self, timeout: Duration) -> AgentCommand {
        self.timeout = timeout;
        self
    }

    /// What the program reads on stdin for model call `call` of `agent`.
    pub fn input(agent: &str, call: u32, request: &Value) -> Value {
        let mut object = Map::new();
        object.insert("agent".into(), agent.into());
        object.insert("modelCall".into(), call.into());
        object.insert("request".into(), request.clone());
        Value::Object(object)
    }

    /// Runs the program for one model call and reads its turn.
    ///
    /// The program runs in a process group of its own: a timeout stops the shell and whatever it
    /// started (a `python3 model.py` under `sh -c` is the shell's child, and it holds the output
    /// open after the shell is gone). The timeout covers the output too: a program that exits but
    /// leaves something behind holding its stdout open is stopped at the same deadline.
    pub fn ask(&self, agent: &str, call: u32, request: &Value) -> Result<Turn, AgentCommandError> {
        let mut child = shell(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| AgentCommandError::Spawn {
                command: self.command.clone(),
                error,
            })?;
        let input = AgentCommand::input(agent, call, request).to_string();
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // Writing and reading run beside the wait so that a program that reads little or
        // writes much never blocks on a full pipe. Nobody joins the writer: it ends when the
        // pipe closes, at the latest when the program's group is stopped.
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let stdout = read_all(child.stdout.take().expect("stdout is piped"));
        let stderr = read_all(child.stderr.take().expect("stderr is piped"));
        let now = Instant::now();
        // A timeout past what the clock can count waits as good as forever.
        let deadline = now
            .checked_add(self.timeout)
            .unwrap_or_else(|| now + FOREVER);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => break None,
                Ok(None) => std::thread::sleep(POLL),
                Err(error) => {
                    stop(&mut child);
                    return Err(AgentCommandError::Spawn {
                        command: self.command.clone(),
                        error,
                    });
                }
            }
        };
        let output = match status {
            Some(_) => stdout
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .ok(),
            None => None,
        };
        let (Some(status), Some(stdout)) = (status, output) else {
            stop(&mut child);
            // Stopped, the group closes its pipes: what it wrote to stderr comes in at once.
            let stderr = stderr.recv_timeout(GRACE).unwrap_or_default();
            return Err(AgentCommandError::TimedOut {
                command: self.command.clone(),
                agent: agent.to_string(),
                call,
                timeout: self.timeout,
                held_open: status.is_some(),
                stderr,
            });
        };
        let stderr = stderr
            .recv_timeout(
                deadline
                    .saturating_duration_since(Instant::now())
                    .max(GRACE),
            )
            .unwrap_or_default();
        if !status.success() {
            return Err(AgentCommandError::Failed {
                command: self.command.clone(),
                agent: agent.to_string(),
                call,
                status: status.to_string(),
                stderr,
            });
        }
        let no_json = |problem: String| AgentCommandError::NoJson {
            command: self.command.clone(),
            agent: agent.to_string(),
            call,
            problem,
            stderr: stderr.clone(),
        };
        if stdout.trim().is_empty() {
            return Err(no_json("its output was empty".to_string()));
        }
        let value: Value = serde_json::from_str(stdout.trim()).map_err(|e| {
            let first_line: String = stdout
                .trim()
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(80)
                .collect();
            no_json(format!("{e} in output starting {:?}", first_line))
        })?;
        Turn::from_json(&value, "turn").map_err(|problems| AgentCommandError::InvalidTurn {
            command: self.command.clone(),
            agent: agent.to_string(),
            call,
            problems,
        })
    }
}

#[cfg(unix)]
fn shell(command: &str) -> Command {
    use std::os::unix::process::CommandExt;
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(command).process_group(0);
    shell
}

/// Stops the program and everything it started: its process group (the shell's pid is the
/// group's id), then the shell itself should the group be gone already.
#[cfg(unix)]
fn stop(child: &mut std::process::Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(not(unix))]
fn shell(command: &str) -> Command {
    let mut shell = Command::new("cmd");
    shell.arg("/C").arg(command);
    shell
}

#[cfg(not(unix))]
fn stop(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use serde_json::json;

    fn ask(command: &str, timeout_ms: u64) -> Result<Turn, AgentCommandError> {
        AgentCommand::new(command)
            .with_timeout(Duration::from_millis(timeout_ms))
            .ask("support-agent", 2, &json!({"userPrompt": "hi"}))
    }

    #[test]
    fn the_program_reads_the_request_and_answers_a_turn() {
        let turn = ask(
            r#"read input; case "$input" in *'"modelCall":2'*) echo '{"responseText": "second"}';; *) echo '{"error": "wrong call"}';; esac"#,
            10_000,
        )
        .unwrap();
        assert_eq!(turn, Turn::respond_text("second"));
    }

    #[test]
    fn failures_are_clear_errors() {
        let messages = [
            ask("echo boom >&2; exit 3", 10_000),
            ask("echo", 10_000),
            ask("echo 'I think you should call lookup-order'", 10_000),
            ask(r#"echo '{"tool_calls": []}'"#, 10_000),
            ask("sleep 5", 200),
        ]
        .map(|r| r.unwrap_err().to_string());
        insta::assert_snapshot!(messages.join("\n"), @r#"
        the agent command `echo boom >&2; exit 3` failed (exit status: 3) on model call 2 of "support-agent"; its stderr ends with:
            boom
        the agent command `echo` printed no JSON for model call 2 of "support-agent": its output was empty; it must print one turn as JSON, e.g. {"responseText": "…"}
        the agent command `echo 'I think you should call lookup-order'` printed no JSON for model call 2 of "support-agent": expected value at line 1 column 1 in output starting "I think you should call lookup-order"; it must print one turn as JSON, e.g. {"responseText": "…"}
        the agent command `echo '{"tool_calls": []}'` printed an invalid turn for model call 2 of "support-agent": turn has unknown field "tool_calls" (did you mean "toolCalls"?)
        the agent command `sleep 5` did not answer model call 2 of "support-agent" within 0.2 s: it was stopped, with what it started (raise the limit with --agent-timeout)
        "#);
    }

    /// A hang under the shell (`sh -c "python3 model.py"` makes the adapter the shell's child)
    /// is stopped at the timeout with everything the shell started, and so is a program that
    /// ends but leaves something holding its output open: neither makes the recording wait
    /// for the program's children.
    #[test]
    fn a_timeout_stops_what_the_command_started() {
        let started = Instant::now();
        let messages = [
            ask("echo thinking >&2; sleep 30; echo '{}'", 300),
            ask("(sleep 30 &); echo '{\"responseText\": \"late\"}'", 300),
        ]
        .map(|r| r.unwrap_err().to_string());
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "stopped at the timeout, not when the sleeps end: {:?}",
            started.elapsed()
        );
        insta::assert_snapshot!(messages.join("\n"), @r#"
        the agent command `echo thinking >&2; sleep 30; echo '{}'` did not answer model call 2 of "support-agent" within 0.3 s: it was stopped, with what it started (raise the limit with --agent-timeout); its stderr ends with:
            thinking
        the agent command `(sleep 30 &); echo '{"responseText": "late"}'` did not answer model call 2 of "support-agent" within 0.3 s (it ended, but a program it started still held its output open): it was stopped, with what it started (raise the limit with --agent-timeout)
        "#);
    }
}
