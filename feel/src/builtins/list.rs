//! List functions: `list contains`, `count`, `min`/`max`/`sum`/..., `sublist`, `append`,
//! `sort`, `string join`, `partition`, ...

use std::cmp::Ordering;
use std::sync::Arc;

use super::{Fail, Out, Registry, boolean, int, list_arg, num};
use crate::eval::Eval;
use crate::number::Number;
use crate::value::{Function, Value};

pub(crate) fn register(r: &mut Registry) {
    r.add("list contains", &["list", "element"], |_, a| {
        let l = list_arg(&a[0])?;
        boolean(l.iter().any(|i| i.feel_eq(&a[1]) == Some(true)))
    });
    r.add("count", &["list"], |_, a| {
        Ok(Value::Number(Number::from(list_arg(&a[0])?.len())))
    });
    r.add_varargs("min", &["list"], |_, a| min_max(a, Ordering::Less));
    r.add_varargs("max", &["list"], |_, a| min_max(a, Ordering::Greater));
    r.add_varargs("sum", &["list"], sum);
    r.add_varargs("product", &["list"], product);
    r.add_varargs("mean", &["list"], mean);
    r.add_varargs("median", &["list"], median);
    r.add_varargs("stddev", &["list"], stddev);
    r.add_varargs("mode", &["list"], mode);
    r.add_varargs("and", &["list"], |_, a| all(a));
    r.add_varargs("all", &["list"], |_, a| all(a));
    r.add_varargs("or", &["list"], |_, a| any(a));
    r.add_varargs("any", &["list"], |_, a| any(a));
    r.add("sublist", &["list", "start"], sublist);
    r.add("sublist", &["list", "start", "length"], sublist);
    r.add_varargs("append", &["list", "items"], |ev, a| {
        let l = list_arg(&a[0])?;
        let items = list_arg(&a[1])?;
        ev.check_items(l.len() + items.len()).map_err(Fail::Fatal)?;
        let mut out = l.to_vec();
        out.extend(items.iter().cloned());
        Ok(Value::list(out))
    });
    r.add_varargs("concatenate", &["lists"], |ev, a| {
        let mut out = Vec::new();
        for l in list_arg(&a[0])?.iter() {
            out.extend(list_arg(l)?.iter().cloned());
            ev.check_items(out.len()).map_err(Fail::Fatal)?;
        }
        Ok(Value::list(out))
    });
    r.add(
        "insert before",
        &["list", "position", "newItem"],
        insert_before,
    );
    r.add("remove", &["list", "position"], remove);
    r.add("reverse", &["list"], |_, a| {
        let mut out = list_arg(&a[0])?.to_vec();
        out.reverse();
        Ok(Value::list(out))
    });
    r.add("index of", &["list", "match"], |_, a| {
        let l = list_arg(&a[0])?;
        Ok(Value::list(
            l.iter()
                .enumerate()
                .filter(|(_, v)| v.feel_eq(&a[1]) == Some(true))
                .map(|(i, _)| Value::Number(Number::from(i + 1)))
                .collect(),
        ))
    });
    r.add_varargs("union", &["lists"], |ev, a| {
        let mut out: Vec<Value> = Vec::new();
        for l in list_arg(&a[0])?.iter() {
            for v in list_arg(l)?.iter() {
                ev.charge_steps(out.len() / COMPARISONS_PER_STEP)
                    .map_err(Fail::Fatal)?;
                if !out.iter().any(|o| o.feel_eq(v) == Some(true)) {
                    out.push(v.clone());
                }
            }
        }
        Ok(Value::list(out))
    });
    r.add("distinct values", &["list"], |ev, a| {
        Ok(Value::list(distinct(ev, list_arg(&a[0])?)?))
    });
    r.add("duplicate values", &["list"], |ev, a| {
        let l = list_arg(&a[0])?;
        let mut out: Vec<Value> = Vec::new();
        for (i, v) in l.iter().enumerate() {
            // each item is compared with the rest and with the duplicates so far
            ev.charge_steps((l.len() - i + out.len()) / COMPARISONS_PER_STEP)
                .map_err(Fail::Fatal)?;
            if l[i + 1..].iter().any(|w| w.feel_eq(v) == Some(true))
                && !out.iter().any(|o| o.feel_eq(v) == Some(true))
            {
                out.push(v.clone());
            }
        }
        Ok(Value::list(out))
    });
    r.add("flatten", &["list"], |ev, a| {
        let l = list_arg(&a[0])?;
        // counted first: a list of repeated lists is small until it is flattened
        let limit = ev.env.limits.max_items;
        ev.check_items(flat_len(l, limit)).map_err(Fail::Fatal)?;
        let mut out = Vec::new();
        flatten(l, &mut out);
        Ok(Value::list(out))
    });
    r.add("sort", &["list", "precedes"], sort);
    r.add("string join", &["list"], string_join);
    r.add("string join", &["list", "delimiter"], string_join);
    r.add(
        "string join",
        &["list", "delimiter", "prefix", "suffix"],
        string_join,
    );
    r.add("is empty", &["list"], |_, a| {
        boolean(list_arg(&a[0])?.is_empty())
    });
    r.add("partition", &["list", "size"], |_, a| {
        let l = list_arg(&a[0])?;
        let size = int(&a[1])?;
        if size <= 0 {
            return Err(Fail::Msg(format!(
                "'size' should be greater than zero but was '{size}'"
            )));
        }
        Ok(Value::list(
            l.chunks(size as usize)
                .map(|c| Value::list(c.to_vec()))
                .collect(),
        ))
    });
}

