//! FEEL numbers: decimals as feel-scala has them (`scala.math.BigDecimal` with
//! `MathContext.DECIMAL128`: results of `+ - * /` rounded to 34 significant digits, HALF_EVEN).
//!
//! Whole numbers that fit an `i64` take a fast path (no allocation); everything else is a
//! `bigdecimal::BigDecimal` behind an `Arc`, so cloning a value never copies digits.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use bigdecimal::{BigDecimal, RoundingMode};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// Significant digits of `MathContext.DECIMAL128`.
pub const PRECISION: u64 = 34;

/// A FEEL number (immutable, cheap to clone).
#[derive(Clone)]
pub struct Number(Repr);

#[derive(Clone)]
enum Repr {
    /// A whole number with scale 0.
    Int(i64),
    /// Any other decimal (may be whole with a positive scale, e.g. `2.0`).
    Dec(Arc<BigDecimal>),
}

/// Rounding modes of `decimal(n, scale, mode)` and the rounding built-ins (java's `RoundingMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Away from zero.
    Up,
    /// Towards zero.
    Down,
    /// Towards positive infinity.
    Ceiling,
    /// Towards negative infinity.
    Floor,
    /// Nearest, ties away from zero.
    HalfUp,
    /// Nearest, ties towards zero.
    HalfDown,
    /// Nearest, ties to the even neighbour.
    HalfEven,
}

impl Rounding {
    fn mode(self) -> RoundingMode {
        match self {
            Rounding::Up => RoundingMode::Up,
            Rounding::Down => RoundingMode::Down,
            Rounding::Ceiling => RoundingMode::Ceiling,
            Rounding::Floor => RoundingMode::Floor,
            Rounding::HalfUp => RoundingMode::HalfUp,
            Rounding::HalfDown => RoundingMode::HalfDown,
            Rounding::HalfEven => RoundingMode::HalfEven,
        }
    }

    /// Parses java's names (`"HALF_EVEN"`, ...), case-sensitive as `RoundingMode.valueOf`.
    pub fn from_java_name(name: &str) -> Option<Rounding> {
        Some(match name.to_ascii_uppercase().as_str() {
            "UP" => Rounding::Up,
            "DOWN" => Rounding::Down,
            "CEILING" => Rounding::Ceiling,
            "FLOOR" => Rounding::Floor,
            "HALF_UP" => Rounding::HalfUp,
            "HALF_DOWN" => Rounding::HalfDown,
            "HALF_EVEN" => Rounding::HalfEven,
            _ => return None,
        })
    }
}

fn round_to_precision(d: BigDecimal) -> BigDecimal {
    let digits = d.digits();
    if digits <= PRECISION {
        return d;
    }
    let (_, scale) = d.as_bigint_and_exponent();
    let rounded = d.with_scale_round(scale - (digits - PRECISION) as i64, RoundingMode::HalfEven);
    if rounded.digits() > PRECISION {
        // a carry (9.99.. -> 10.0..) added a digit; the extra digit is a zero
        let (_, scale) = rounded.as_bigint_and_exponent();
        rounded.with_scale_round(scale - 1, RoundingMode::HalfEven)
    } else {
        rounded
    }
}

fn ten_pow(n: u64) -> BigInt {
    num_traits::pow(BigInt::from(10u8), n as usize)
}

impl Number {
    /// Zero.
    pub const ZERO: Number = Number(Repr::Int(0));

    fn dec(d: BigDecimal) -> Number {
        let (int, scale) = d.as_bigint_and_exponent();
        if scale == 0
            && let Some(i) = int.to_i64()
        {
            return Number(Repr::Int(i));
        }
        Number(Repr::Dec(Arc::new(d)))
    }

