//! Engine fuzzing on the stable toolchain, one property per surface:
//! - `fuzz_bpmn`: mutated BPMN files (the fixtures and the shared corpus) are checked twice with
//!   the same outcome; a file that deploys runs an instance of each process.
//! - `fuzz_dmn`: mutated DMN files are checked twice; a file that deploys evaluates each
//!   decision with generated variables, twice with the same outcome.
//! - `fuzz_commands`: generated command sequences on the fixtures; the same commands on a fresh
//!   engine give the same answers and the same records (determinism).
//!
//! Each fails on a panic or stack overflow, on two runs that disagree, and (in a long run) on an
//! input that takes more than a second. How to run it, reproduce a seed and keep a regression:
//! `tests/README.md`. Minimized inputs live in `tests/fuzz-regressions/<surface>/`, which every
//! run checks first.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbitrary::{Result, Unstructured};
use baton_engine::deploy::{Resource, check};
use baton_engine::runtime::*;
use serde_json::{Value, json};

// ---- the driver (the same shape as baton-feel's fuzzer) ----

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

/// Files ending in `ext` under `dir` (recursively), in path order.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

/// The seed corpus of a file surface: the project's files, and the shared corpus when present.
fn corpus(ext: &str) -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    files(&root().join("fixtures"), ext, &mut paths);
    files(&root().join("templates"), ext, &mut paths);
    if let Some(shared) = crate::corpus::shared() {
        files(&shared.join("corpus"), ext, &mut paths);
    }
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// The regressions of a surface: minimized inputs a fuzzer once failed on.
fn regressions(surface: &str) -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    for ext in ["bpmn", "dmn", "json"] {
        files(&dir.join(surface), ext, &mut paths);
    }
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Text mutations of an XML file: byte edits, XML and FEEL tokens, repeated slices (deep
/// nesting, long chains), splices of another corpus file.
fn mutated(u: &mut Unstructured, corpus: &[(String, Vec<u8>)], tokens: &[&str]) -> Result<Vec<u8>> {
    let mut s = u.choose(corpus)?.1.clone();
    for _ in 0..u.int_in_range(1..=6)? {
        let at = u.int_in_range(0..=s.len())?;
        match u.int_in_range(0..=6)? {
            0 if !s.is_empty() => {
                let end = u.int_in_range(at..=s.len().min(at + 256))?;
                s.drain(at..end);
            }
            1 | 2 => {
                let token = u.choose(tokens)?;
                s.splice(at..at, token.bytes());
            }
            3 if at < s.len() => {
                let end = u.int_in_range(at..=s.len().min(at + 64))?;
                let piece = s[at..end].to_vec();
                let n = u.int_in_range(1..=300)?;
                for _ in 0..n {
                    s.splice(at..at, piece.iter().copied());
                }
            }
            4 => {
                let other = &u.choose(corpus)?.1;
                let from = u.int_in_range(0..=other.len())?;
                let to = u.int_in_range(from..=other.len().min(from + 2048))?;
                s.splice(at..at, other[from..to].iter().copied());
            }
            5 if at < s.len() => s[at] = u.arbitrary()?,
            _ => {
                // an attribute value replaced (ids, references, expressions)
                if let Some(q) = s[at..].iter().position(|b| *b == b'"') {
                    let start = at + q + 1;
                    let len = s[start..].iter().position(|b| *b == b'"').unwrap_or(0);
                    let value = u.choose(tokens)?;
                    s.splice(start..start + len, value.bytes());
                }
            }
        }
    }
    Ok(s)
}

const XML_TOKENS: &[&str] = &[
    "<",
    ">",
    "/>",
    "</",
    "\"",
    "=",
    "&amp;",
    "&lt;",
    "&#0;",
    "&#x1F600;",
    "&undefined;",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "<?xml version=\"1.0\"?>",
    "<!DOCTYPE d>",
    " xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\"",
    " xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\"",
    " id=\"dup\"",
    " name=\"n\"",
    " sourceRef=\"start\"",
    " targetRef=\"start\"",
    " attachedToRef=\"task\"",
    " cancelActivity=\"false\"",
    " isExecutable=\"true\"",
    "<bpmn:subProcess id=\"sp\">",
    "</bpmn:subProcess>",
    "<bpmn:startEvent id=\"s2\"/>",
    "<bpmn:endEvent id=\"e2\"/>",
    "<bpmn:parallelGateway id=\"g2\"/>",
    "<bpmn:sequenceFlow id=\"f9\" sourceRef=\"s2\" targetRef=\"e2\"/>",
    "<bpmn:timerEventDefinition><bpmn:timeCycle>R/PT0S</bpmn:timeCycle></bpmn:timerEventDefinition>",
    "<bpmn:timerEventDefinition><bpmn:timeDuration>P9999999D</bpmn:timeDuration></bpmn:timerEventDefinition>",
    "<bpmn:multiInstanceLoopCharacteristics><bpmn:loopCardinality>=1000000</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics>",
    "<zeebe:taskDefinition type=\"t\"/>",
    "<zeebe:input source=\"=x\" target=\"y\"/>",
    "<zeebe:output source=\"=for i in 1..100000 return i\" target=\"z\"/>",
    "=",
    "=x",
    "=- - - - - - - - x",
    "=a or a or a or a",
    "=for x in 1..1000 return for y in 1..1000 return x",
    "=string join(for x in 1..100000 return \"aaaaaaaaaaaaaaaa\")",
    "=x ** x ** x ** x ** x",
    "R/P1D",
    "R5/PT1S",
    "0 0 9 * * MON-FRI",
    "P1D",
    "PT0S",
    "2024-01-01T00:00:00Z",
    "-1",
    "99999999999999999999",
    "",
    "\u{0}",
    "é",
];

const DMN_TOKENS: &[&str] = &[
    "<decision id=\"d2\" name=\"d2\">",
    "</decision>",
    "<literalExpression><text>x</text></literalExpression>",
    "<informationRequirement><requiredDecision href=\"#d2\"/></informationRequirement>",
    "<inputEntry><text>-</text></inputEntry>",
    "<inputEntry><text>[1..10]</text></inputEntry>",
    "<outputEntry><text>\"a\"</text></outputEntry>",
    "<text>",
    "</text>",
    " hitPolicy=\"COLLECT\"",
    " hitPolicy=\"UNIQUE\"",
    " aggregation=\"SUM\"",
    " typeRef=\"number\"",
    " typeRef=\"date\"",
    "- - - - - - - - - - x",
    "not(- - - - 1)",
    "string join(for x in 1..100000 return \"aaaaaaaaaaaaaaaa\")",
    "for x in 1..1000 return for y in 1..1000 return x + y",
    "> 5, < 3",
    "\"a\",\"b\"",
    "?",
];

// ---- BPMN ----

/// What checking (and, when it deploys, running) a BPMN file comes to.
fn bpmn_outcome(name: &str, content: &[u8]) -> String {
    let resource = Resource::new(name, content.to_vec());
    match check(std::slice::from_ref(&resource)) {
        Err(diagnostics) => format!("rejected: {diagnostics}"),
        Ok(deployed) => {
            let mut out = String::from("deployed");
            let mut engine = small_engine();
            if let Err(r) = engine.deploy(&[resource]) {
                return format!("{out}, but the engine refused: {}", r.message);
            }
            let ids: Vec<String> = deployed
                .iter()
                .flat_map(|d| d.executable_processes())
                .map(|p| p.id.to_string())
                .collect();
            for id in ids {
                let answer = engine.create_instance(CreateInstance::new(&id));
                out.push_str(&format!("\n{id}: {:?}", answer.map_err(|r| r.message)));
            }
            engine.advance_clock(86_400_000).ok();
            out.push_str(&format!("\n{} records", engine.records().len()));
            out
        }
    }
}

/// An engine with small limits, so that a runaway input stops quickly.
fn small_engine() -> Engine {
    Engine::new(EngineConfig {
        step_limit: 5_000,
        timer_limit: 500,
        instance_limit: 100,
        record_limit: 20_000,
        ..EngineConfig::default()
    })
}

fn check_bpmn(name: &str, content: &[u8], limit: Option<Duration>) {
    let start = Instant::now();
    let first = bpmn_outcome(name, content);
    within(limit, start, || {
        String::from_utf8_lossy(content).into_owned()
    });
    let second = bpmn_outcome(name, content);
    assert_eq!(
        first,
        second,
        "not deterministic: {}",
        String::from_utf8_lossy(content)
    );
}

#[test]
fn fuzz_bpmn_regressions_still_hold() {
    for (name, content) in regressions("bpmn") {
        check_bpmn(&name, &content, None);
    }
}

#[test]
fn fuzz_bpmn() {
    let corpus = corpus("bpmn");
    let input = |u: &mut Unstructured| mutated(u, &corpus, XML_TOKENS);
    fuzz(
        "bpmn",
        400,
        |u| Ok(String::from_utf8_lossy(&input(u)?).into_owned()),
        |u, limit| {
            check_bpmn("fuzz.bpmn", &input(u)?, limit);
            Ok(())
        },
    );
}

// ---- DMN ----

/// Variables for decisions: the names the file's expressions read, with generated values.
fn decision_variables(u: &mut Unstructured, text: &str) -> Result<VariableDocument> {
    let mut doc = VariableDocument::new();
    let names = identifiers(text);
    for _ in 0..u.int_in_range(0..=6)? {
        if names.is_empty() {
            break;
        }
        let name = u.choose(&names)?.clone();
        doc.insert(name, json_value(u, 2)?);
    }
    Ok(doc)
}

/// The identifiers of a file's text (candidate variable names), in order, no repeats.
fn identifiers(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.len() > 1
            && word.chars().next().is_some_and(char::is_alphabetic)
            && !out.iter().any(|w| w == word)
        {
            out.push(word.to_owned());
            if out.len() == 200 {
                break;
            }
        }
    }
    out
}