/// How many comparisons of two items count as one evaluation step (a comparison is cheaper than
/// evaluating a node).
const COMPARISONS_PER_STEP: usize = 4;

/// The items without repetitions, in order; each item is compared with those kept so far
/// (counted as steps: a long list of distinct items is quadratic work).
fn distinct(ev: &mut Eval, l: &[Value]) -> Result<Vec<Value>, Fail> {
    let mut out: Vec<Value> = Vec::new();
    for v in l {
        ev.charge_steps(out.len() / COMPARISONS_PER_STEP)
            .map_err(Fail::Fatal)?;
        if !out.iter().any(|o| o.feel_eq(v) == Some(true)) {
            out.push(v.clone());
        }
    }
    Ok(out)
}

/// The length of the flattened list, or a number beyond `limit` as soon as it is beyond.
fn flat_len(l: &[Value], limit: usize) -> usize {
    let mut n: usize = 0;
    for v in l {
        n = n.saturating_add(match v {
            Value::List(inner) => flat_len(inner, limit - n.min(limit)),
            _ => 1,
        });
        if n > limit {
            break;
        }
    }
    n
}

fn flatten(l: &[Value], out: &mut Vec<Value>) {
    for v in l {
        match v {
            Value::List(inner) => flatten(inner, out),
            other => out.push(other.clone()),
        }
    }
}

fn numbers(a: &[Value]) -> Result<Vec<&Number>, Fail> {
    list_arg(&a[0])?.iter().map(num).collect()
}

fn min_max(a: &[Value], want: Ordering) -> Out {
    let l = list_arg(&a[0])?;
    let Some(first) = l.first() else {
        return Ok(Value::Null);
    };
    let mut best = first;
    for v in l.iter().skip(1) {
        match v.feel_cmp(best) {
            Some(o) if o == want => best = v,
            Some(_) => {}
            None => return Err(Fail::Illegal),
        }
    }
    if best.feel_cmp(best).is_none() {
        return Err(Fail::Illegal);
    }
    Ok(best.clone())
}

fn sum(_: &mut Eval, a: &[Value]) -> Out {
    let ns = numbers(a)?;
    if ns.is_empty() {
        return Ok(Value::Null);
    }
    Ok(Value::Number(
        ns.iter().fold(Number::ZERO, |acc, n| acc.add(n)),
    ))
}