    fn big(&self) -> std::borrow::Cow<'_, BigDecimal> {
        match &self.0 {
            Repr::Int(i) => std::borrow::Cow::Owned(BigDecimal::from(*i)),
            Repr::Dec(d) => std::borrow::Cow::Borrowed(d),
        }
    }

    /// The value as a `BigDecimal`.
    pub fn to_big_decimal(&self) -> BigDecimal {
        self.big().into_owned()
    }

    /// Wraps a `BigDecimal` (rounded to 34 digits, as feel-scala's `BigDecimal(...)` would).
    pub fn from_big_decimal(d: BigDecimal) -> Number {
        Number::dec(round_to_precision(d))
    }

    /// The exact decimal of a double as java's `BigDecimal.valueOf(double)` gives it (the
    /// shortest decimal that reads back as the same double). `None` for NaN and infinities.
    pub fn from_f64(f: f64) -> Option<Number> {
        if !f.is_finite() {
            return None;
        }
        if f == f.trunc() && f.abs() < 9.0e15 {
            return Some(Number(Repr::Int(f as i64)));
        }
        // Rust prints the shortest round-trip decimal, like java's Double.toString.
        let text = format!("{f:?}");
        Number::parse(&text)
    }

    /// Parses a decimal literal (`12`, `-3.5`, `.5`, `1e3`); `None` if it is not one.
    pub fn parse(text: &str) -> Option<Number> {
        let t = text.trim_start_matches('+');
        if t.is_empty() {
            return None;
        }
        if t.len() <= 18
            && t.bytes()
                .enumerate()
                .all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-' && t.len() > 1))
        {
            return t.parse::<i64>().ok().map(|i| Number(Repr::Int(i)));
        }
        if !t
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            return None;
        }
        BigDecimal::from_str(t).ok().map(Number::from_big_decimal)
    }

    /// The number as an `i64` if it is whole and fits.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(i) => Some(*i),
            Repr::Dec(d) => {
                if d.is_integer() {
                    d.with_scale(0).to_i64()
                } else {
                    None
                }
            }
        }
    }

    /// java's `longValue()`: truncates the fraction, wraps beyond 64 bits.
    pub fn to_i64_wrapping(&self) -> i64 {
        match &self.0 {
            Repr::Int(i) => *i,
            Repr::Dec(d) => {
                let (int, _) = d
                    .with_scale_round(0, RoundingMode::Down)
                    .into_bigint_and_exponent();
                let bytes = int.to_signed_bytes_le();
                let mut buf = [if int.is_negative() { 0xffu8 } else { 0 }; 8];
                for (i, b) in bytes.iter().take(8).enumerate() {
                    buf[i] = *b;
                }
                i64::from_le_bytes(buf)
            }
        }
    }

    /// The nearest double.
    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            Repr::Int(i) => *i as f64,
            Repr::Dec(d) => d.to_string().parse::<f64>().unwrap_or(f64::NAN),
        }
    }

    /// True if the value has no fractional part (`2.0` is whole).
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Int(_) => true,
            Repr::Dec(d) => d.is_integer(),
        }
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        match &self.0 {
            Repr::Int(i) => *i == 0,
            Repr::Dec(d) => d.is_zero(),
        }
    }

    /// The sign: -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        match &self.0 {
            Repr::Int(i) => i.signum() as i32,
            Repr::Dec(d) => {
                if d.is_zero() {
                    0
                } else if d.is_negative() {
                    -1
                } else {
                    1
                }
            }
        }
    }

    /// `self + other`, rounded to 34 digits.
    pub fn add(&self, other: &Number) -> Number {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && let Some(r) = a.checked_add(*b)
        {
            return Number(Repr::Int(r));
        }
        Number::from_big_decimal(self.big().as_ref() + other.big().as_ref())
    }

    /// `self - other`, rounded to 34 digits.
    pub fn sub(&self, other: &Number) -> Number {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && let Some(r) = a.checked_sub(*b)
        {
            return Number(Repr::Int(r));
        }
        Number::from_big_decimal(self.big().as_ref() - other.big().as_ref())
    }

    /// `self * other`, rounded to 34 digits.
    pub fn mul(&self, other: &Number) -> Number {
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && let Some(r) = a.checked_mul(*b)
        {
            return Number(Repr::Int(r));
        }
        Number::from_big_decimal(self.big().as_ref() * other.big().as_ref())
    }

    /// `self / other` as java's `divide(divisor, DECIMAL128)`: the exact quotient when it has at
    /// most 34 digits (with the scale closest to the preferred `scale(a) - scale(b)`), else
    /// rounded HALF_EVEN. `None` for division by zero.
    pub fn div(&self, other: &Number) -> Option<Number> {
        if other.is_zero() {
            return None;
        }
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && *b != 0
            && a % b == 0
            && let Some(q) = a.checked_div(*b)
        {
            return Some(Number(Repr::Int(q)));
        }
        let (ua, sa) = self.big().as_bigint_and_exponent();
        let (ub, sb) = other.big().as_bigint_and_exponent();
        let preferred = sa - sb;
        if ua.is_zero() {
            return Some(Number::dec(BigDecimal::new(
                BigInt::zero(),
                preferred.max(0),
            )));
        }
        // scale the dividend so that the integer quotient has at least 36 digits
        let da = BigDecimal::from(ua.clone()).digits() as i64;
        let db = BigDecimal::from(ub.clone()).digits() as i64;
        let shift = (PRECISION as i64 + 2 - (da - db)).max(0) as u64;
        let num = &ua * ten_pow(shift);
        let (q, r) = (num.clone() / &ub, num % &ub);
        let scale = preferred + shift as i64;
        let mut result = if r.is_zero() {
            BigDecimal::new(q, scale)
        } else {
            // inexact: append a sticky digit so that HALF_EVEN sees "more than half"
            let sticky = &q * BigInt::from(10u8)
                + if q.is_negative() || (q.is_zero() && (ua.is_negative() != ub.is_negative())) {
                    BigInt::from(-1)
                } else {
                    BigInt::from(1)
                };
            let d = BigDecimal::new(sticky, scale + 1);
            return Some(Number::from_big_decimal(d));
        };
        // exact: strip trailing zeros down to the preferred scale
        result = round_to_precision(result);
        let (mut int, mut sc) = result.into_bigint_and_exponent();
        let ten = BigInt::from(10u8);
        while sc > preferred && !int.is_zero() && (&int % &ten).is_zero() {
            int /= &ten;
            sc -= 1;
        }
        Some(Number::dec(BigDecimal::new(int, sc)))
    }

    /// Negation.
    pub fn neg(&self) -> Number {
        match &self.0 {
            Repr::Int(i) if *i != i64::MIN => Number(Repr::Int(-i)),
            _ => Number::dec(-self.big().into_owned()),
        }
    }

    /// Absolute value.
    pub fn abs(&self) -> Number {
        if self.signum() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// `self ** exponent`: exact `BigDecimal.pow` (rounded to 34 digits) for whole exponents,
    /// `Math.pow` on doubles otherwise. `None` if the result is not a finite number.
    pub fn pow(&self, exponent: &Number) -> Option<Number> {
        match exponent.to_i64() {
            Some(e) if (-999_999_999..=999_999_999).contains(&e) => {
                if e >= 0 {
                    if let Repr::Int(b) = &self.0
                        && let Ok(e32) = u32::try_from(e)
                        && let Some(r) = b.checked_pow(e32)
                    {
                        return Some(Number(Repr::Int(r)));
                    }
                    let base = self.big().into_owned();
                    Some(Number::from_big_decimal(pow_rounded(&base, e as u64)))
                } else {
                    let p = pow_rounded(&self.big(), (-e) as u64);
                    Number::from_big_decimal(p).div_one_by()
                }
            }
            _ => Number::from_f64(self.to_f64().powf(exponent.to_f64())),
        }
    }

    fn div_one_by(&self) -> Option<Number> {
        Number::from(1).div(self)
    }

    /// Compares by value (`2.0 = 2`).
    pub fn compare(&self, other: &Number) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Int(a), Repr::Int(b)) => a.cmp(b),
            _ => self.big().as_ref().cmp(other.big().as_ref()),
        }
    }

    /// The scale (digits after the point; negative for `1E+3`).
    pub fn scale(&self) -> i64 {
        match &self.0 {
            Repr::Int(_) => 0,
            Repr::Dec(d) => d.as_bigint_and_exponent().1,
        }
    }

    /// Sets the scale, rounding with `mode` (java's `setScale`).
    pub fn with_scale(&self, scale: i64, mode: Rounding) -> Number {
        if scale == 0
            && let Repr::Int(_) = self.0
        {
            return self.clone();
        }
        Number::dec(self.big().with_scale_round(scale, mode.mode()))
    }

    /// Rounds to `scale` decimal places, then drops the scale back to 0 if the result is whole
    /// and `scale` is 0.
    pub fn round(&self, scale: i64, mode: Rounding) -> Number {
        self.with_scale(scale, mode)
    }

    /// The remainder of truncating division, as java's `BigDecimal.remainder`.
    pub fn rem(&self, other: &Number) -> Option<Number> {
        if other.is_zero() {
            return None;
        }
        if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &other.0)
            && let Some(r) = a.checked_rem(*b)
        {
            return Some(Number(Repr::Int(r)));
        }
        let a = self.big();
        let b = other.big();
        Some(Number::dec(a.as_ref() % b.as_ref()))
    }

    /// Removes trailing zeros of the fraction (`2.50` → `2.5`, `2.0` → `2`).
    pub fn normalized(&self) -> Number {
        match &self.0 {
            Repr::Int(_) => self.clone(),
            Repr::Dec(d) => {
                let n = d.normalized();
                let (int, scale) = n.as_bigint_and_exponent();
                if scale < 0 {
                    Number::dec(BigDecimal::new(int, scale).with_scale(0))
                } else {
                    Number::dec(n)
                }
            }
        }
    }

    /// java's `BigDecimal.toPlainString()`.
    pub fn to_plain_string(&self) -> String {
        match &self.0 {
            Repr::Int(i) => i.to_string(),
            Repr::Dec(d) => d.to_plain_string(),
        }
    }
}

