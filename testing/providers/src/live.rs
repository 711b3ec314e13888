//! Live runs: a case run N times against the real model, and what the runs show. Per case (never
//! a suite average): passes of the valid runs, the Wilson 95% interval, pass^k (τ-bench's
//! unbiased estimate that k independent runs all pass), the distinct trajectories with how often
//! each came and how often it failed, infrastructure errors (rate limits, timeouts) apart from
//! test failures, and the tokens spent. The statistics are plain functions.

use std::fmt::Write as _;

use baton_testing::agent::{AiAgentHandle, Turn, Usage};

use crate::error::ProviderError;

/// z of a two-sided 95% interval (as the tables of Wilson intervals use it).
pub const Z95: f64 = 1.96;

/// A confidence interval of a pass rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// The Wilson score interval of `passes` out of `n` at `z` (`None` for no runs). It stays
/// within [0, 1] and keeps a width at 0 and n passes, where the normal interval collapses.
pub fn wilson(passes: u64, n: u64, z: f64) -> Option<Interval> {
    if n == 0 || passes > n {
        return None;
    }
    let n = n as f64;
    let p = passes as f64 / n;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denominator;
    Some(Interval {
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    })
}

/// pass^k: C(c, k) / C(n, k), the chance that k runs drawn from these n all passed (0 when
/// fewer than k passed; `None` when there are fewer than k runs).
pub fn pass_hat_k(passes: u64, n: u64, k: u64) -> Option<f64> {
    if k == 0 || n < k || passes > n {
        return None;
    }
    if passes < k {
        return Some(0.0);
    }
    Some((0..k).fold(1.0, |acc, i| acc * (passes - i) as f64 / (n - i) as f64))
}

/// pass@k: 1 − C(n − c, k) / C(n, k), the chance that at least one of k runs passed.
pub fn pass_at_k(passes: u64, n: u64, k: u64) -> Option<f64> {
    if k == 0 || n < k || passes > n {
        return None;
    }
    let failures = n - passes;
    if failures < k {
        return Some(1.0);
    }
    Some(1.0 - (0..k).fold(1.0, |acc, i| acc * (failures - i) as f64 / (n - i) as f64))
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// The case failed: the process did something else than the test expects.
    Failed(String),
    /// The run could not ask the model (rate limit, overload, timeout, network): says nothing
    /// about the process, left out of the rate.
    Infrastructure(String),
}

/// One run of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub outcome: Outcome,
    /// The run's path: the model's tool calls per turn and the BPMN elements it ended at.
    pub trajectory: Vec<String>,
    pub usage: Usage,
}

/// A trajectory and its runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trajectory {
    pub steps: Vec<String>,
    pub runs: u64,
    pub failed: u64,
}

/// What a case's runs show.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseStats {
    /// Runs that asked the model to the end (infrastructure errors left out).
    pub valid: u64,
    pub passes: u64,
    pub infrastructure_errors: u64,
    pub wilson: Option<Interval>,
    /// pass^1, pass^2, pass^4 (`None` with fewer valid runs than k).
    pub pass_hat: [(u64, Option<f64>); 3],
    /// Most frequent first.
    pub trajectories: Vec<Trajectory>,
    pub usage: Usage,
}

/// A case's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every valid run passed, and the interval clears the minimum rate.
    Passed,
    /// Some runs failed, but the interval's lower bound clears the minimum rate.
    Flaky,
    Failed,
    /// No valid run (only infrastructure errors).
    Inconclusive,
}

impl CaseStats {
    pub fn of(runs: &[Run]) -> CaseStats {
        let mut stats = CaseStats {
            valid: 0,
            passes: 0,
            infrastructure_errors: 0,
            wilson: None,
            pass_hat: [(1, None), (2, None), (4, None)],
            trajectories: Vec::new(),
            usage: Usage::default(),
        };
        for run in runs {
            stats.usage.add(&run.usage);
            let failed = match run.outcome {
                Outcome::Infrastructure(_) => {
                    stats.infrastructure_errors += 1;
                    continue;
                }
                Outcome::Passed => {
                    stats.passes += 1;
                    false
                }
                Outcome::Failed(_) => true,
            };
            stats.valid += 1;
            match stats
                .trajectories
                .iter_mut()
                .find(|t| t.steps == run.trajectory)
            {
                Some(t) => {
                    t.runs += 1;
                    t.failed += failed as u64;
                }
                None => stats.trajectories.push(Trajectory {
                    steps: run.trajectory.clone(),
                    runs: 1,
                    failed: failed as u64,
                }),
            }
        }
        // Most frequent first; first seen first among equals (a stable sort).
        stats
            .trajectories
            .sort_by_key(|t| std::cmp::Reverse(t.runs));
        stats.wilson = wilson(stats.passes, stats.valid, Z95);
        for slot in &mut stats.pass_hat {
            slot.1 = pass_hat_k(stats.passes, stats.valid, slot.0);
        }
        stats
    }