fn product(_: &mut Eval, a: &[Value]) -> Out {
    let ns = numbers(a)?;
    if ns.is_empty() {
        return Ok(Value::Null);
    }
    Ok(Value::Number(
        ns.iter().skip(1).fold(ns[0].clone(), |acc, n| acc.mul(n)),
    ))
}

fn mean(_: &mut Eval, a: &[Value]) -> Out {
    let ns = numbers(a)?;
    if ns.is_empty() {
        return Ok(Value::Null);
    }
    let s = ns.iter().fold(Number::ZERO, |acc, n| acc.add(n));
    Ok(s.div(&Number::from(ns.len()))
        .map(Value::Number)
        .unwrap_or(Value::Null))
}

fn median(_: &mut Eval, a: &[Value]) -> Out {
    let mut ns: Vec<Number> = numbers(a)?.into_iter().cloned().collect();
    if ns.is_empty() {
        return Ok(Value::Null);
    }
    ns.sort();
    let n = ns.len();
    if n % 2 == 1 {
        Ok(Value::Number(ns[n / 2].clone()))
    } else {
        let s = ns[n / 2 - 1].add(&ns[n / 2]);
        Ok(s.div(&Number::from(2))
            .map(Value::Number)
            .unwrap_or(Value::Null))
    }
}

fn stddev(_: &mut Eval, a: &[Value]) -> Out {
    let ns = numbers(a)?;
    if ns.len() < 2 {
        return Ok(Value::Null);
    }
    let n = Number::from(ns.len());
    let mean = ns
        .iter()
        .fold(Number::ZERO, |acc, x| acc.add(x))
        .div(&n)
        .ok_or(Fail::Illegal)?;
    let sq = ns.iter().fold(Number::ZERO, |acc, x| {
        let d = x.sub(&mean);
        acc.add(&d.mul(&d))
    });
    let var = sq.div(&Number::from(ns.len() - 1)).ok_or(Fail::Illegal)?;
    Ok(Number::from_f64(var.to_f64().sqrt())
        .map(Value::Number)
        .unwrap_or(Value::Null))
}

fn mode(ev: &mut Eval, a: &[Value]) -> Out {
    let ns = numbers(a)?;
    let mut counts: Vec<(Number, usize)> = Vec::new();
    for n in ns {
        ev.charge_steps(counts.len() / COMPARISONS_PER_STEP)
            .map_err(Fail::Fatal)?;
        match counts.iter_mut().find(|(m, _)| m == n) {
            Some((_, c)) => *c += 1,
            None => counts.push((n.clone(), 1)),
        }
    }
    let Some(max) = counts.iter().map(|(_, c)| *c).max() else {
        return Ok(Value::list(Vec::new()));
    };
    let mut modes: Vec<Number> = counts
        .into_iter()
        .filter(|(_, c)| *c == max)
        .map(|(n, _)| n)
        .collect();
    modes.sort();
    Ok(Value::list(modes.into_iter().map(Value::Number).collect()))
}

fn all(a: &[Value]) -> Out {
    let l = list_arg(&a[0])?;
    let mut null = false;
    for v in l.iter() {
        match v {
            Value::Boolean(false) => return boolean(false),
            Value::Boolean(true) => {}
            _ => null = true,
        }
    }
    Ok(if null {
        Value::Null
    } else {
        Value::Boolean(true)
    })
}

fn any(a: &[Value]) -> Out {
    let l = list_arg(&a[0])?;
    let mut null = false;
    for v in l.iter() {
        match v {
            Value::Boolean(true) => return boolean(true),
            Value::Boolean(false) => {}
            _ => null = true,
        }
    }
    Ok(if null {
        Value::Null
    } else {
        Value::Boolean(false)
    })
}