fn pow_rounded(base: &BigDecimal, exp: u64) -> BigDecimal {
    // square-and-multiply, rounding each step to a few guard digits beyond 34
    let mut result = BigDecimal::from(1);
    let mut b = base.clone();
    let mut e = exp;
    let guard = |d: BigDecimal| {
        if d.digits() > PRECISION + 10 {
            let (_, s) = d.as_bigint_and_exponent();
            let drop = d.digits() - (PRECISION + 10);
            d.with_scale_round(s - drop as i64, RoundingMode::HalfEven)
        } else {
            d
        }
    };
    while e > 0 {
        if e & 1 == 1 {
            result = guard(&result * &b);
        }
        e >>= 1;
        if e > 0 {
            b = guard(&b * &b);
        }
    }
    result
}

impl From<i64> for Number {
    fn from(i: i64) -> Number {
        Number(Repr::Int(i))
    }
}

impl From<i32> for Number {
    fn from(i: i32) -> Number {
        Number(Repr::Int(i as i64))
    }
}

impl From<usize> for Number {
    fn from(i: usize) -> Number {
        match i64::try_from(i) {
            Ok(i) => Number(Repr::Int(i)),
            Err(_) => Number::dec(BigDecimal::from(i as u128)),
        }
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.compare(other) == Ordering::Equal
    }
}

