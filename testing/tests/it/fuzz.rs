//! Fuzzing of what baton-testing reads, on the stable toolchain:
//! - `fuzz_cpt_json`: mutated CPT test files (the fixtures, the templates and the shared corpus)
//!   are run beside their resources, twice with the same report.
//! - `fuzz_cassettes`: mutated cassettes (format 1 and format 2, recorded from the AI agent
//!   template) are read, then replayed against the template, twice with the same outcome.
//!
//! Each fails on a panic or stack overflow, on two runs that disagree, and (in a long run) on an
//! input that takes more than a second. How to run it, reproduce a seed and keep a regression:
//! `tests/README.md`. Minimized inputs live in `tests/fuzz-regressions/<surface>/`, which every
//! run checks first.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbitrary::{Result, Unstructured};
use baton_testing::ProcessTest;
use baton_testing::agent::recording::{CassetteMode, CassetteScript, Recording};
use baton_testing::agent::{Cassette, ToolCall, Turn};
use baton_testing::cpt::{self, Options};
use serde_json::{Value, json};

// ---- the driver (the same shape as baton-feel's and baton-engine's fuzzers) ----

/// How many cases a run tries: `BATON_FUZZ_CASES`, else the short run's count.
fn cases(short: u64) -> (u64, bool) {
    match std::env::var("BATON_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        Some(n) => (n, true),
        None => (short, false),
    }
}

/// The seeds of a run: the size of the random bytes in the low half (growing with the case
/// number, as arbtest grows them), a fixed sequence in the high half. The same cases every run.
/// Case `first` is the first of the run (`BATON_FUZZ_FIRST`, to continue a long run).
fn seeds(first: u64, count: u64, salt: u64) -> impl Iterator<Item = u64> {
    (first..first + count).map(move |i| {
        let size = 16 + (i % 64) * 64;
        let mut z = (i ^ salt)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z ^= z >> 29;
        let random = (z as u32) | 1;
        size | (u64::from(random) << 32)
    })
}

/// Runs `property` over the run's seeds, or over `BATON_FUZZ_SEED` alone (printing its input
/// with `show`, then minimizing it). A long run fails an input slower than a second.
fn fuzz(
    name: &str,
    short: u64,
    show: impl Fn(&mut Unstructured) -> Result<String>,
    property: impl Fn(&mut Unstructured, Option<Duration>) -> Result<()>,
) {
    let (count, long) = cases(short);
    let time_limit = long.then_some(Duration::from_secs(1));
    if let Ok(seed) = std::env::var("BATON_FUZZ_SEED") {
        let seed = u64::from_str_radix(seed.trim_start_matches("0x"), 16).expect("a hex seed");
        arbtest::arbtest(|u| {
            if let Ok(input) = show(u) {
                eprintln!("input:\n{input}");
            }
            Ok(())
        })
        .seed(seed)
        .run();
        // minimize() wants a failing seed: one that passes (the cause is fixed) says so
        let fails = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            arbtest::arbtest(|u| property(u, time_limit))
                .seed(seed)
                .run();
        }))
        .is_err();
        if !fails {
            eprintln!("seed {seed:#x} passes");
            return;
        }
        arbtest::arbtest(|u| property(u, time_limit))
            .seed(seed)
            .budget_ms(60_000)
            .minimize()
            .run();
        return;
    }
    let salt = name
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
    let first: u64 = std::env::var("BATON_FUZZ_FIRST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let start = Instant::now();
    // the slowest case so far (both runs) and its seed, for the long run's report
    let mut slowest = (Duration::ZERO, 0);
    for (i, seed) in seeds(first, count, salt).enumerate() {
        let case = Instant::now();
        arbtest::arbtest(|u| property(u, time_limit))
            .seed(seed)
            .run();
        slowest = slowest.max((case.elapsed(), seed));
        if long && i % 10_000 == 0 {
            eprintln!(
                "{name}: {i} cases, {:?}, slowest {:?} (seed {:#x})",
                start.elapsed(),
                slowest.0,
                slowest.1
            );
        }
    }
    if long {
        eprintln!(
            "{name}: {count} cases from case {first}, {:?}, slowest {:?} (seed {:#x})",
            start.elapsed(),
            slowest.0,
            slowest.1
        );
    }
}

/// Fails an input that took longer than the limit (long runs only).
fn within(limit: Option<Duration>, start: Instant, what: impl FnOnce() -> String) {
    if let Some(limit) = limit {
        let elapsed = start.elapsed();
        assert!(elapsed < limit, "took {elapsed:?}: {}", what());
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Files whose name ends in `suffix` under `dir` (recursively), in path order.
fn files(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files(&path, suffix, out);
        } else if path.to_string_lossy().ends_with(suffix) {
            out.push(path);
        }
    }
}

