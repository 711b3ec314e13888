//! Memory per waiting process instance: deploys chain10 (start → 10 service tasks → end),
//! creates N instances that each wait at their first job, and divides the growth of live heap
//! bytes by N. Run: `cargo run --release -p baton-benches --example waiting_memory [N]`.
//!
//! The live heap is counted by a global allocator that wraps the system allocator; that needs
//! `unsafe` (the `GlobalAlloc` contract), which is why this measurement lives in an example of
//! the bench crate and not in the library crates, which forbid `unsafe`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use baton_engine::runtime::{CreateInstance, Engine, EngineConfig};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator with the same arguments; the counter
// only observes sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn chain10() -> String {
    let mut tasks = String::new();
    let mut flows = String::new();
    let mut prev = "start".to_owned();
    for i in 1..=10 {
        tasks.push_str(&format!(
            r#"<bpmn:serviceTask id="t{i}"><bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements></bpmn:serviceTask>"#
        ));
        flows.push_str(&format!(
            r#"<bpmn:sequenceFlow id="f{i}" sourceRef="{prev}" targetRef="t{i}" />"#
        ));
        prev = format!("t{i}");
    }
    flows.push_str(&format!(
        r#"<bpmn:sequenceFlow id="f_end" sourceRef="{prev}" targetRef="end" />"#
    ));
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
<bpmn:process id="chain10" isExecutable="true"><bpmn:startEvent id="start" />{tasks}<bpmn:endEvent id="end" />{flows}</bpmn:process>
</bpmn:definitions>"#
    )
}

fn measure(n: usize, keep_records: bool) -> f64 {
    let mut engine = Engine::new(EngineConfig {
        keep_records,
        ..EngineConfig::default()
    });
    engine
        .deploy_xml("chain10.bpmn", &chain10())
        .expect("deploys");
    // One instance first, so one-time growth (maps, the log's first chunk) is not counted.
    engine
        .create_instance(CreateInstance::new("chain10"))
        .expect("created");
    let before = LIVE.load(Ordering::Relaxed);
    for _ in 0..n {
        engine
            .create_instance(CreateInstance::new("chain10"))
            .expect("created");
    }
    let after = LIVE.load(Ordering::Relaxed);
    assert_eq!(engine.jobs().len(), n + 1, "every instance waits at a job");
    (after - before) as f64 / n as f64
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    println!(
        "{{\"instances\": {n}, \"bytes_per_waiting_instance\": {:.0}, \"bytes_per_waiting_instance_with_log\": {:.0}}}",
        measure(n, false),
        measure(n, true)
    );
}
