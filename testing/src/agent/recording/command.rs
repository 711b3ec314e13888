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
    #[error("the agent command `{command}` did not answer model call {call} of \"{agent}\" within {} s: it was stopped (raise the limit with --agent-timeout){}", timeout.as_secs_f64(), stderr_tail(stderr))]
    TimedOut {
        command: String,
        agent: String,
        call: u32,
        timeout: Duration,
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
        // writes much never blocks on a full pipe.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let out = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stdout.read_to_end(&mut text);
            text
        });
        let err = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stderr.read_to_end(&mut text);
            text
        });
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if started.elapsed() >= self.timeout => break None,
                Ok(None) => std::thread::sleep(POLL),
                Err(error) => {
                    return Err(AgentCommandError::Spawn {
                        command: self.command.clone(),
                        error,
                    });
                }
            }
        };
        let Some(status) = status else {
            let _ = child.kill();
            let _ = child.wait();
            let _ = writer.join();
            let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
            return Err(AgentCommandError::TimedOut {
                command: self.command.clone(),
                agent: agent.to_string(),
                call,
                timeout: self.timeout,
                stderr,
            });
        };
        let _ = writer.join();
        let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
        let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
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
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(command);
    shell
}

#[cfg(not(unix))]
fn shell(command: &str) -> Command {
    let mut shell = Command::new("cmd");
    shell.arg("/C").arg(command);
    shell
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
        the agent command `sleep 5` did not answer model call 2 of "support-agent" within 0.2 s: it was stopped (raise the limit with --agent-timeout)
        "#);
    }
}
