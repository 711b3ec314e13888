//! baton's runner of the peer benchmark: runs one workload (a `manifest.json` written by
//! `../shared/bench/gen_workloads.py --dialect zeebe`) N times, completes the jobs the way the
//! peer runners do, checks every instance, and prints one JSON line with the peer runners'
//! fields, so baton's line sits in their table.
//!
//! `cargo run --release -p baton-benches --example peer_bench -- --manifest FILE --workload NAME
//! [-n N]`

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use baton_engine::runtime::{
    CreateInstance, Engine, EngineConfig, RecordValue, State, VariableDocument,
};
use serde_json::{Value as Json, json};

#[derive(clap::Parser, Debug)]
#[command(name = "peer_bench")]
struct Args {
    /// The manifest.json of a generated workload directory.
    #[arg(long)]
    manifest: PathBuf,
    /// The workload name (chain10, chain100, xor-loop, parallel50, mi100, wide1000).
    #[arg(long)]
    workload: String,
    /// How many instances to run.
    #[arg(short = 'n', default_value_t = 1000)]
    n: usize,
}

fn fail(workload: &str, instances: usize, error: impl std::fmt::Display) -> ExitCode {
    println!(
        "{}",
        json!({"engine": "baton", "workload": workload, "instances": instances, "error": error.to_string()})
    );
    ExitCode::FAILURE
}

/// Peak resident set size of this process, from /proc (0 where unavailable).
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| (kb / 1024.0 * 10.0).round() / 10.0)
        .unwrap_or(0.0)
}

struct Workload {
    file: PathBuf,
    process_id: String,
    variables: VariableDocument,
    jobs: BTreeMap<String, u64>,
    expect: VariableDocument,
}

