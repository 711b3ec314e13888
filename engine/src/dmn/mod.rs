//! DMN decisions, evaluated the way Zeebe does it with camunda/dmn-scala.
//!
//! - [`model`]: the typed decision requirements graph ([`Drg`]) of one `.dmn` file, FEEL parsed.
//! - [`parse`](mod@parse): DMN 1.1–1.5 XML → [`Drg`] plus every problem, with positions (what
//!   dmn-scala refuses at deployment, with its messages).
//! - [`eval`]: evaluating a decision with its required decisions: every hit policy, the result
//!   shapes Zeebe writes to `resultVariable`, and the audit of evaluated decisions (inputs,
//!   matched rules, outputs) that becomes `DECISION_EVALUATION` records.
//!
//! ```
//! use baton_engine::dmn;
//! use baton_engine::source::Source;
//! use baton_feel::{Env, Value};
//!
//! let xml = r#"<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="D" namespace="n">
//!   <decision id="size" name="Size">
//!     <decisionTable hitPolicy="FIRST">
//!       <input id="i"><inputExpression><text>amount</text></inputExpression></input>
//!       <output id="o" name="size"/>
//!       <rule id="r1"><inputEntry><text>&lt; 10</text></inputEntry><outputEntry><text>"small"</text></outputEntry></rule>
//!       <rule id="r2"><inputEntry><text>-</text></inputEntry><outputEntry><text>"large"</text></outputEntry></rule>
//!     </decisionTable>
//!   </decision>
//! </definitions>"#;
//! let drg = dmn::parse(&Source::new("size.dmn", xml)).drg.unwrap();
//! let vars = serde_json::json!({"amount": 25});
//! let evaluation = dmn::evaluate(&drg, "size", vars.as_object().unwrap(), &Env::default());
//! assert_eq!(evaluation.result.unwrap(), Value::string("large"));
//! assert_eq!(evaluation.evaluated_decisions[0].matched_rules[0].rule_index, 2);
//! ```

pub mod eval;
pub mod model;
pub mod parse;
mod scala;

pub use eval::{
    EvaluatedDecision, EvaluatedInput, EvaluatedOutput, Evaluation, EvaluationFailure, MatchedRule,
    evaluate,
};
pub use model::{DecisionType, Drg};
pub use parse::{Parsed, parse};