    /// The verdict against a minimum pass rate: a case whose Wilson lower bound falls below
    /// `min_pass_rate` fails (with no minimum, any failed run fails the case).
    pub fn verdict(&self, min_pass_rate: Option<f64>) -> Verdict {
        let Some(interval) = self.wilson else {
            return Verdict::Inconclusive;
        };
        match min_pass_rate {
            None if self.passes == self.valid => Verdict::Passed,
            None => Verdict::Failed,
            Some(rate) if interval.low < rate => Verdict::Failed,
            Some(_) if self.passes == self.valid => Verdict::Passed,
            Some(_) => Verdict::Flaky,
        }
    }

    /// The summary line and the trajectories, for a report.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        match self.wilson {
            Some(w) => {
                let _ = write!(
                    out,
                    "{}/{} passed ({:.0}%), Wilson 95% [{:.3}, {:.3}]",
                    self.passes,
                    self.valid,
                    100.0 * self.passes as f64 / self.valid as f64,
                    w.low,
                    w.high
                );
                for (k, value) in self.pass_hat {
                    match value {
                        Some(v) => {
                            let _ = write!(out, ", pass^{k} {v:.3}");
                        }
                        None => {
                            let _ = write!(out, ", pass^{k} n/a");
                        }
                    }
                }
            }
            None => out.push_str("no valid run"),
        }
        if self.infrastructure_errors > 0 {
            let _ = write!(
                out,
                ", {} infrastructure error{} (not counted)",
                self.infrastructure_errors,
                if self.infrastructure_errors == 1 {
                    ""
                } else {
                    "s"
                }
            );
        }
        let _ = write!(
            out,
            ", {} tokens in, {} out",
            self.usage.input_token_count + self.usage.cache_read_token_count,
            self.usage.output_token_count
        );
        for t in &self.trajectories {
            let _ = write!(out, "\n  {:>3}× {}", t.runs, t.steps.join(" → "));
            if t.failed > 0 {
                let _ = write!(out, "  ({} failed)", t.failed);
            }
        }
        out
    }
}

/// A run's trajectory as the model took it: per model call, the tools it called (`a+b` for
/// calls in parallel), `answer` for the final answer, `failed call` for a call that failed,
/// `filtered` for content filtering.
pub fn trajectory(agent: &AiAgentHandle) -> Vec<String> {
    agent
        .requests()
        .iter()
        .map(|request| match &request.turn {
            Some(Turn::ToolCalls(turn)) => turn
                .calls
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join("+"),
            Some(Turn::Response(_) | Turn::ToolCallAsText(_)) => "answer".to_string(),
            Some(Turn::ContentFiltered(_)) => "filtered".to_string(),
            Some(Turn::Error(_)) | None => "failed call".to_string(),
        })
        .collect()
}

/// How a run ended: an infrastructure error of the provider makes it `Infrastructure`
/// whatever the test says (the run could not ask); otherwise the test's verdict.
pub fn outcome(errors: &[ProviderError], test: Result<(), String>) -> Outcome {
    if let Some(error) = errors.iter().find(|e| e.is_infrastructure()) {
        return Outcome::Infrastructure(error.to_string());
    }
    match test {
        Ok(()) => Outcome::Passed,
        Err(message) => Outcome::Failed(message),
    }
}

/// Why repeating stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The runs so far spent this many tokens, at or over the budget.
    TokenBudget { spent: u64, budget: u64 },
}

/// Runs `run_once` up to `n` times (with the run's index), stopping once the tokens spent
/// (input, cached input and output) reach `max_tokens`.
pub fn repeat(
    n: usize,
    max_tokens: Option<u64>,
    mut run_once: impl FnMut(usize) -> Run,
) -> (Vec<Run>, Option<Stop>) {
    let mut runs = Vec::with_capacity(n);
    let mut spent = 0u64;
    for i in 0..n {
        if let Some(budget) = max_tokens
            && spent >= budget
        {
            return (runs, Some(Stop::TokenBudget { spent, budget }));
        }
        let run = run_once(i);
        spent += total_tokens(&run.usage);
        runs.push(run);
    }
    (runs, None)
}

/// Tokens a call costs: input (cached included) and output.
pub fn total_tokens(usage: &Usage) -> u64 {
    usage.input_token_count + usage.cache_read_token_count + usage.output_token_count
}

