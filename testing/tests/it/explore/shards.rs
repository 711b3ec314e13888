//! Past one machine: the shards of an exploration (and of a test suite) split the work the
//! same way everywhere, and their reports merge into the whole one.

use baton_testing::cpt::{self, Options};
use baton_testing::explore::Report;

use super::template::{invariants, space, template};

fn without_time(report: &Report) -> serde_json::Value {
    let mut json = report.to_json();
    let object = json.as_object_mut().unwrap();
    object.remove("seconds");
    object.remove("trajectoriesPerSecond");
    json
}

#[test]
fn the_shards_of_an_exploration_merge_into_the_whole_report() {
    let whole = template().explore(&space(2), invariants()).unwrap();
    let parts: Vec<Report> = (1..=3)
        .map(|k| {
            let part = template()
                .explore(&space(2).shard(k, 3), invariants())
                .unwrap();
            // Through the report file, as a CI matrix passes them on.
            Report::from_json(&part.to_json()).unwrap()
        })
        .collect();
    assert!(parts.iter().all(|p| p.trajectories < whole.trajectories));
    let merged = Report::merge(parts).unwrap();
    assert_eq!(without_time(&merged), without_time(&whole));
}

#[test]
fn merging_refuses_reports_that_are_not_the_shards_of_one_space() {
    let part = |k, n| {
        template()
            .explore(&space(2).shard(k, n), invariants())
            .unwrap()
    };
    let whole = template().explore(&space(2), invariants()).unwrap();
    let messages = [
        Report::merge(vec![whole]).unwrap_err().to_string(),
        Report::merge(vec![part(1, 2)]).unwrap_err().to_string(),
        Report::merge(vec![part(1, 2), part(1, 2)])
            .unwrap_err()
            .to_string(),
        Report::merge(vec![part(1, 2), part(2, 3)])
            .unwrap_err()
            .to_string(),
    ];
    insta::assert_debug_snapshot!(messages);
}

#[test]
fn the_shards_of_a_suite_run_every_case_once() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates/ai-agent-tool-loop");
    let names = |shard| {
        let options = Options {
            shard,
            ..Options::default()
        };
        let report = cpt::run(&[&root], &options).unwrap();
        report
            .cases
            .iter()
            .map(|c| c.name.clone())
            .collect::<Vec<_>>()
    };
    let all = names(None);
    let first = names(Some((1, 2)));
    let second = names(Some((2, 2)));
    assert_eq!(first.len() + second.len(), all.len());
    let mut both: Vec<String> = first.into_iter().chain(second).collect();
    both.sort();
    let mut all_sorted = all.clone();
    all_sorted.sort();
    assert_eq!(both, all_sorted);
}

/// Sampled runs split over shards the same way: the shards' reports merge into the report of
/// the whole sample.
#[test]
fn the_shards_of_a_sample_merge_into_the_whole_report() {
    let sampled = || space(3).sample(7, 90);
    let whole = template().explore(&sampled(), invariants()).unwrap();
    let parts: Vec<Report> = (1..=2)
        .map(|k| {
            let part = template()
                .explore(&sampled().shard(k, 2), invariants())
                .unwrap();
            Report::from_json(&part.to_json()).unwrap()
        })
        .collect();
    assert!(parts.iter().all(|p| p.trajectories < whole.trajectories));
    let merged = Report::merge(parts).unwrap();
    assert_eq!(without_time(&merged), without_time(&whole));
}