fn sublist(_: &mut Eval, a: &[Value]) -> Out {
    let l = list_arg(&a[0])?;
    let start = int(&a[1])?;
    if start == 0 {
        return Err(Fail::Msg("start position must be a non-zero number".into()));
    }
    let len = l.len() as i64;
    let from = if start > 0 { start - 1 } else { len + start };
    if from < 0 || from >= len {
        return Ok(Value::list(Vec::new()));
    }
    let to = match a.get(2) {
        Some(v) => {
            let n = int(v)?;
            from.saturating_add(n.max(0)).min(len)
        }
        None => len,
    };
    Ok(Value::list(l[from as usize..to as usize].to_vec()))
}

fn insert_before(_: &mut Eval, a: &[Value]) -> Out {
    let l = list_arg(&a[0])?;
    let pos = int(&a[1])?;
    if pos == 0 {
        return Err(Fail::Msg("position must be a non-zero number".into()));
    }
    let len = l.len() as i64;
    let idx = if pos > 0 { pos - 1 } else { len + pos };
    if idx < 0 || idx > len {
        return Err(Fail::Msg(format!(
            "position {pos} is out of the list's bounds"
        )));
    }
    let mut out = l.to_vec();
    out.insert(idx as usize, a[2].clone());
    Ok(Value::list(out))
}

fn remove(_: &mut Eval, a: &[Value]) -> Out {
    let l = list_arg(&a[0])?;
    let pos = int(&a[1])?;
    if pos == 0 {
        return Err(Fail::Msg("position must be a non-zero number".into()));
    }
    let len = l.len() as i64;
    let idx = if pos > 0 { pos - 1 } else { len + pos };
    if idx < 0 || idx >= len {
        return Err(Fail::Msg(format!(
            "position {pos} is out of the list's bounds"
        )));
    }
    let mut out = l.to_vec();
    out.remove(idx as usize);
    Ok(Value::list(out))
}

fn sort(ev: &mut Eval, a: &[Value]) -> Out {
    let l = list_arg(&a[0])?;
    let f: Arc<Function> = match &a[1] {
        Value::Function(f) => f.clone(),
        _ => return Err(Fail::Illegal),
    };
    let mut items = l.to_vec();
    let mut failure = None;
    let mut bad = false;
    items.sort_by(|x, y| {
        if failure.is_some() || bad {
            return Ordering::Equal;
        }
        match ev.call_value(&f, vec![x.clone(), y.clone()]) {
            Ok(Value::Boolean(true)) => Ordering::Less,
            Ok(Value::Boolean(false)) => match ev.call_value(&f, vec![y.clone(), x.clone()]) {
                Ok(Value::Boolean(true)) => Ordering::Greater,
                Ok(_) => Ordering::Equal,
                Err(e) => {
                    failure = Some(e);
                    Ordering::Equal
                }
            },
            Ok(_) => {
                bad = true;
                Ordering::Equal
            }
            Err(e) => {
                failure = Some(e);
                Ordering::Equal
            }
        }
    });
    if let Some(e) = failure {
        return Err(Fail::Fatal(e));
    }
    if bad {
        return Err(Fail::Illegal);
    }
    Ok(Value::list(items))
}

fn opt_str(v: Option<&Value>) -> Result<&str, Fail> {
    match v {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        _ => Err(Fail::Illegal),
    }
}

fn string_join(ev: &mut Eval, a: &[Value]) -> Out {
    let l = list_arg(&a[0])?;
    let delim = opt_str(a.get(1))?;
    let prefix = opt_str(a.get(2))?;
    let suffix = opt_str(a.get(3))?;
    let mut parts = Vec::new();
    for v in l.iter() {
        match v {
            Value::String(s) => parts.push(s.as_ref()),
            Value::Null => {}
            _ => return Err(Fail::Msg("expected a list of strings".into())),
        }
    }
    let s = format!("{prefix}{}{suffix}", parts.join(delim));
    ev.check_string(s.len()).map_err(Fail::Fatal)?;
    Ok(Value::string(s))
}
