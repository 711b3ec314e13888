//! `--data DIR`: the engine's commands appended to `DIR/commands.jsonl` (one JSON command a
//! line) and flushed to disk before a request is answered; on start the log is replayed (the
//! engine is deterministic: the same commands give the same state). A server killed at any
//! moment loses no command it acknowledged: a line it did not finish writing was never
//! acknowledged, and is dropped when the log is read.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use baton_engine::Engine;
use baton_engine::runtime::Command;

/// The log's file name inside the data folder.
pub const LOG_FILE: &str = "commands.jsonl";

/// The open command log.
#[derive(Debug)]
pub(crate) struct CommandLog {
    path: PathBuf,
    file: File,
    /// How many of the engine's recorded commands are in the file.
    written: usize,
}

impl CommandLog {
    /// Opens (or creates) the log in `dir` and reads the commands it holds. A last line cut
    /// short (a crash while writing it) is dropped from the file; any other line that does not
    /// read is an error naming it.
    pub fn open(dir: &Path) -> Result<(CommandLog, Vec<Command>), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(LOG_FILE);
        let text = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let mut commands = Vec::new();
        let mut good = 0usize;
        let mut lines = text.split_inclusive(|b| *b == b'\n').peekable();
        let mut number = 0;
        while let Some(line) = lines.next() {
            number += 1;
            let complete = line.ends_with(b"\n");
            match serde_json::from_slice::<Command>(line) {
                Ok(command) if complete => {
                    commands.push(command);
                    good += line.len();
                }
                // The last line, never finished: the command was not acknowledged.
                _ if lines.peek().is_none() => break,
                Err(e) => return Err(format!("{}:{number}: {e}", path.display())),
                Ok(_) => unreachable!("only the last line can lack its newline"),
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if good < text.len() {
            file.set_len(good as u64)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok((
            CommandLog {
                path,
                file,
                written: 0,
            },
            commands,
        ))
    }

    /// Appends the commands the engine carried out since the last call and flushes them to
    /// disk.
    pub fn append(&mut self, engine: &Engine) -> Result<(), String> {
        let commands = engine.recorded_commands().map_err(|e| e.to_string())?;
        if commands.len() <= self.written {
            return Ok(());
        }
        let mut bytes = Vec::new();
        for command in &commands[self.written..] {
            serde_json::to_writer(&mut bytes, command).map_err(|e| e.to_string())?;
            bytes.push(b'\n');
        }
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        self.written = commands.len();
        Ok(())
    }

    /// The commands already in the file (after a replay: all the engine recorded).
    pub fn mark_written(&mut self, count: usize) {
        self.written = count;
    }

    /// Empties the log (a cluster purge).
    pub fn truncate(&mut self) -> Result<(), String> {
        self.file
            .set_len(0)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        self.written = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_dropped_and_a_bad_line_before_it_is_an_error() {
        let dir = std::env::temp_dir().join(format!("baton-serve-log-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let good = r#"{"command":"advanceClock","millis":5}"#;
        std::fs::write(
            dir.join(LOG_FILE),
            format!("{good}\n{good}\n{{\"command\":\"adv"),
        )
        .unwrap();
        let (_, commands) = CommandLog::open(&dir).unwrap();
        assert_eq!(commands.len(), 2);
        assert_eq!(
            std::fs::read_to_string(dir.join(LOG_FILE)).unwrap(),
            format!("{good}\n{good}\n")
        );
        std::fs::write(dir.join(LOG_FILE), format!("{good}\nnope\n{good}\n")).unwrap();
        let error = CommandLog::open(&dir).unwrap_err();
        assert!(
            error.ends_with(":2: expected ident at line 1 column 2"),
            "{error}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