fn json_value(u: &mut Unstructured, depth: u32) -> Result<Value> {
    Ok(match u.int_in_range(0..=8)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.int_in_range(-3..=1000)?),
        3 => json!(u.arbitrary::<f64>()?).clone(),
        4 => json!(*u.choose(&["", "a", "high", "2024-01-02", "P1D", "10:00:00", "x y"])?),
        5 => json!(u.arbitrary::<i64>()?),
        6 if depth > 0 => {
            let mut items = Vec::new();
            for _ in 0..u.int_in_range(0..=3)? {
                items.push(json_value(u, depth - 1)?);
            }
            Value::Array(items)
        }
        7 if depth > 0 => {
            let mut map = serde_json::Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                let key = u.choose(&["a", "b", "amount", "status", "x"])?;
                map.insert((*key).to_owned(), json_value(u, depth - 1)?);
            }
            Value::Object(map)
        }
        _ => json!(u.int_in_range(0..=10)?),
    })
}

fn dmn_outcome(content: &[u8], variables: &[VariableDocument]) -> String {
    let resource = Resource::new("fuzz.dmn", content.to_vec());
    match check(std::slice::from_ref(&resource)) {
        Err(diagnostics) => format!("rejected: {diagnostics}"),
        Ok(deployed) => {
            let mut out = String::from("deployed");
            let mut engine = small_engine();
            if let Err(r) = engine.deploy(&[resource]) {
                return format!("{out}, but the engine refused: {}", r.message);
            }
            let ids: Vec<String> = deployed
                .iter()
                .flat_map(|d| d.decisions())
                .map(|d| d.id.to_string())
                .collect();
            for id in ids {
                for vars in variables {
                    let outcome = engine.evaluate_decision(&id, vars.clone());
                    out.push_str(&format!("\n{id}: {outcome:?}"));
                }
            }
            out
        }
    }
}

