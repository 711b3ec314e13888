//! Every BPMN file of ../shared/corpus and every workload of ../shared/bench/gen_workloads.py
//! either deploys, or is rejected for a reason Zeebe 8.9 rejects it too (the table below says
//! which rule and why). Skipped, with a message, when ../shared is absent.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use baton_engine::deploy::{Resource, check};

/// `../shared` next to the repository (from a git worktree under `wt/`, one level further up).
pub(crate) fn shared() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    ["../shared", "../../shared"]
        .iter()
        .map(|p| root.join(p))
        .find(|dir| dir.join("corpus").is_dir())
}

/// The corpus files Zeebe 8.9 rejects, with the rules baton rejects them by. Every other file
/// must deploy.
const REJECTED: &[(&str, &[&str])] = &[
    // A non-executable diagram: "Must contain at least one executable process".
    (
        "bpmn/bpmnkit/apps/landing/diagram.bpmn",
        &["no-executable-process"],
    ),
    // bpmnkit samples without zeebe:taskDefinition and with unconditioned XOR flows: "Must have
    // exactly one 'zeebe:taskDefinition' extension element", "Must have a condition or be
    // default flow" (SOURCES.md says so too).
    (
        "bpmn/bpmnkit/bpmn-samples/order-process.bpmn",
        &["sequence-flow-condition", "zeebe-extension"],
    ),
    (
        "bpmn/bpmnkit/bpmn-samples/parallel-approval.bpmn",
        &["zeebe-extension"],
    ),
    // bpmnkit's lint fixtures, invalid on purpose (unconnected elements, no start event, every
    // malformed shape); each rule mirrors a Zeebe validator message.
    (
        "bpmn/bpmnkit/packages/core/tests/fixtures/camunda-compat/agents.bpmn",
        &["from-ai", "sequence-flow-condition", "start-events"],
    ),
    (
        "bpmn/bpmnkit/packages/core/tests/fixtures/camunda-compat/events.bpmn",
        &[
            "boundary-event",
            "compensation",
            "error-event",
            "escalation-event",
            "interrupting-event",
            "message",
            "signal-event",
            "start-events",
            "timer",
            "zeebe-extension",
        ],
    ),
    (
        "bpmn/bpmnkit/packages/core/tests/fixtures/camunda-compat/tasks.bpmn",
        &[
            "ad-hoc-sub-process",
            "event-based-gateway",
            "event-sub-process",
            "execution-listener",
            "form-definition",
            "invalid-path",
            "invalid-static-value",
            "message",
            "missing-attribute",
            "multi-instance",
            "priority",
            "sequence-flow-condition",
            "task-headers",
            "unsupported-element",
            "zeebe-extension",
        ],
    ),
    // A message caught without zeebe:subscription: "Must have exactly one zeebe:subscription
    // extension element" (bpmnkit's own test fixture, never deployed to Zeebe).
    (
        "bpmn/bpmnkit/packages/engine/tests/fixtures/testing.bpmn",
        &["message"],
    ),
];

fn bpmn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            bpmn_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "bpmn") {
            out.push(path);
        }
    }
}

/// The rule ids a file is rejected with, or `None` when it deploys.
fn outcome(name: &str, path: &Path) -> Option<BTreeSet<String>> {
    let resource = Resource::new(name, std::fs::read(path).unwrap());
    match check(&[resource]) {
        Ok(deployed) => {
            println!(
                "OK {name} ({} processes)",
                deployed[0].executable_processes().count()
            );
            None
        }
        Err(diagnostics) => {
            println!("{diagnostics}");
            Some(diagnostics.iter().map(|d| d.rule.id().to_owned()).collect())
        }
    }
}

#[test]
fn corpus_files_deploy_or_are_rejected_as_zeebe_rejects_them() {
    let Some(shared) = shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let corpus = shared.join("corpus");
    let mut files = Vec::new();
    for dir in ["bpmn/agentic", "bpmn/bpmnkit", "cpt/cases"] {
        bpmn_files(&corpus.join(dir), &mut files);
    }
    assert!(files.len() >= 50, "only {} corpus files found", files.len());
    let mut failures = Vec::new();
    let (mut deployed, mut rejected) = (0, 0);
    for file in &files {
        let name = file.strip_prefix(&corpus).unwrap().display().to_string();
        let got = outcome(&name, file);
        let expected: Option<BTreeSet<String>> = REJECTED
            .iter()
            .find(|(path, _)| *path == name)
            .map(|(_, rules)| rules.iter().map(|r| r.to_string()).collect());
        match &got {
            Some(_) => rejected += 1,
            None => deployed += 1,
        }
        if got != expected {
            failures.push(format!("{name}: expected {expected:?}, got {got:?}"));
        }
    }
    println!("{deployed} deploy, {rejected} rejected");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn generated_workloads_deploy() {
    let Some(shared) = shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let dir = std::env::temp_dir().join(format!("baton-workloads-{}", std::process::id()));
    let status = Command::new("python3")
        .arg(shared.join("bench/gen_workloads.py"))
        .arg(&dir)
        .args(["--dialect", "zeebe"])
        .output();
    let Ok(output) = status else {
        eprintln!("skipped: python3 is not available");
        return;
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut files = Vec::new();
    bpmn_files(&dir, &mut files);
    assert_eq!(files.len(), 6, "{files:?}");
    let rejected: Vec<_> = files
        .iter()
        .filter_map(|file| {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            outcome(&name, file).map(|rules| (name, rules))
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    assert!(rejected.is_empty(), "{rejected:?}");
}

/// bpmnkit's `agents.bpmn` has `fromAi()` calls Zeebe refuses at deployment; each message is the
/// one Zeebe's `AdHocSubProcessTransformer` wraps around its `FromAiTaggedParameterExtractor`
/// (camunda/camunda `zeebe/feel-tagged-parameters`): the first failing call of an element, a
/// non-reference printed as feel-scala prints its syntax tree.
#[test]
fn from_ai_rejections_of_the_bpmnkit_agents_fixture_read_as_zeebe_writes_them() {
    let Some(shared) = shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let path =
        shared.join("corpus/bpmn/bpmnkit/packages/core/tests/fixtures/camunda-compat/agents.bpmn");
    let resource = Resource::new("agents.bpmn", std::fs::read(&path).unwrap());
    let diagnostics = check(&[resource]).expect_err("agents.bpmn is rejected");
    let from_ai: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.rule.id() == "from-ai")
        .map(|d| d.message.clone())
        .collect();
    let reference = "Expected fromAi() parameter 'value' to be a reference (e.g. 'toolCall.customParameter'), but received";
    for expected in [
        format!(
            "Failed to extract ad-hoc activity parameters for element 'toolUnmapped'. {reference} string 'city'."
        ),
        format!(
            "Failed to extract ad-hoc activity parameters for element 'toolCasing'. {reference} If(Ref(List(x)),Ref(List(toolCall, x)),Ref(List(toolCall, y)))."
        ),
    ] {
        assert!(
            from_ai.contains(&expected),
            "{expected}\nnot among\n{}",
            from_ai.join("\n")
        );
    }
    assert!(
        !from_ai
            .iter()
            .any(|m| m.contains("Expr {") || m.contains("span")),
        "{}",
        from_ai.join("\n")
    );
}
