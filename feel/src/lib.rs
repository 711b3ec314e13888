//! baton-feel: a FEEL evaluator that gives camunda/feel-scala's answers.
#![forbid(unsafe_code)]