fn check_dmn(content: &[u8], variables: &[VariableDocument], limit: Option<Duration>) {
    let start = Instant::now();
    let first = dmn_outcome(content, variables);
    within(limit, start, || {
        String::from_utf8_lossy(content).into_owned()
    });
    let second = dmn_outcome(content, variables);
    assert_eq!(
        first,
        second,
        "not deterministic: {}",
        String::from_utf8_lossy(content)
    );
}

fn dmn_input(
    u: &mut Unstructured,
    corpus: &[(String, Vec<u8>)],
) -> Result<(Vec<u8>, Vec<VariableDocument>)> {
    let content = mutated(u, corpus, DMN_TOKENS)?;
    let text = String::from_utf8_lossy(&content).into_owned();
    let mut variables = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        variables.push(decision_variables(u, &text)?);
    }
    Ok((content, variables))
}

#[test]
fn fuzz_dmn_regressions_still_hold() {
    for (_, content) in regressions("dmn") {
        let text = String::from_utf8_lossy(&content).into_owned();
        let all: VariableDocument = identifiers(&text)
            .into_iter()
            .map(|n| (n, json!(1)))
            .collect();
        check_dmn(&content, &[VariableDocument::new(), all], None);
    }
}

#[test]
fn fuzz_dmn() {
    let corpus = corpus("dmn");
    fuzz(
        "dmn",
        400,
        |u| {
            let (content, variables) = dmn_input(u, &corpus)?;
            Ok(format!(
                "{}\n{variables:?}",
                String::from_utf8_lossy(&content)
            ))
        },
        |u, limit| {
            let (content, variables) = dmn_input(u, &corpus)?;
            check_dmn(&content, &variables, limit);
            Ok(())
        },
    );
}

