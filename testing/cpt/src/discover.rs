//! Finding test files and what to deploy for them.
//!
//! A path is a test file, or a folder searched recursively (hidden folders, `target` and
//! `node_modules` are skipped) for `*.test.json` files and other `*.json` files whose top level
//! has a `testCases` array. The test files of one folder form a [`Suite`]: the `.bpmn`, `.dmn`
//! and `.form` files of that folder (not of sub-folders) are its resources, deployed once and
//! cloned into every test case, as a CPT test class deploys its resources for each test.

use std::path::{Path, PathBuf};

use super::model::{FormatError, TestFile};

/// The resource kinds a suite deploys, by extension.
pub const RESOURCE_EXTENSIONS: &[&str] = &["bpmn", "dmn", "form"];

/// The largest test file read (a guard against reading a huge unrelated JSON file).
pub const MAX_TEST_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Test files of one folder and the resources they run against.
#[derive(Debug, Clone)]
pub struct Suite {
    pub dir: PathBuf,
    /// Resources of the folder plus the extra ones asked for, in path order.
    pub resources: Vec<PathBuf>,
    pub files: Vec<SuiteFile>,
}

/// One test file, read or not.
#[derive(Debug, Clone)]
pub struct SuiteFile {
    pub path: PathBuf,
    pub content: Result<TestFile, FileError>,
}

/// Why a test file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    Io(String),
    Format(FormatError),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::Io(m) => f.write_str(m),
            FileError::Format(e) => e.fmt(f),
        }
    }
}

/// Why the paths given name no tests.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoverError {
    #[error("{0}: no such file or folder")]
    NotFound(PathBuf),
    #[error("{0}: cannot read: {1}")]
    Io(PathBuf, String),
    #[error("{0}: not a test file (a JSON file with a `testCases` array)")]
    NotATestFile(PathBuf),
    #[error("no test file (*.test.json, or *.json with a `testCases` array) in {}", list(.0))]
    NoTests(Vec<PathBuf>),
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Finds the suites of `paths`; `deploy` is added to the resources of every suite.
pub fn discover(paths: &[PathBuf], deploy: &[PathBuf]) -> Result<Vec<Suite>, DiscoverError> {
    let mut found: Vec<(PathBuf, Result<TestFile, FileError>)> = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut found)?;
        } else if path.is_file() {
            let content = read_test_file(path);
            if let Err(FileError::Format(e)) = &content
                && e.path.is_empty()
                && e.message == NOT_A_TEST_FILE
            {
                return Err(DiscoverError::NotATestFile(path.clone()));
            }
            found.push((path.clone(), content));
        } else {
            return Err(DiscoverError::NotFound(path.clone()));
        }
    }
    if found.is_empty() {
        return Err(DiscoverError::NoTests(paths.to_vec()));
    }
    // One suite per folder, folders in path order, files in path order, no file twice.
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.dedup_by(|a, b| a.0 == b.0);
    let mut suites: Vec<Suite> = Vec::new();
    for (path, content) in found {
        let dir = baton_testing::files::folder_of(&path).to_path_buf();
        let file = SuiteFile { path, content };
        match suites.iter_mut().find(|s| s.dir == dir) {
            Some(suite) => suite.files.push(file),
            None => {
                let mut resources = resources_of(&dir)?;
                for extra in deploy {
                    if !resources.contains(extra) {
                        resources.push(extra.clone());
                    }
                }
                suites.push(Suite {
                    dir,
                    resources,
                    files: vec![file],
                });
            }
        }
    }
    Ok(suites)
}

const NOT_A_TEST_FILE: &str = "not a test file";

/// Reads and parses a test file.
pub fn read_test_file(path: &Path) -> Result<TestFile, FileError> {
    let text = read_bounded(path)?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        FileError::Format(FormatError {
            path: String::new(),
            message: format!(
                "not valid JSON at line {} column {}: {}",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            ),
        })
    })?;
    if !TestFile::is_test_file(&value) && !is_named_test_file(path) {
        return Err(FileError::Format(FormatError {
            path: String::new(),
            message: NOT_A_TEST_FILE.to_owned(),
        }));
    }
    TestFile::from_json(&value).map_err(FileError::Format)
}

fn read_bounded(path: &Path) -> Result<String, FileError> {
    let size = std::fs::metadata(path)
        .map_err(|e| FileError::Io(format!("cannot read: {e}")))?
        .len();
    if size > MAX_TEST_FILE_BYTES {
        return Err(FileError::Io(format!(
            "the file has {size} bytes, more than the {MAX_TEST_FILE_BYTES} a test file may have"
        )));
    }
    std::fs::read_to_string(path).map_err(|e| FileError::Io(format!("cannot read: {e}")))
}

fn is_named_test_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".test.json"))
}

fn skipped_dir(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') || n == "target" || n == "node_modules")
}

fn entries(dir: &Path) -> Result<Vec<PathBuf>, DiscoverError> {
    let io = |e: std::io::Error| DiscoverError::Io(dir.to_path_buf(), e.to_string());
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        paths.push(entry.map_err(io)?.path());
    }
    paths.sort();
    Ok(paths)
}

fn walk(
    dir: &Path,
    found: &mut Vec<(PathBuf, Result<TestFile, FileError>)>,
) -> Result<(), DiscoverError> {
    for path in entries(dir)? {
        if path.is_dir() {
            if !skipped_dir(&path) {
                walk(&path, found)?;
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        match read_test_file(&path) {
            Err(FileError::Format(e)) if e.path.is_empty() && !is_named_test_file(&path) => {
                // Another JSON file (a cassette, coverage, a package manifest): not ours.
                continue;
            }
            content => found.push((path, content)),
        }
    }
    Ok(())
}

/// The resources of a folder (not its sub-folders), in path order.
pub fn resources_of(dir: &Path) -> Result<Vec<PathBuf>, DiscoverError> {
    Ok(entries(dir)?
        .into_iter()
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| RESOURCE_EXTENSIONS.contains(&e))
        })
        .collect())
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
