//! The reports of every shard of one exploration merged into the report of the whole.

use super::json::ReportError;
use super::{Counterexample, Report};

/// The order counterexamples of several reports are chosen by: simplest first.
fn simpler(a: &Counterexample, b: &Counterexample) -> bool {
    (a.model_calls, a.tool_calls, &a.choices) < (b.model_calls, b.tool_calls, &b.choices)
}

impl Report {
    /// Merges the reports of every shard of one exploration into the report of the whole: the
    /// counts added up, distinct states counted once, each invariant's simplest counterexample,
    /// coverage united. Refuses reports that are not the shards 1..N of one space.
    pub fn merge(reports: Vec<Report>) -> Result<Report, ReportError> {
        let Some(first) = reports.first() else {
            return Err(ReportError::Merge("no report to merge".into()));
        };
        let count = first.shard.map_or(0, |s| s.count);
        if count == 0 {
            return Err(ReportError::Merge(
                "the reports were not written by shards (baton explore --shard K/N --json FILE)"
                    .into(),
            ));
        }
        let mut seen = vec![false; count];
        for r in &reports {
            let Some(shard) = r
                .shard
                .filter(|s| s.count == count && s.index >= 1 && s.index <= count)
            else {
                return Err(ReportError::Merge(format!(
                    "the reports are not the shards of one split into {count}"
                )));
            };
            if std::mem::replace(&mut seen[shard.index - 1], true) {
                return Err(ReportError::Merge(format!(
                    "shard {}/{count} is given twice",
                    shard.index
                )));
            }
            if r.checks.len() != first.checks.len()
                || r.checks
                    .iter()
                    .zip(&first.checks)
                    .any(|(a, b)| a.invariant != b.invariant)
                || r.search != first.search
            {
                return Err(ReportError::Merge(
                    "the reports are of different explorations (their invariants or search differ)"
                        .into(),
                ));
            }
        }
        if let Some(missing) = seen.iter().position(|s| !s) {
            return Err(ReportError::Merge(format!(
                "shard {}/{count} is missing",
                missing + 1
            )));
        }
        let mut reports = reports;
        reports.sort_by_key(|r| r.shard.map_or(0, |s| s.index));
        let mut states: Vec<u64> = reports
            .iter()
            .flat_map(|r| r.state_fingerprints.iter().copied())
            .collect();
        states.sort_unstable();
        states.dedup();
        let mut merged = reports[0].clone();
        merged.shard = None;
        merged.state_fingerprints = Vec::new();
        merged.distinct_states = states.len() as u64;
        for r in reports.into_iter().skip(1) {
            merged.trajectories += r.trajectories;
            merged.cut_at_bound += r.cut_at_bound;
            merged.pruned += r.pruned;
            merged.elapsed = merged.elapsed.max(r.elapsed);
            if merged.cut_off.is_none() {
                merged.cut_off = r.cut_off;
            }
            for (mine, theirs) in merged.checks.iter_mut().zip(r.checks) {
                mine.count += theirs.count;
                mine.counterexample = match (mine.counterexample.take(), theirs.counterexample) {
                    (Some(a), Some(b)) => Some(if simpler(&b, &a) { b } else { a }),
                    (a, b) => a.or(b),
                };
            }
            merged.coverage_file =
                crate::coverage::merge([&merged.coverage_file, &r.coverage_file]);
            merged.run_errors += r.run_errors;
            merged.run_error = match (merged.run_error.take(), r.run_error) {
                (Some(a), Some(b)) => Some(if simpler(&b, &a) { b } else { a }),
                (a, b) => a.or(b),
            };
            for theirs in r.coverage.processes {
                match merged
                    .coverage
                    .processes
                    .iter_mut()
                    .find(|p| p.process_id == theirs.process_id)
                {
                    Some(mine) => {
                        mine.dead_elements
                            .retain(|e| theirs.dead_elements.contains(e));
                        mine.dead_flows.retain(|f| theirs.dead_flows.contains(f));
                        mine.dead_tools.retain(|t| theirs.dead_tools.contains(t));
                        mine.elements_entered = mine.elements - mine.dead_elements.len();
                        mine.flows_taken = mine.flows - mine.dead_flows.len();
                    }
                    None => merged.coverage.processes.push(theirs),
                }
            }
        }
        Ok(merged)
    }
}
