//! Function calls: by name (a local function, a built-in, a function variable), of function
//! values (user-defined, built-in, native) with positional or named arguments.

use std::sync::Arc;

use super::{Eval, R, Scope, Shown};
use crate::ast::{Args, Expr};
use crate::builtins;
use crate::error::{Failure, WarningKind};
use crate::value::{Function, NativeFunction, Value};

impl Eval<'_> {
    pub(super) fn eval_args(&mut self, args: &Args, scope: &Scope) -> Result<CallArgs, Failure> {
        Ok(match args {
            Args::Positional(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs {
                    out.push(self.eval(x, scope)?);
                }
                CallArgs::Positional(out)
            }
            Args::Named(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for (n, x) in xs {
                    out.push((n.clone(), self.eval(x, scope)?));
                }
                CallArgs::Named(out)
            }
        })
    }

    pub(super) fn call_by_name(&mut self, name: &Arc<str>, args: &Args, scope: &Scope) -> R {
        if let Some(Value::Function(f)) = scope.lookup(name) {
            let f = f.clone();
            let args = self.eval_args(args, scope)?;
            return self.call_function(&f, name, args);
        }
        if let Some(set) = builtins::lookup(name) {
            let args = self.eval_args(args, scope)?;
            return builtins::invoke(self, name, set, args);
        }
        if let Some(Value::Function(f)) = self.vars.get(name) {
            let args = self.eval_args(args, scope)?;
            return self.call_function(&f, name, args);
        }
        let args = self.eval_args(args, scope)?;
        Ok(self.no_function(name, &args))
    }

    pub(crate) fn no_function(&mut self, name: &str, args: &CallArgs) -> Value {
        self.null(WarningKind::NoFunctionFound, || match args {
            CallArgs::Positional(a) => format!(
                "No function found with name '{name}' and {} parameters",
                a.len()
            ),
            CallArgs::Named(a) => format!(
                "No function found with name '{name}' and parameters: {}",
                a.iter()
                    .map(|(n, _)| n.as_ref())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        })
    }

    /// Calls a function value with evaluated arguments.
    pub(crate) fn call_function(&mut self, f: &Arc<Function>, name: &str, args: CallArgs) -> R {
        match f.as_ref() {
            Function::Builtin(b) => match builtins::lookup(b) {
                Some(set) => builtins::invoke(self, b, set, args),
                None => Ok(self.no_function(name, &args)),
            },
            Function::Native(native) => Ok(self.call_native(native, name, args)),
            Function::User {
                params,
                body,
                captured,
            } => {
                // Only the evaluator makes user functions, each with an expression as its body.
                let Some(body) = body.get::<Expr>() else {
                    return Ok(self.no_function(name, &args));
                };
                let values: Vec<Value> = match args {
                    CallArgs::Positional(a) => {
                        if a.len() != params.len() {
                            return Ok(self.no_function(name, &CallArgs::Positional(a)));
                        }
                        a
                    }
                    CallArgs::Named(a) => {
                        if a.iter().any(|(n, _)| !params.iter().any(|p| p == n)) {
                            return Ok(self.no_function(name, &CallArgs::Named(a)));
                        }
                        params
                            .iter()
                            .map(|p| {
                                a.iter()
                                    .find(|(n, _)| n == p)
                                    .map(|(_, v)| v.clone())
                                    .unwrap_or(Value::Null)
                            })
                            .collect()
                    }
                };
                let mut entries: Vec<(Arc<str>, Value)> = captured.clone();
                entries.extend(params.iter().cloned().zip(values));
                let scope = Scope::Many {
                    parent: &Scope::Root,
                    entries: &entries,
                };
                self.eval(body, &scope)
            }
        }
    }

    /// Calls a caller-provided function: the overload that fits the arguments, a failure as a
    /// `FUNCTION_INVOCATION_FAILURE` warning with the result `null`.
    fn call_native(&mut self, native: &NativeFunction, name: &str, args: CallArgs) -> Value {
        let overload = match &args {
            CallArgs::Positional(a) => native.overloads.iter().find(|p| p.len() == a.len()),
            CallArgs::Named(a) => native
                .overloads
                .iter()
                .find(|p| a.iter().all(|(n, _)| p.contains(n))),
        };
        let Some(params) = overload else {
            return self.no_function(name, &args);
        };
        let values: Vec<Value> = match args {
            CallArgs::Positional(a) => a,
            CallArgs::Named(a) => params
                .iter()
                .map(|p| {
                    a.iter()
                        .find(|(n, _)| n == p)
                        .map_or(Value::Null, |(_, v)| v.clone())
                })
                .collect(),
        };
        match (native.body)(&values) {
            Ok(value) => value,
            Err(reason) => self.null(WarningKind::FunctionInvocationFailure, || {
                format!("Failed to invoke function '{name}': {}", Shown(&reason))
            }),
        }
    }

    /// Calls a function value positionally (used by `sort`, ...).
    pub(crate) fn call_value(&mut self, f: &Arc<Function>, args: Vec<Value>) -> R {
        self.call_function(f, "anonymous", CallArgs::Positional(args))
    }
}

/// Evaluated call arguments.
pub(crate) enum CallArgs {
    Positional(Vec<Value>),
    Named(Vec<(Arc<str>, Value)>),
}