fn load(args: &Args) -> Result<Workload, String> {
    let text = std::fs::read_to_string(&args.manifest)
        .map_err(|e| format!("cannot read {}: {e}", args.manifest.display()))?;
    let manifest: Json =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", args.manifest.display()))?;
    let w = manifest
        .get("workloads")
        .and_then(|w| w.get(&args.workload))
        .ok_or_else(|| {
            format!(
                "no workload '{}' in {}",
                args.workload,
                args.manifest.display()
            )
        })?;
    let obj = |k: &str| -> VariableDocument {
        w.get(k)
            .and_then(Json::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    };
    let dir = args
        .manifest
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default();
    Ok(Workload {
        file: dir.join(
            w.get("file")
                .and_then(Json::as_str)
                .ok_or("workload without 'file'")?,
        ),
        process_id: w
            .get("process_id")
            .and_then(Json::as_str)
            .ok_or("workload without 'process_id'")?
            .to_owned(),
        variables: obj("variables"),
        jobs: obj("jobs")
            .into_iter()
            .map(|(k, v)| (k, v.as_u64().unwrap_or(0)))
            .collect(),
        expect: obj("expect"),
    })
}

/// Runs one instance to its end, answering jobs as the manifest's handlers say; returns the
/// job counts per type and the final root variables.
fn run_instance(
    engine: &mut Engine,
    w: &Workload,
    items: &mut Vec<Json>,
) -> Result<(BTreeMap<String, u64>, VariableDocument), String> {
    let start = engine.position();
    let pi = engine
        .create_instance(CreateInstance::new(&w.process_id).variables(w.variables.clone()))
        .map_err(|r| r.to_string())?;
    let mut counts: BTreeMap<Arc<str>, u64> = BTreeMap::new();
    let mut cursor = 0;
    // One key buffer for every round (a worker's poll, without an allocation per round).
    let mut jobs = Vec::new();
    loop {
        jobs.clear();
        cursor = engine.for_each_activatable_job_since(cursor, |k| jobs.push(k));
        if jobs.is_empty() {
            break;
        }
        for &key in &jobs {
            // Borrowed: no view with its own copies per job.
            let Some(job) = engine.job_value(key) else {
                continue;
            };
            let (job_type, element_instance_key) = (job.job_type.clone(), job.element_instance_key);
            let mut vars = VariableDocument::new();
            match &*job_type {
                "inc" => {
                    let counter = engine
                        .variable(element_instance_key, "counter")
                        .and_then(|v| v.as_i64())
                        .unwrap_or(0);
                    vars.insert("counter".into(), json!(counter + 1));
                }
                "item" => {
                    if let Some(item) = engine.variable(element_instance_key, "item") {
                        items.push((*item).clone());
                    }
                }
                _ => {}
            }
            // Counted by the shared type name (no string built per job).
            *counts.entry(job_type).or_default() += 1;
            engine.complete_job(key, vars).map_err(|r| r.to_string())?;
        }
    }
    let state = engine.process_instance(pi).map(|p| p.state);
    if state != Some(State::Completed) {
        let incidents: Vec<String> = engine
            .incidents()
            .iter()
            .map(|i| format!("{}: {}", i.error_type, i.error_message))
            .collect();
        return Err(format!(
            "instance {pi} did not complete (state {state:?}); incidents: {incidents:?}"
        ));
    }
    let mut vars = VariableDocument::new();
    for r in engine.records_since(start) {
        if let RecordValue::Variable(v) = &r.value
            && v.scope_key == pi
        {
            vars.insert(v.name.to_string(), (*v.value).clone());
        }
    }
    let counts = counts
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    Ok((counts, vars))
}

fn check(
    w: &Workload,
    counts: &BTreeMap<String, u64>,
    vars: &VariableDocument,
    items: &[Json],
) -> Result<(), String> {
    if *counts != w.jobs {
        return Err(format!("jobs per type {counts:?}, expected {:?}", w.jobs));
    }
    for (k, v) in &w.expect {
        if vars.get(k) != Some(v) {
            return Err(format!("variable '{k}' is {:?}, expected {v}", vars.get(k)));
        }
    }
    if let Some(Json::Array(expected)) = w.variables.get("items")
        && items != expected.as_slice()
    {
        return Err("the multi-instance items did not arrive in list order".into());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = <Args as clap::Parser>::parse();
    let args = &args;
    let w = match load(args) {
        Ok(w) => w,
        Err(e) => return fail(&args.workload, args.n, e),
    };
    let xml = match std::fs::read_to_string(&w.file) {
        Ok(x) => x,
        Err(e) => {
            return fail(
                &args.workload,
                args.n,
                format!("cannot read {}: {e}", w.file.display()),
            );
        }
    };
    let mut engine = Engine::new(EngineConfig::default());
    let parse_start = Instant::now();
    if let Err(r) = engine.deploy_xml(&w.file.display().to_string(), &xml) {
        return fail(&args.workload, args.n, r);
    }
    let parse_ms = parse_start.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    for i in 0..args.n {
        let mut items = Vec::new();
        let result = run_instance(&mut engine, &w, &mut items)
            .and_then(|(counts, vars)| check(&w, &counts, &vars, &items));
        if let Err(e) = result {
            return fail(&args.workload, args.n, format!("instance {}: {e}", i + 1));
        }
        engine.clear_records();
        engine.clear_job_feed();
        engine.forget_ended_instances();
    }
    let total_ms = started.elapsed().as_secs_f64() * 1000.0;
    let round = |x: f64| (x * 100.0).round() / 100.0;
    println!(
        "{}",
        json!({
            "engine": "baton",
            "workload": &args.workload,
            "instances": args.n,
            "parse_ms": round(parse_ms),
            "total_ms": round(total_ms),
            "instances_per_s": round(args.n as f64 / (total_ms / 1000.0)),
            "peak_rss_mb": peak_rss_mb(),
            "engine_version": env!("CARGO_PKG_VERSION"),
            "runtime": "rust",
        })
    );
    ExitCode::SUCCESS
}
