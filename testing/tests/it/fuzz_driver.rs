//! The fuzz driver and JSON mutations shared by the fuzzers of baton-testing (cassettes) and
//! baton-cpt (CPT test files), which includes this file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbitrary::{Result, Unstructured};
use serde_json::{Value, json};

// ---- the driver (the same shape as baton-feel's and baton-engine's fuzzers) ----

/// How many cases a run tries: `BATON_FUZZ_CASES`, else the short run's count.
pub fn cases(short: u64) -> (u64, bool) {
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
pub fn seeds(first: u64, count: u64, salt: u64) -> impl Iterator<Item = u64> {
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
pub fn fuzz(
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
pub fn within(limit: Option<Duration>, start: Instant, what: impl FnOnce() -> String) {
    if let Some(limit) = limit {
        let elapsed = start.elapsed();
        assert!(elapsed < limit, "took {elapsed:?}: {}", what());
    }
}

/// Files whose name ends in `suffix` under `dir` (recursively), in path order.
pub fn files(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
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
pub fn regressions(surface: &str) -> Vec<(String, String)> {
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
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
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
pub fn mutated_json(u: &mut Unstructured, seed: &Value, tokens: &[&str]) -> Result<String> {
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

pub fn mutate_value(
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
pub fn generated(u: &mut Unstructured, tokens: &[&str], depth: u32) -> Result<Value> {
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