/// A case and its runs, for a report.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRuns {
    /// `<file> › <name>`.
    pub name: String,
    pub runs: Vec<Run>,
}

/// XML 1.0 has no place for most control characters: they are dropped, the rest escaped.
fn xml(text: &str) -> String {
    let clean: String = text
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
        .collect();
    quick_xml::escape::escape(clean.as_str()).into_owned()
}

/// The live runs as JUnit XML: one `<testcase>` per case with its statistics as
/// `<properties>`; a case that clears the minimum rate despite failed runs passes with a
/// `<flakyFailure>` per failed run (as Surefire marks reruns, which CI reads as passed and
/// flaky); a failed case has a `<failure>` with the rate and a `<rerunFailure>` per other failed
/// run; a case with no valid run is `<skipped>`.
pub fn junit(cases: &[CaseRuns], min_pass_rate: Option<f64>) -> String {
    let stats: Vec<CaseStats> = cases.iter().map(|c| CaseStats::of(&c.runs)).collect();
    let verdicts: Vec<Verdict> = stats.iter().map(|s| s.verdict(min_pass_rate)).collect();
    let count = |v: Verdict| verdicts.iter().filter(|x| **x == v).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"baton live\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        cases.len(),
        count(Verdict::Failed),
        count(Verdict::Inconclusive)
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"live\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" flakes=\"{}\">",
        cases.len(),
        count(Verdict::Failed),
        count(Verdict::Inconclusive),
        count(Verdict::Flaky)
    );
    for ((case, stats), verdict) in cases.iter().zip(&stats).zip(&verdicts) {
        let _ = writeln!(out, "    <testcase name=\"{}\">", xml(&case.name));
        out.push_str("      <properties>\n");
        let mut property = |name: &str, value: String| {
            let _ = writeln!(
                out,
                "        <property name=\"{name}\" value=\"{}\"/>",
                xml(&value)
            );
        };
        property("passed", format!("{}/{}", stats.passes, stats.valid));
        if let Some(w) = stats.wilson {
            property("wilson95", format!("[{:.3}, {:.3}]", w.low, w.high));
        }
        for (k, value) in stats.pass_hat {
            property(
                &format!("pass^{k}"),
                value.map_or("n/a".to_string(), |v| format!("{v:.3}")),
            );
        }
        property(
            "infrastructureErrors",
            stats.infrastructure_errors.to_string(),
        );
        property("trajectories", stats.trajectories.len().to_string());
        property(
            "tokens",
            format!(
                "{} in, {} out",
                stats.usage.input_token_count + stats.usage.cache_read_token_count,
                stats.usage.output_token_count
            ),
        );
        out.push_str("      </properties>\n");
        let failures: Vec<&str> = case
            .runs
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Failed(message) => Some(message.as_str()),
                _ => None,
            })
            .collect();
        match verdict {
            Verdict::Passed => {}
            Verdict::Flaky => {
                for message in &failures {
                    let _ = writeln!(
                        out,
                        "      <flakyFailure message=\"{}\"/>",
                        xml(message.lines().next().unwrap_or_default())
                    );
                }
            }
            Verdict::Failed => {
                let w = stats.wilson.unwrap_or(Interval {
                    low: 0.0,
                    high: 0.0,
                });
                let summary = match min_pass_rate {
                    Some(rate) => format!(
                        "{}/{} passed, Wilson 95% [{:.3}, {:.3}] falls below the minimum pass rate {rate}",
                        stats.passes, stats.valid, w.low, w.high
                    ),
                    None => format!("{}/{} passed", stats.passes, stats.valid),
                };
                let _ = writeln!(
                    out,
                    "      <failure message=\"{}\">{}</failure>",
                    xml(&summary),
                    xml(failures.first().copied().unwrap_or_default())
                );
                for message in failures.iter().skip(1) {
                    let _ = writeln!(
                        out,
                        "      <rerunFailure message=\"{}\"/>",
                        xml(message.lines().next().unwrap_or_default())
                    );
                }
            }
            Verdict::Inconclusive => {
                let _ = writeln!(
                    out,
                    "      <skipped message=\"no valid run: {} infrastructure errors\"/>",
                    stats.infrastructure_errors
                );
            }
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(x: f64) -> f64 {
        (x * 1000.0).round() / 1000.0
    }

    /// The published tables (τ-bench's pass^k at n = 20; Wilson 95% intervals).
    #[test]
    fn known_values() {
        for (c, expected) in [
            (20, [1.0, 1.0, 1.0]),
            (19, [0.95, 0.9, 0.8]),
            (18, [0.9, 0.805, 0.632]),
            (16, [0.8, 0.632, 0.376]),
            (10, [0.5, 0.237, 0.043]),
        ] {
            let got = [1, 2, 4].map(|k| round(pass_hat_k(c, 20, k).unwrap()));
            assert_eq!(got, expected, "pass^k of {c}/20");
        }
        assert_eq!(round(pass_hat_k(19, 20, 8).unwrap()), 0.6);
        assert_eq!(round(pass_hat_k(16, 20, 8).unwrap()), 0.102);
        assert_eq!(pass_hat_k(3, 20, 4), Some(0.0));
        assert_eq!(pass_hat_k(3, 3, 4), None);
        for (c, low, high) in [
            (20, 0.839, 1.0),
            (19, 0.764, 0.991),
            (18, 0.699, 0.972),
            (16, 0.584, 0.919),
            (10, 0.299, 0.701),
        ] {
            let w = wilson(c, 20, Z95).unwrap();
            assert_eq!(
                (round(w.low), round(w.high)),
                (low, high),
                "Wilson of {c}/20"
            );
        }
        for (n, low) in [
            (10, 0.722),
            (20, 0.839),
            (30, 0.886),
            (50, 0.929),
            (100, 0.963),
        ] {
            assert_eq!(round(wilson(n, n, Z95).unwrap().low), low, "all {n} pass");
        }
        assert_eq!(wilson(0, 0, Z95), None);
        assert_eq!(
            round(pass_at_k(10, 20, 2).unwrap()),
            round(1.0 - 45.0 / 190.0)
        );
        assert_eq!(pass_at_k(19, 20, 2), Some(1.0));
    }

    fn run(outcome: Outcome, path: &[&str]) -> Run {
        Run {
            outcome,
            trajectory: path.iter().map(|s| s.to_string()).collect(),
            usage: Usage::new(100, 10),
        }
    }

    #[test]
    fn infrastructure_errors_stay_out_of_the_rate() {
        let runs = [
            run(Outcome::Passed, &["a", "b"]),
            run(Outcome::Failed("x".into()), &["a"]),
            run(Outcome::Infrastructure("429".into()), &[]),
            run(Outcome::Passed, &["a", "b"]),
        ];
        let stats = CaseStats::of(&runs);
        assert_eq!(
            (stats.valid, stats.passes, stats.infrastructure_errors),
            (3, 2, 1)
        );
        assert_eq!(stats.trajectories[0].runs, 2);
        assert_eq!(stats.trajectories[1].failed, 1);
        assert_eq!(stats.verdict(None), Verdict::Failed);
        assert_eq!(stats.verdict(Some(0.05)), Verdict::Flaky);
        assert_eq!(stats.verdict(Some(0.5)), Verdict::Failed);
        assert_eq!(
            CaseStats::of(&runs[2..3]).verdict(None),
            Verdict::Inconclusive
        );
        insta::assert_snapshot!(stats.describe(), @r"
        2/3 passed (67%), Wilson 95% [0.208, 0.939], pass^1 0.667, pass^2 0.333, pass^4 n/a, 1 infrastructure error (not counted), 400 tokens in, 40 out
            2× a → b
            1× a  (1 failed)
        ");
    }

    #[test]
    fn junit_marks_flaky_and_failed_cases() {
        let flaky = CaseRuns {
            name: "agent.test.json › damaged <order>".into(),
            runs: vec![
                run(Outcome::Passed, &["a"]),
                run(
                    Outcome::Failed("expected \"answered\"\nbut it waits".into()),
                    &["b"],
                ),
                run(Outcome::Passed, &["a"]),
            ],
        };
        let failed = CaseRuns {
            name: "agent.test.json › unresolved".into(),
            runs: vec![
                run(Outcome::Failed("one".into()), &["b"]),
                run(Outcome::Failed("two".into()), &["b"]),
                run(Outcome::Passed, &["a"]),
            ],
        };
        let inconclusive = CaseRuns {
            name: "agent.test.json › rate limited".into(),
            runs: vec![run(Outcome::Infrastructure("429".into()), &[])],
        };
        insta::assert_snapshot!(junit(&[flaky, failed, inconclusive], Some(0.1)));
    }

    #[test]
    fn a_token_budget_stops_the_runs() {
        let (runs, stop) = repeat(10, Some(250), |_| run(Outcome::Passed, &[]));
        assert_eq!(runs.len(), 3);
        assert_eq!(
            stop,
            Some(Stop::TokenBudget {
                spent: 330,
                budget: 250
            })
        );
    }
}