// ---- command sequences ----

/// The fixtures a command sequence runs on: every BPMN and DMN file that deploys alone.
fn deployable_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    files(&root().join("fixtures/bpmn/accept"), "bpmn", &mut paths);
    files(&root().join("fixtures/cpt"), "bpmn", &mut paths);
    files(&root().join("fixtures/dmn/accept"), "dmn", &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .filter(|(name, content)| check(&[Resource::new(name.as_str(), content.clone())]).is_ok())
        .collect()
}

/// Names a file's text gives to messages, signals, errors, decisions and processes.
fn attribute_values(text: &str, attribute: &str) -> Vec<String> {
    values_after(text, &format!(" {attribute}=\""))
}

/// The quoted values that follow `pattern` (which ends at the opening quote), no repeats.
fn values_after(text: &str, pattern: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(pattern) {
        rest = &rest[at + pattern.len()..];
        let Some(end) = rest.find('"') else { break };
        let value = rest[..end].to_owned();
        if !value.is_empty() && !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

/// What the generated commands can name.
struct Vocabulary {
    names: Vec<String>,
    ids: Vec<String>,
    /// The ids of processes and decisions, which most creations and evaluations name.
    definitions: Vec<String>,
    variables: Vec<String>,
}

impl Vocabulary {
    fn of(texts: &[String]) -> Vocabulary {
        let all = texts.join("\n");
        let mut names = attribute_values(&all, "name");
        names.extend(attribute_values(&all, "errorCode"));
        names.extend(attribute_values(&all, "escalationCode"));
        names.push("x".into());
        Vocabulary {
            names,
            ids: attribute_values(&all, "id"),
            definitions: [":process", "<process", "<decision"]
                .iter()
                .flat_map(|tag| values_after(&all, &format!("{tag} id=\"")))
                .collect(),
            variables: identifiers(&all),
        }
    }
}

fn variables(u: &mut Unstructured, vocabulary: &Vocabulary) -> Result<VariableDocument> {
    let mut doc = VariableDocument::new();
    for _ in 0..u.int_in_range(0..=3)? {
        let name = u.choose(&vocabulary.variables)?.clone();
        doc.insert(name, json_value(u, 2)?);
    }
    Ok(doc)
}

/// Mostly a process or decision id, now and then any id.
fn definition(u: &mut Unstructured, v: &Vocabulary) -> Result<String> {
    let from = if v.definitions.is_empty() || u.ratio(1, 8)? {
        &v.ids
    } else {
        &v.definitions
    };
    Ok(u.choose(from)?.clone())
}

/// One command the engine's state makes sensible (or a nonsense one, now and then).
fn next_command(u: &mut Unstructured, e: &Engine, v: &Vocabulary) -> Result<Command> {
    let jobs = e.activatable_jobs(None);
    let instances = e.process_instances();
    let incidents = e.incidents();
    let tasks: Vec<Key> = e.user_tasks().iter().map(|t| t.key).collect();
    let job = |u: &mut Unstructured| -> Result<Key> {
        Ok(match u.choose(&jobs) {
            Ok(j) => j.key,
            Err(_) => u.arbitrary()?,
        })
    };
    let instance = |u: &mut Unstructured| -> Result<Key> {
        Ok(match u.choose(&instances) {
            Ok(i) => i.key,
            Err(_) => u.arbitrary()?,
        })
    };
    Ok(match u.int_in_range(0..=19)? {
        0..=2 => Command::CreateInstance(
            CreateInstance::new(definition(u, v)?).variables(variables(u, v)?),
        ),
        3..=5 => Command::CompleteJob {
            job_key: job(u)?,
            variables: variables(u, v)?,
            result: None,
        },
        6 => Command::FailJob {
            job_key: job(u)?,
            retries: u.int_in_range(-1..=3)?,
            error_message: "fuzz".into(),
            retry_backoff_ms: *u.choose(&[0, 1_000, 60_000])?,
            variables: variables(u, v)?,
        },
        7 => Command::ThrowError {
            job_key: job(u)?,
            error_code: u.choose(&v.names)?.clone(),
            error_message: "fuzz".into(),
            variables: variables(u, v)?,
        },
        8 => Command::PublishMessage(
            PublishMessage::new(u.choose(&v.names)?.clone(), u.choose(&v.names)?.clone())
                .variables(variables(u, v)?),
        ),
        9 => Command::BroadcastSignal {
            name: u.choose(&v.names)?.clone(),
            variables: variables(u, v)?,
        },
        10 | 11 => Command::AdvanceClock {
            millis: *u.choose(&[
                1_000,
                60_000,
                3_600_000,
                86_400_000,
                7 * 86_400_000,
                36_500 * 86_400_000,
                i64::MAX,
                -5,
            ])?,
        },
        12 => Command::SetVariables {
            scope_key: instance(u)?,
            variables: variables(u, v)?,
            local: u.arbitrary()?,
        },
        13 => Command::CancelInstance {
            process_instance_key: instance(u)?,
        },
        14 => Command::ResolveIncident {
            incident_key: match u.choose(&incidents) {
                Ok(i) => i.key,
                Err(_) => u.arbitrary()?,
            },
        },
        15 => Command::CompleteUserTask {
            user_task_key: match u.choose(&tasks) {
                Ok(k) => *k,
                Err(_) => u.arbitrary()?,
            },
            variables: variables(u, v)?,
        },
        16 => Command::UpdateJobRetries {
            job_key: job(u)?,
            retries: u.int_in_range(0..=3)?,
        },
        17 => Command::EvaluateDecision {
            decision_id: definition(u, v)?,
            variables: variables(u, v)?,
        },
        18 => {
            if u.arbitrary()? {
                Command::SuspendInstance {
                    process_instance_key: instance(u)?,
                }
            } else {
                Command::ResumeInstance {
                    process_instance_key: instance(u)?,
                }
            }
        }
        _ => Command::ActivateJobs {
            job_type: match u.choose(&jobs) {
                Ok(j) => j.job_type.to_string(),
                Err(_) => "x".into(),
            },
            worker: "fuzz".into(),
            timeout_ms: *u.choose(&[1_000, 300_000])?,
            max_jobs: u.int_in_range(1..=3)?,
        },
    })
}

/// What a run of commands came to: each command's answer, then every record as JSON.
fn replay(commands: &[Command]) -> (Vec<String>, Vec<Value>) {
    let mut engine = small_engine();
    let answers = commands
        .iter()
        .map(|c| format!("{:?}", engine.apply(c.clone())))
        .collect();
    let records = engine
        .records()
        .iter()
        .map(|r| engine.record_json(r))
        .collect();
    (answers, records)
}

/// A generated run: a deployment of one to three fixtures, then commands chosen from the
/// engine's state as it goes.
fn command_run(u: &mut Unstructured, fixtures: &[(String, Vec<u8>)]) -> Result<Vec<Command>> {
    let mut resources = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let (name, content) = u.choose(fixtures)?;
        if !resources.iter().any(|r: &Resource| r.name == *name) {
            resources.push(Resource::new(name.as_str(), content.clone()));
        }
    }
    let texts: Vec<String> = resources
        .iter()
        .map(|r| String::from_utf8_lossy(r.content()).into_owned())
        .collect();
    let vocabulary = Vocabulary::of(&texts);
    let mut engine = small_engine();
    let mut commands = vec![Command::Deploy { resources }];
    engine.apply(commands[0].clone()).ok();
    for _ in 0..u.int_in_range(1..=40)? {
        let command = next_command(u, &engine, &vocabulary)?;
        engine.apply(command.clone()).ok();
        commands.push(command);
    }
    Ok(commands)
}

fn check_commands(commands: &[Command], limit: Option<Duration>) {
    let start = Instant::now();
    let first = replay(commands);
    within(limit, start, || commands_json(commands));
    let second = replay(commands);
    assert!(
        first == second,
        "the same commands gave other records: {}",
        commands_json(commands)
    );
}

fn commands_json(commands: &[Command]) -> String {
    serde_json::to_string(commands).unwrap()
}

#[test]
fn fuzz_commands_regressions_still_hold() {
    for (_, content) in regressions("commands") {
        let commands: Vec<Command> =
            serde_json::from_slice(&content).expect("a JSON list of commands");
        check_commands(&commands, None);
    }
}

#[test]
fn fuzz_commands() {
    let fixtures = deployable_fixtures();
    fuzz(
        "commands",
        200,
        |u| Ok(commands_json(&command_run(u, &fixtures)?)),
        |u, limit| {
            let commands = command_run(u, &fixtures)?;
            check_commands(&commands, limit);
            Ok(())
        },
    );
}