/// The regressions of a surface: minimized inputs a fuzzer once failed on.
fn regressions(surface: &str) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    files(&dir.join(surface), ".json", &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// A temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("baton-fuzz-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---- JSON mutations ----

/// Replaces, removes or duplicates parts of a JSON document (so that most mutants still read as
/// JSON and reach what is behind the reader), or edits its text.
fn mutated_json(u: &mut Unstructured, seed: &Value, tokens: &[&str]) -> Result<String> {
    let mut value = seed.clone();
    for _ in 0..u.int_in_range(1..=3)? {
        mutate_value(u, &mut value, tokens, 0)?;
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap();
    if u.ratio(1, 5)? {
        // a text edit: cut, a token, a repeated slice
        let mut bytes = text.into_bytes();
        let at = u.int_in_range(0..=bytes.len())?;
        match u.int_in_range(0..=2)? {
            0 => {
                let end = u.int_in_range(at..=bytes.len().min(at + 64))?;
                bytes.drain(at..end);
            }
            1 => {
                let token = u.choose(&["{", "}", "[", "]", ",", ":", "\"", "\\u0000", "1e999"])?;
                bytes.splice(at..at, token.bytes());
            }
            _ => {
                let end = u.int_in_range(at..=bytes.len().min(at + 32))?;
                let piece = bytes[at..end].to_vec();
                for _ in 0..u.int_in_range(1..=200)? {
                    bytes.splice(at..at, piece.iter().copied());
                }
            }
        }
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    Ok(text)
}

fn mutate_value(
    u: &mut Unstructured,
    value: &mut Value,
    tokens: &[&str],
    depth: u32,
) -> Result<()> {
    // The document and its top-level parts are kept (a mutant should mostly still read as a
    // test file or cassette and reach the run); below them, a value is replaced one time in four.
    let descend = depth < 2 || (depth < 12 && u.ratio(3, 4)?);
    match value {
        Value::Object(map) if descend && !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = u.choose(&keys)?.clone();
            match u.int_in_range(0..=9)? {
                0 => {
                    map.remove(&key);
                }
                1 => {
                    let other = (*u.choose(tokens)?).to_owned();
                    let moved = map.remove(&key).unwrap_or(Value::Null);
                    map.insert(other, moved);
                }
                _ => mutate_value(u, map.get_mut(&key).unwrap(), tokens, depth + 1)?,
            }
        }
        Value::Array(items) if descend && !items.is_empty() => {
            let i = u.choose_index(items.len())?;
            match u.int_in_range(0..=9)? {
                0 => {
                    items.remove(i);
                }
                1 => {
                    let copy = items[i].clone();
                    let n = u.int_in_range(1..=50)?;
                    for _ in 0..n {
                        items.insert(i, copy.clone());
                    }
                }
                2 => {
                    let j = u.choose_index(items.len())?;
                    items.swap(i, j);
                }
                _ => mutate_value(u, &mut items[i], tokens, depth + 1)?,
            }
        }
        _ => *value = generated(u, tokens, 2)?,
    }
    Ok(())
}

/// A JSON value from the surface's words, numbers at the edges, and nesting.
fn generated(u: &mut Unstructured, tokens: &[&str], depth: u32) -> Result<Value> {
    Ok(match u.int_in_range(0..=9)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(*u.choose(&[0i64, -1, 1, 3, i64::MAX, i64::MIN, 2_147_483_648])?),
        3 => json!(u.arbitrary::<f64>()?),
        4 | 5 => json!(*u.choose(tokens)?),
        6 => json!(u.arbitrary::<String>()?),
        7 if depth > 0 => {
            let mut items = Vec::new();
            for _ in 0..u.int_in_range(0..=3)? {
                items.push(generated(u, tokens, depth - 1)?);
            }
            Value::Array(items)
        }
        8 if depth > 0 => {
            let mut map = serde_json::Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                let key = (*u.choose(tokens)?).to_owned();
                map.insert(key, generated(u, tokens, depth - 1)?);
            }
            Value::Object(map)
        }
        _ => json!(format!("{}x", "- ".repeat(u.int_in_range(0..=3000)?))),
    })
}

// ---- CPT JSON ----

