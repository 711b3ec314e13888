//! The shared CPT corpus, the templates' test files (agent cases included) and the failing
//! fixtures, with --remote against `baton serve`.

use std::time::{Duration, Instant};

use baton_cpt::Outcome;

use crate::support::{corpus, not_passed, root, run, serve};

#[test]
fn the_cpt_corpus_passes_against_baton_serve() {
    let Some(dir) = corpus() else { return };
    let server = serve();
    let start = Instant::now();
    let report = run(&server, &[dir]);
    let took = start.elapsed();
    eprintln!("{} in {took:?}", report.summary());
    for line in not_passed(&report) {
        eprintln!("{line}");
    }
    assert_eq!(report.failed(), 0, "{}", report.summary());
    // What the remote runner does not check yet (decision instances, message subscriptions)
    // and what the REST API cannot express (mocked decisions and child processes) is skipped;
    // everything else runs.
    assert!(report.passed() >= 53, "{}", report.summary());
    for case in &report.cases {
        if let Outcome::Skipped { reason } = &case.outcome {
            assert!(
                reason.contains("does not evaluate decisions")
                    || reason.contains("decision instances are not checked remotely")
                    || reason.contains("message subscriptions are not checked")
                    || reason.contains("cannot be replaced through the REST API"),
                "{}: {reason}",
                case.title()
            );
        }
    }
    // The budget is 2 s on a release build; a debug build on a shared machine gets slack.
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn the_agent_templates_pass_against_baton_serve() {
    let server = serve();
    let report = run(&server, &[root().join("templates")]);
    for line in not_passed(&report) {
        eprintln!("{line}");
    }
    assert_eq!(report.failed(), 0, "{}", report.summary());
    // The Sub-process agent's cases (turns, tools, ASSERT_AI_AGENT) run; the Task flavour and
    // the in-process fault extensions are skipped with their reasons.
    let passed: Vec<&str> = report
        .cases
        .iter()
        .filter(|c| c.passed())
        .map(|c| c.name.as_str())
        .collect();
    assert!(passed.len() >= 7, "{passed:?}");
    assert!(
        report.cases.iter().any(|c| c.passed()
            && c.file.ends_with("ai-agent-tool-loop.test.json")
            && c.name.starts_with("damaged order")),
        "{passed:?}"
    );
}

#[test]
fn failing_cases_fail_with_what_the_last_poll_saw() {
    let server = serve();
    let start = Instant::now();
    let report = run(
        &server,
        &[root().join("fixtures/cpt/failing/failing.test.json")],
    );
    let messages: Vec<String> = report
        .cases
        .iter()
        .map(|c| match &c.outcome {
            Outcome::Failed(f) => format!(
                "{} — instruction {:?} ({}):\n{}",
                c.name,
                f.instruction,
                f.instruction_type.as_deref().unwrap_or_default(),
                f.message
            ),
            Outcome::Skipped { reason } => format!("{} — skipped: {reason}", c.name),
            Outcome::Passed => format!("{} — PASSED", c.name),
        })
        .collect();
    insta::assert_snapshot!(messages.join("\n\n"));
    // Each failing assertion polled until the timeout (2 s in these tests) and no longer.
    let failed_polls = report.failed();
    assert!(start.elapsed() < Duration::from_secs(3 * failed_polls as u64 + 5));
}

#[test]
fn compare_finds_no_difference_between_two_runs_of_baton_on_the_corpus() {
    let Some(dir) = corpus() else { return };
    let options = baton_remote::RemoteOptions {
        assert_timeout: Duration::from_secs(2),
        ..Default::default()
    };
    let observe = |server: &baton_serve::ServerHandle| {
        baton_remote::observe_remote(
            &crate::support::client(server),
            std::slice::from_ref(&dir),
            &options,
            &mut |_| {},
        )
        .expect("the run starts")
        .1
    };
    let (reference, endpoint) = (serve(), serve());
    let compared = baton_remote::compare::compare(&observe(&reference), &observe(&endpoint));
    assert_eq!(compared.len(), 71);
    let differing: Vec<String> = compared
        .iter()
        .filter(|c| !c.differences.is_empty())
        .map(|c| format!("{}: {:?}", c.title, c.differences))
        .collect();
    assert_eq!(differing, Vec::<String>::new());
    // Every case that ran left something to compare.
    assert!(compared.iter().all(|c| !c.normalised.is_empty()));
}
