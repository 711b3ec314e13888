//! Shards of a CPT suite: each case runs in exactly one shard.

use baton_cpt::{self as cpt, Options};

#[test]
fn the_shards_of_a_suite_run_every_case_once() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../templates/ai-agent-tool-loop");
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