const CPT_TOKENS: &[&str] = &[
    "type",
    "name",
    "instructions",
    "testCases",
    "processDefinitionSelector",
    "processDefinitionId",
    "processInstanceSelector",
    "elementSelector",
    "elementSelectors",
    "elementId",
    "jobType",
    "jobSelector",
    "variables",
    "variableName",
    "satisfiesExpression",
    "duration",
    "time",
    "state",
    "IS_ACTIVE",
    "IS_COMPLETED",
    "IS_TERMINATED",
    "INCREASE_TIME",
    "SET_TIME",
    "CREATE_PROCESS_INSTANCE",
    "MOCK_JOB_WORKER_COMPLETE_JOB",
    "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
    "COMPLETE_JOB",
    "COMPLETE_USER_TASK",
    "PUBLISH_MESSAGE",
    "CORRELATE_MESSAGE",
    "BROADCAST_SIGNAL",
    "ASSERT_PROCESS_INSTANCE",
    "ASSERT_ELEMENT_INSTANCES",
    "ASSERT_VARIABLES",
    "CONDITIONAL_BEHAVIOR",
    "MOCK_AI_AGENT",
    "P1D",
    "PT1H",
    "P36500D",
    "P7000000D",
    "PT-1S",
    "2026-01-01T00:00:00Z",
    "9999-12-30T22:00:00Z",
    "x",
    "= x",
    "for i in 1..1000000 return i",
    "",
];

/// The CPT suites: each test file with the folder its resources are in.
fn cpt_corpus() -> Vec<(PathBuf, Value)> {
    let mut paths = Vec::new();
    files(&root().join("fixtures/cpt"), ".test.json", &mut paths);
    files(&root().join("templates"), ".test.json", &mut paths);
    if let Some(shared) = crate::support::shared_corpus() {
        files(&shared.join("cpt/cases"), ".test.json", &mut paths);
    }
    paths
        .into_iter()
        .filter_map(|p| {
            let value = serde_json::from_str(&std::fs::read_to_string(&p).ok()?).ok()?;
            Some((p.parent().unwrap().to_path_buf(), value))
        })
        .collect()
}

/// The resources beside each corpus test file (its folder's files, the test files left out).
fn cpt_resources(corpus: &[(PathBuf, Value)]) -> Vec<Vec<PathBuf>> {
    corpus
        .iter()
        .map(|(source, _)| {
            let mut paths: Vec<PathBuf> = std::fs::read_dir(source)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .filter(|path| path.is_file() && !path.to_string_lossy().ends_with(".json"))
                .collect();
            paths.sort();
            paths
        })
        .collect()
}

