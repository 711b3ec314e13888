//! DMN rule coverage: every deployed decision table with its rules, and which rules matched.
//! A rule is covered when it matched in an evaluation: a business rule task's, a standalone one
//! (CPT's EVALUATE_DECISION), or as a decision another decision required (Zeebe records each
//! of those as a decision instance of its own, as CPT 8.10's `DecisionCoverageCreator` counts
//! them). Decisions of other kinds (literal expressions, contexts, ...) have no rules and are
//! left out, as in CPT.

use baton_engine::dmn::{self, model::HitPolicy, model::Logic};
use baton_engine::runtime::{DeployedDecision, Engine, rule_id};

use super::data::{DecisionCoverageData, RuleInfo, fnv1a};
use super::{CoverageCount, resource_text};
use crate::history::History;

/// The coverage of one decision table, counted.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionCoverage {
    pub decision_id: String,
    /// The resource it was deployed from.
    pub source: String,
    /// Rules matched out of the table's rules; `uncovered` names each rule never matched
    /// (`#3 rule-id`).
    pub rules: CoverageCount,
}

impl DecisionCoverage {
    pub(crate) fn of(d: &DecisionCoverageData) -> DecisionCoverage {
        let uncovered: Vec<String> = d
            .rules
            .iter()
            .enumerate()
            .filter(|(i, _)| !d.matched_rules.contains(&(*i as u32 + 1)))
            .map(|(i, r)| rule_label(i, r))
            .collect();
        DecisionCoverage {
            decision_id: d.decision_id.clone(),
            source: d.source.clone(),
            rules: CoverageCount::from_counts(
                d.rules.len(),
                d.rules.len() - uncovered.len(),
                uncovered,
            ),
        }
    }
}

/// How reports name a rule: its position, and its id when the DMN gives one.
pub(crate) fn rule_label(index: usize, rule: &RuleInfo) -> String {
    if rule.id.starts_with("ZB_SYNTH_RULE_ID_") {
        format!("#{}", index + 1)
    } else {
        format!("#{} {}", index + 1, rule.id)
    }
}

/// The hit policy as DMN writes it, with a COLLECT table's aggregation (`COLLECT SUM`).
fn hit_policy(table: &dmn::model::DecisionTable) -> String {
    let policy = match table.hit_policy {
        HitPolicy::Unique => "UNIQUE",
        HitPolicy::First => "FIRST",
        HitPolicy::Priority => "PRIORITY",
        HitPolicy::Any => "ANY",
        HitPolicy::Collect => "COLLECT",
        HitPolicy::RuleOrder => "RULE ORDER",
        HitPolicy::OutputOrder => "OUTPUT ORDER",
    };
    match table.aggregation {
        None => policy.to_owned(),
        Some(a) => format!(
            "{policy} {}",
            match a {
                dmn::model::Aggregation::Sum => "SUM",
                dmn::model::Aggregation::Min => "MIN",
                dmn::model::Aggregation::Max => "MAX",
                dmn::model::Aggregation::Count => "COUNT",
            }
        ),
    }
}

/// What to collect: everything a coverage file holds, or what the counts need (no DMN text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    File,
    Counts,
}

/// One decision table's data, without its matches.
fn table_data(
    engine: &Engine,
    d: &DeployedDecision,
    detail: Detail,
) -> Option<DecisionCoverageData> {
    let drg = &engine.deployed_drgs()[d.drg.0 as usize];
    if drg
        .resource_name
        .starts_with(crate::GENERATED_RESOURCE_PREFIX)
    {
        return None;
    }
    let decision = drg.model.decisions.get(d.index)?;
    let Logic::DecisionTable(table) = &decision.logic else {
        return None;
    };
    let inputs: Vec<String> = table
        .inputs
        .iter()
        .map(|i| match &i.label {
            Some(l) if !l.trim().is_empty() => l.to_string(),
            _ => i.expression.source().to_owned(),
        })
        .collect();
    let outputs: Vec<String> = table
        .outputs
        .iter()
        .map(|o| o.record_name().map(|n| n.to_string()).unwrap_or_default())
        .collect();
    let rules: Vec<RuleInfo> = table
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| RuleInfo {
            id: rule_id(
                &d.id,
                d.version,
                &dmn::MatchedRule {
                    rule_id: r.id.clone(),
                    rule_index: i as u32 + 1,
                    evaluated_outputs: Vec::new(),
                },
            ),
            inputs: r
                .input_entries
                .iter()
                .map(|e| e.as_ref().map_or("-", |t| t.source()).to_owned())
                .collect(),
            outputs: r
                .output_entries
                .iter()
                .map(|e| e.source().to_owned())
                .collect(),
        })
        .collect();
    let policy = hit_policy(table);
    let mut shape = format!("{}\n{policy}", d.id);
    for column in inputs.iter().chain(&outputs) {
        shape.push('\n');
        shape.push_str(column);
    }
    for r in &table.rules {
        shape.push('\n');
        shape.push_str(&r.id);
        for e in &r.input_entries {
            shape.push('|');
            shape.push_str(e.as_ref().map_or("-", |t| t.source()));
        }
        for e in &r.output_entries {
            shape.push('|');
            shape.push_str(e.source());
        }
    }
    Some(DecisionCoverageData {
        decision_id: d.id.to_string(),
        name: d.name.to_string(),
        version: Some(d.version),
        model_hash: format!("{:016x}", fnv1a(shape.as_bytes())),
        source: drg.resource_name.to_string(),
        hit_policy: policy,
        inputs,
        outputs,
        rules,
        evaluated: false,
        matched_rules: Vec::new(),
        xml: match detail {
            Detail::File => resource_text(engine, &drg.resource_name, &format!("\"{}\"", d.id)),
            Detail::Counts => None,
        },
    })
}

/// Every deployed decision table (except baton's generated stand-ins) with the rules the
/// history saw match; versions with the same table merge.
pub(crate) fn collect(
    engine: &Engine,
    history: &History,
    detail: Detail,
) -> Vec<DecisionCoverageData> {
    let mut out: Vec<DecisionCoverageData> = Vec::new();
    for (i, d) in engine.deployed_decisions().iter().enumerate() {
        let Some(mut data) = table_data(engine, d, detail) else {
            continue;
        };
        if let Some(hits) = history.rule_hits.get(i).filter(|h| !h.is_empty()) {
            data.evaluated = true;
            data.matched_rules = hits
                .iter()
                .enumerate()
                .filter(|(_, hit)| **hit)
                .map(|(r, _)| r as u32 + 1)
                .collect();
        }
        super::data::merge_decision(&mut out, &data);
    }
    out
}
