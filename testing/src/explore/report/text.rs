//! The report in words: the counts, each invariant's verdict with its counterexample, run
//! errors, and what no explored run reached.

use std::fmt::{self, Write as _};

use super::super::space::Search;
use super::{Counterexample, Report};

impl Counterexample {
    fn render(&self, out: &mut String, indent: &str) {
        let _ = writeln!(out, "{indent}{}", self.message);
        let _ = writeln!(
            out,
            "{indent}trajectory ({} model call{}, {} tool call{}):",
            self.model_calls,
            plural(self.model_calls),
            self.tool_calls,
            plural(self.tool_calls)
        );
        for (i, step) in self.steps.iter().enumerate() {
            let _ = writeln!(out, "{indent}  {}. {step}", i + 1);
        }
        if !self.continuation.is_empty() {
            let _ = writeln!(out, "{indent}then, to the end of the run:");
            for step in &self.continuation {
                let _ = writeln!(out, "{indent}  - {step}");
            }
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let mode = match self.search {
            Search::Exhaustive => "exhaustive".to_string(),
            Search::Sample { seed, runs } => {
                format!("{runs} sampled run{}, seed {seed}", plural(runs as usize))
            }
        };
        let _ = writeln!(out, "exploration ({mode}): {}", self.counts());
        let _ = writeln!(
            out,
            "time: {:.2} s, {:.0} trajectories/s",
            self.elapsed.as_secs_f64(),
            self.trajectories_per_second()
        );
        for c in &self.checks {
            let verdict = match (c.invariant.is_goal(), c.holds()) {
                (true, true) => format!(
                    "reached on {} explored path{}",
                    c.count,
                    plural(c.count as usize)
                ),
                (true, false) => "NOT REACHED by any explored run".to_string(),
                (false, true) => "holds".to_string(),
                (false, false) => {
                    format!(
                        "VIOLATED on {} explored path{}",
                        c.count,
                        plural(c.count as usize)
                    )
                }
            };
            let _ = writeln!(out, "\n{}: {verdict}", c.invariant);
            if let Some(cx) = &c.counterexample
                && (!c.holds() || c.invariant.is_goal())
            {
                cx.render(&mut out, "  ");
            }
        }
        if self.run_errors > 0 {
            let _ = writeln!(
                out,
                "\nrun errors in {} run{}",
                self.run_errors,
                plural(self.run_errors as usize)
            );
            if let Some(cx) = &self.run_error {
                cx.render(&mut out, "  ");
            }
        }
        for p in &self.coverage.processes {
            let _ = writeln!(
                out,
                "\ncoverage of \"{}\" over every explored run: {}/{} elements, {}/{} flows",
                p.process_id, p.elements_entered, p.elements, p.flows_taken, p.flows
            );
            if !p.dead_tools.is_empty() {
                let _ = writeln!(
                    out,
                    "  tools no choice reaches: {}",
                    p.dead_tools.join(", ")
                );
            }
            if !p.dead_elements.is_empty() {
                let _ = writeln!(
                    out,
                    "  elements no choice reaches: {}",
                    p.dead_elements.join(", ")
                );
            }
            if !p.dead_flows.is_empty() {
                let _ = writeln!(out, "  flows no choice takes: {}", p.dead_flows.join(", "));
            }
        }
        f.write_str(out.trim_end())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