/// A fresh folder holding copies of `resources`, where one run of a test file happens. A test
/// file may write files (a snapshot), also beside its folder (`../../../target/…`): the folder
/// lies three levels inside `temp`'s `case` folder, which every run starts by removing, so that
/// nothing a run writes reaches another run or leaves `temp`.
fn fresh_folder(temp: &Path, resources: &[PathBuf]) -> PathBuf {
    let case = temp.join("case");
    let _ = std::fs::remove_dir_all(&case);
    let dir = case.join("a/b/c");
    std::fs::create_dir_all(&dir).unwrap();
    for path in resources {
        std::fs::copy(path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// What running a test file comes to: the read error, or each case's text.
fn cpt_outcome(file: &Path) -> String {
    match cpt::run(&[file], &Options::default()) {
        Err(e) => format!("not run: {e}"),
        Ok(report) => {
            let mut out: Vec<String> = report.cases.iter().map(cpt::text::case_text).collect();
            out.push(report.summary());
            out.join("\n")
        }
    }
}

fn check_cpt(temp: &Path, resources: &[PathBuf], text: &str, limit: Option<Duration>) {
    let run = || {
        let file = fresh_folder(temp, resources).join("fuzz.test.json");
        std::fs::write(&file, text).unwrap();
        cpt_outcome(&file)
    };
    let start = Instant::now();
    let first = run();
    within(limit, start, || text.to_owned());
    let second = run();
    assert_eq!(first, second, "not deterministic: {text}");
}

fn cpt_input(u: &mut Unstructured, corpus: &[(PathBuf, Value)]) -> Result<(usize, String)> {
    let i = u.choose_index(corpus.len())?;
    Ok((i, mutated_json(u, &corpus[i].1, CPT_TOKENS)?))
}

#[test]
fn fuzz_cpt_json_regressions_still_hold() {
    let temp = TempDir::new("cpt-regressions");
    let resources = [root().join("fixtures/bpmn/accept/start-events.bpmn")];
    for (_, text) in regressions("cpt") {
        check_cpt(&temp.0, &resources, &text, None);
    }
}

#[test]
fn fuzz_cpt_json() {
    let corpus = cpt_corpus();
    let resources = cpt_resources(&corpus);
    let temp = TempDir::new("cpt");
    fuzz(
        "cpt",
        120,
        |u| Ok(cpt_input(u, &corpus)?.1),
        |u, limit| {
            let (i, text) = cpt_input(u, &corpus)?;
            check_cpt(&temp.0, &resources[i], &text, limit);
            Ok(())
        },
    );
}

// ---- cassettes ----

const CASSETTE_TOKENS: &[&str] = &[
    "version",
    "agent",
    "turns",
    "calls",
    "request",
    "response",
    "toolCalls",
    "responseText",
    "responseJson",
    "error",
    "usage",
    "id",
    "name",
    "arguments",
    "rawArguments",
    "toolCallAsText",
    "lookup-order",
    "search-kb",
    "create-ticket",
    "support-agent",
    "messages",
    "tools",
    "toolCallResults",
    "hash",
    "trajectory",
    "",
];

const TEMPLATE: &str = "templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn";
const CUSTOMER: &str = "My order 1042 arrived broken.";

/// The AI agent template with its tool mocks.
fn template(xml: &str) -> ProcessTest {
    let t = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", xml).unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

fn template_turns() -> Vec<Turn> {
    vec![
        Turn::tool_calls([
            ToolCall::new("lookup-order", json!({"orderId": "1042"})),
            ToolCall::new("search-kb", json!({"query": "damaged item return"})),
        ]),
        Turn::call(
            "create-ticket",
            json!({"summary": "Order 1042 arrived damaged"}),
        ),
        Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
    ]
}

/// Seeds: the template's turns as a format 1 cassette, and recorded as format 2.
fn cassette_corpus(xml: &str, dir: &Path) -> Vec<Value> {
    let format_1 = Cassette::new("support-agent", template_turns()).to_json();
    let path = dir.join("recorded.json");
    let mut turns = template_turns().into_iter();
    let script = CassetteScript::new(&path)
        .mode(CassetteMode::Record)
        .record_with(move |_| turns.next().expect("a turn left"));
    let test = template(xml);
    test.mock_ai_agent("support-agent", script);
    test.start("ai-agent-tool-loop", json!({"customerMessage": CUSTOMER}));
    drop(test);
    let format_2 = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    vec![format_1, format_2]
}

/// What reading a cassette and replaying it against the template comes to.
fn cassette_outcome(xml: &str, path: &Path, text: &str) -> String {
    let mut out = Vec::new();
    let as_1 = Cassette::parse(text, "fuzz.json");
    out.push(format!(
        "format 1: {:?}",
        as_1.as_ref()
            .map(|c| c.turns.len())
            .map_err(|e| e.to_string())
    ));
    let as_2 = Recording::parse(text, "fuzz.json");
    out.push(format!(
        "format 2: {:?}",
        as_2.as_ref()
            .map(|r| r.calls.len())
            .map_err(|e| e.to_string())
    ));
    let test = template(xml);
    let mocked = match as_1 {
        Ok(cassette) => test.try_mock_ai_agent("support-agent", cassette),
        Err(_) => test.try_mock_ai_agent("support-agent", CassetteScript::new(path)),
    };
    match mocked {
        Err(e) => out.push(format!("not mocked: {e}")),
        Ok(_) => {
            if let Err(e) = test.try_start(
                baton_engine::runtime::CreateInstance::new("ai-agent-tool-loop").variables(
                    [("customerMessage".into(), json!(CUSTOMER))]
                        .into_iter()
                        .collect(),
                ),
            ) {
                out.push(format!("not started: {}", e.message));
            }
            for error in test.errors() {
                out.push(error.message);
            }
        }
    }
    out.join("\n")
}

fn check_cassette(xml: &str, dir: &Path, text: &str, limit: Option<Duration>) {
    let path = dir.join("fuzz.json");
    std::fs::write(&path, text).unwrap();
    let start = Instant::now();
    let first = cassette_outcome(xml, &path, text);
    within(limit, start, || text.to_owned());
    std::fs::write(&path, text).unwrap();
    let second = cassette_outcome(xml, &path, text);
    assert_eq!(first, second, "not deterministic: {text}");
}

#[test]
fn fuzz_cassettes_regressions_still_hold() {
    let xml = std::fs::read_to_string(root().join(TEMPLATE)).unwrap();
    let temp = TempDir::new("cassette-regressions");
    for (_, text) in regressions("cassettes") {
        check_cassette(&xml, &temp.0, &text, None);
    }
}

#[test]
fn fuzz_cassettes() {
    let xml = std::fs::read_to_string(root().join(TEMPLATE)).unwrap();
    let temp = TempDir::new("cassettes");
    let corpus = cassette_corpus(&xml, &temp.0);
    let input = |u: &mut Unstructured| {
        let seed = u.choose(&corpus)?;
        mutated_json(u, seed, CASSETTE_TOKENS)
    };
    fuzz("cassettes", 200, input, |u, limit| {
        let text = input(u)?;
        check_cassette(&xml, &temp.0, &text, limit);
        Ok(())
    });
}
