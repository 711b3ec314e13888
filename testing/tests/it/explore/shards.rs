//! Past one machine: the shards of an exploration (and of a test suite) split the work the
//! same way everywhere, and their reports merge into the whole one.

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

/// A file that is not a shard's report is refused with the place of the problem.
#[test]
fn a_file_that_is_not_a_report_is_refused_with_the_place() {
    let report = template()
        .explore(&space(1).shard(1, 2), invariants())
        .unwrap()
        .to_json();
    let mut no_checks = report.clone();
    no_checks.as_object_mut().unwrap().remove("checks");
    let mut wrong_count = report.clone();
    wrong_count["trajectories"] = serde_json::json!("many");
    let values = [
        serde_json::json!([]),
        serde_json::json!({}),
        serde_json::json!({"start": {"processDefinitionId": "p"}}),
        no_checks,
        wrong_count,
    ];
    let messages: Vec<String> = values
        .iter()
        .map(|v| Report::from_json(v).unwrap_err().to_string())
        .collect();
    insta::assert_debug_snapshot!(messages);
}