impl Eq for Number {}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        self.compare(other)
    }
}

impl fmt::Display for Number {
    /// java's `BigDecimal.toString()` (scientific notation for very small or scaled-up values).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Int(i) => write!(f, "{i}"),
            Repr::Dec(d) => {
                let (int, scale) = d.as_bigint_and_exponent();
                let digits = int.abs().to_string();
                let adjusted = -scale + (digits.len() as i64 - 1);
                let sign = if int.is_negative() { "-" } else { "" };
                if scale >= 0 && adjusted >= -6 {
                    f.write_str(&d.to_plain_string())
                } else {
                    let (first, rest) = digits.split_at(1);
                    let exp = if adjusted >= 0 {
                        format!("E+{adjusted}")
                    } else {
                        format!("E{adjusted}")
                    };
                    if rest.is_empty() {
                        write!(f, "{sign}{first}{exp}")
                    } else {
                        write!(f, "{sign}{first}.{rest}{exp}")
                    }
                }
            }
        }
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::hash::Hash for Number {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // equal values (2 and 2.0) must hash alike
        self.normalized().to_plain_string().hash(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Number {
        Number::parse(s).unwrap()
    }

    #[test]
    fn division_rounds_to_34_digits_half_even() {
        assert_eq!(
            n("1").div(&n("3")).unwrap().to_string(),
            "0.3333333333333333333333333333333333"
        );
        assert_eq!(
            n("2").div(&n("3")).unwrap().to_string(),
            "0.6666666666666666666666666666666667"
        );
        assert_eq!(
            n("-2").div(&n("3")).unwrap().to_string(),
            "-0.6666666666666666666666666666666667"
        );
        assert_eq!(n("10").div(&n("4")).unwrap().to_string(), "2.5");
        assert_eq!(n("8").div(&n("4")).unwrap().to_string(), "2");
        assert_eq!(n("1.0").div(&n("4")).unwrap().to_string(), "0.25");
        assert_eq!(n("6.0").div(&n("2")).unwrap().to_string(), "3.0");
        assert!(n("1").div(&n("0")).is_none());
    }

    #[test]
    fn arithmetic_keeps_scale_and_rounds() {
        assert_eq!(n("1.10").add(&n("1")).to_string(), "2.10");
        assert_eq!(n("0.1").add(&n("0.2")).to_string(), "0.3");
        assert_eq!(
            n("9223372036854775807").add(&n("1")).to_string(),
            "9223372036854775808"
        );
        assert_eq!(
            n("2").pow(&n("3.1")).unwrap().to_string(),
            "8.574187700290345"
        );
        assert_eq!(n("2").pow(&n("-1")).unwrap().to_string(), "0.5");
        assert_eq!(Number::from_f64(0.1).unwrap().to_string(), "0.1");
    }
}
