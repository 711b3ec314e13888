//! FEEL numbers: decimals as feel-scala has them (`scala.math.BigDecimal` with
//! `MathContext.DECIMAL128`: results of `+ - * /` rounded to 34 significant digits, HALF_EVEN).
//!
//! Whole numbers that fit an `i64` take a fast path (no allocation); everything else is a
//! `bigdecimal::BigDecimal` behind an `Arc`, so cloning a value never copies digits.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

mod decimal128;

pub use decimal128::ArithmeticError;

use bigdecimal::{BigDecimal, RoundingMode};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// Significant digits of `MathContext.DECIMAL128`.
pub const PRECISION: u64 = 34;

/// A FEEL number (immutable, cheap to clone).
#[derive(Clone)]
pub struct Number(Repr);

/// Largest scale of the small representation (so that aligned values fit an `i128`).
const SMALL_MAX_SCALE: u8 = 18;

#[derive(Clone)]
enum Repr {
    /// `m / 10^s`: whole numbers and everyday decimals (prices, rates) without allocation.
    Small { m: i64, s: u8 },
    /// Any other decimal.
    Dec(Arc<BigDecimal>),
}

const POW10: [i64; 19] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
];

/// Brings two small values to the same scale (as `i128`).
fn align(m1: i64, s1: u8, m2: i64, s2: u8) -> (i128, i128, u8) {
    let s = s1.max(s2);
    let a = m1 as i128 * POW10[(s - s1) as usize] as i128;
    let b = m2 as i128 * POW10[(s - s2) as usize] as i128;
    (a, b, s)
}

fn small(m: i128, s: u8) -> Option<Number> {
    let m = i64::try_from(m).ok()?;
    Some(Number(Repr::Small { m, s }))
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
    pub const ZERO: Number = Number(Repr::Small { m: 0, s: 0 });

    fn dec(d: BigDecimal) -> Number {
        let (int, scale) = d.as_bigint_and_exponent();
        if (0..=SMALL_MAX_SCALE as i64).contains(&scale)
            && let Some(m) = int.to_i64()
        {
            return Number(Repr::Small { m, s: scale as u8 });
        }
        Number(Repr::Dec(Arc::new(d)))
    }

    fn big(&self) -> std::borrow::Cow<'_, BigDecimal> {
        match &self.0 {
            Repr::Small { m, s } => {
                std::borrow::Cow::Owned(BigDecimal::new(BigInt::from(*m), *s as i64))
            }
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
            return Some(Number(Repr::Small { m: f as i64, s: 0 }));
        }
        // Fast path: the fewest decimals `s` for which `m / 10^s` reads back as `f`. Below 2^50,
        // `round(f * 10^s)` is the only candidate at that scale (the spacing of doubles there is
        // under a quarter of 10^-s) and the division is exact-then-rounded, so this is the
        // shortest round-trip decimal that Rust (and java) print.
        for s in 1..=15u8 {
            let p = POW10[s as usize] as f64;
            let x = f * p;
            if x.abs() >= (1u64 << 50) as f64 {
                break;
            }
            let m = x.round();
            if m / p == f {
                return Some(Number(Repr::Small { m: m as i64, s }));
            }
        }
        // Rust prints the shortest round-trip decimal, like java's Double.toString.
        let text = format!("{f:?}");
        Number::parse(&text)
    }

    /// Parses a decimal literal (`12`, `-3.5`, `.5`, `1e3`); `None` if it is not one.
    pub fn parse(text: &str) -> Option<Number> {
        let t = text.strip_prefix('+').unwrap_or(text);
        let (neg, digits) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t),
        };
        if digits.is_empty() {
            return None;
        }
        // fast path: at most 18 digits and one point
        let mut m: i64 = 0;
        let mut n = 0;
        let mut scale: Option<u8> = None;
        let mut simple = true;
        for b in digits.bytes() {
            match b {
                b'0'..=b'9' => {
                    n += 1;
                    if n > 18 {
                        simple = false;
                        break;
                    }
                    m = m * 10 + (b - b'0') as i64;
                    if let Some(sc) = scale.as_mut() {
                        *sc += 1;
                    }
                }
                b'.' if scale.is_none() => scale = Some(0),
                _ => {
                    simple = false;
                    break;
                }
            }
        }
        if simple && n > 0 {
            return Some(Number(Repr::Small {
                m: if neg { -m } else { m },
                s: scale.unwrap_or(0),
            }));
        }
        if !digits
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            return None;
        }
        let d = BigDecimal::from_str(t).ok()?;
        // java's `new BigDecimal(text)` takes exponents within `int` only
        i32::try_from(d.as_bigint_and_exponent().1).ok()?;
        Some(Number::from_big_decimal(d))
    }

    /// The number as an `i64` if it is whole and fits.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Small { m, s: 0 } => Some(*m),
            Repr::Small { m, s } => {
                let p = POW10[*s as usize];
                (m % p == 0).then(|| m / p)
            }
            Repr::Dec(d) => {
                if !decimal128::is_small_integer(d) {
                    return None;
                }
                d.with_scale(0).to_i64()
            }
        }
    }

    /// java's `longValue()`: truncates the fraction, wraps beyond 64 bits.
    pub fn to_i64_wrapping(&self) -> i64 {
        match &self.0 {
            Repr::Small { m, s } => m / POW10[*s as usize],
            Repr::Dec(d) => {
                let (int, scale) = d.as_bigint_and_exponent();
                // 10^64 is a multiple of 2^64; a number below one truncates to zero
                if scale < -64 || scale > d.digits() as i64 {
                    return 0;
                }
                let (int, _) = BigDecimal::new(int, scale)
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

    /// The nearest double (correctly rounded).
    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            Repr::Small { m, s: 0 } => *m as f64,
            // both exact as doubles, so the quotient is correctly rounded
            Repr::Small { m, s } if m.unsigned_abs() < 1 << 53 => {
                *m as f64 / POW10[*s as usize] as f64
            }
            Repr::Small { m, s } => format!("{m}e-{s}").parse::<f64>().unwrap_or(f64::NAN),
            Repr::Dec(d) => d.to_string().parse::<f64>().unwrap_or(f64::NAN),
        }
    }

    /// True if the value has no fractional part (`2.0` is whole).
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Small { m, s } => m % POW10[*s as usize] == 0,
            Repr::Dec(d) => decimal128::is_integer(d),
        }
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        match &self.0 {
            Repr::Small { m, .. } => *m == 0,
            Repr::Dec(d) => d.is_zero(),
        }
    }

    /// The sign: -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        match &self.0 {
            Repr::Small { m, .. } => m.signum() as i32,
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
        if let (Repr::Small { m: a, s: sa }, Repr::Small { m: b, s: sb }) = (&self.0, &other.0) {
            let (x, y, s) = align(*a, *sa, *b, *sb);
            if let Some(r) = small(x + y, s) {
                return r;
            }
        }
        Number::from_big_decimal(decimal128::add(&self.big(), &other.big()))
    }

    /// `self - other`, rounded to 34 digits.
    pub fn sub(&self, other: &Number) -> Number {
        if let (Repr::Small { m: a, s: sa }, Repr::Small { m: b, s: sb }) = (&self.0, &other.0) {
            let (x, y, s) = align(*a, *sa, *b, *sb);
            if let Some(r) = small(x - y, s) {
                return r;
            }
        }
        Number::from_big_decimal(decimal128::add(&self.big(), &-other.big().into_owned()))
    }

    /// `self * other`, rounded to 34 digits.
    pub fn mul(&self, other: &Number) -> Number {
        if let (Repr::Small { m: a, s: sa }, Repr::Small { m: b, s: sb }) = (&self.0, &other.0)
            && sa + sb <= SMALL_MAX_SCALE
            && let Some(r) = small(*a as i128 * *b as i128, sa + sb)
        {
            return r;
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
        if let (Repr::Small { m: a, s: sa }, Repr::Small { m: b, s: sb }) = (&self.0, &other.0) {
            return Some(decimal128::div_small(*a, *sa, *b, *sb));
        }
        self.div_big(other)
    }

    /// Division through `BigInt` (any size).
    fn div_big(&self, other: &Number) -> Option<Number> {
        if other.is_zero() {
            return None;
        }
        Some(Number::dec(decimal128::divide(
            &self.big(),
            &other.big(),
            PRECISION,
        )))
    }

    /// Negation.
    pub fn neg(&self) -> Number {
        match &self.0 {
            Repr::Small { m, s } if *m != i64::MIN => Number(Repr::Small { m: -m, s: *s }),
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

    /// `self ** exponent` as feel-scala computes it: for a whole exponent, java's
    /// `BigDecimal.pow(exponent.intValue(), DECIMAL128)`, else `Math.pow` on doubles. `None` if
    /// the result is not a finite number or java throws ([`Number::checked_pow`] says why).
    pub fn pow(&self, exponent: &Number) -> Option<Number> {
        self.checked_pow(exponent).ok().flatten()
    }

    /// [`Number::pow`], with the `ArithmeticException` java throws (which ends a feel-scala
    /// evaluation): `Ok(None)` for a result that is no finite double.
    pub fn checked_pow(&self, exponent: &Number) -> Result<Option<Number>, ArithmeticError> {
        if exponent.is_integer() {
            // scala's `toInt` keeps the low 32 bits of the whole number
            let n = exponent.low_32_bits();
            if n >= 0
                && let Repr::Small { m: b, s: 0 } = &self.0
                && let Some(r) = b.checked_pow(n as u32)
            {
                return Ok(Some(Number(Repr::Small { m: r, s: 0 })));
            }
            return decimal128::pow(&self.big(), n).map(|d| Some(Number::dec(d)));
        }
        Ok(Number::from_f64(self.to_f64().powf(exponent.to_f64())))
    }

    /// The low 32 bits of a whole number, as java's `intValue()`.
    fn low_32_bits(&self) -> i32 {
        match &self.0 {
            Repr::Small { .. } => self.to_i64_wrapping() as i32,
            Repr::Dec(d) => {
                let (int, scale) = d.as_bigint_and_exponent();
                if scale < -64 {
                    // a multiple of 2^64 (10^64 is one): its low bits are zero
                    return 0;
                }
                let int = if scale <= 0 {
                    int * ten_pow((-scale) as u64)
                } else {
                    int / ten_pow(scale as u64)
                };
                let (sign, digits) = int.to_u32_digits();
                let low = digits.first().copied().unwrap_or(0);
                if sign == num_bigint::Sign::Minus {
                    (low as i32).wrapping_neg()
                } else {
                    low as i32
                }
            }
        }
    }

    /// Compares by value (`2.0 = 2`).
    #[inline]
    pub fn compare(&self, other: &Number) -> Ordering {
        if let (Repr::Small { m: a, s: sa }, Repr::Small { m: b, s: sb }) = (&self.0, &other.0)
            && sa == sb
        {
            return a.cmp(b);
        }
        self.compare_slow(other)
    }

    #[inline(never)]
    fn compare_slow(&self, other: &Number) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Small { m: a, s: sa }, Repr::Small { m: b, s: sb }) => {
                let (x, y, _) = align(*a, *sa, *b, *sb);
                x.cmp(&y)
            }
            _ => self.big().as_ref().cmp(other.big().as_ref()),
        }
    }

    /// The scale (digits after the point; negative for `1E+3`).
    pub fn scale(&self) -> i64 {
        match &self.0 {
            Repr::Small { s, .. } => *s as i64,
            Repr::Dec(d) => d.as_bigint_and_exponent().1,
        }
    }

    /// Sets the scale, rounding with `mode` (java's `setScale`).
    pub fn with_scale(&self, scale: i64, mode: Rounding) -> Number {
        if let Repr::Small { m, s } = &self.0 {
            if scale == *s as i64 {
                return self.clone();
            }
            if scale > *s as i64
                && scale <= SMALL_MAX_SCALE as i64
                && let Some(r) = small(
                    *m as i128 * POW10[(scale - *s as i64) as usize] as i128,
                    scale as u8,
                )
            {
                return r;
            }
        }
        Number::dec(decimal128::with_scale(&self.big(), scale, mode.mode()))
    }

    /// Rounds to `scale` decimal places with `mode`.
    pub fn round(&self, scale: i64, mode: Rounding) -> Number {
        self.with_scale(scale, mode)
    }

    /// The remainder of truncating division, as java's `BigDecimal.remainder`.
    pub fn rem(&self, other: &Number) -> Option<Number> {
        if other.is_zero() {
            return None;
        }
        if let (Repr::Small { m: a, s: sa }, Repr::Small { m: b, s: sb }) = (&self.0, &other.0) {
            let (x, y, s) = align(*a, *sa, *b, *sb);
            if let Some(r) = small(x % y, s) {
                return Some(r);
            }
        }
        let a = self.big();
        let b = other.big();
        // aligning scales that far apart would build a number of that many digits
        if (a.as_bigint_and_exponent().1 - b.as_bigint_and_exponent().1).abs()
            > decimal128::MAX_SCALE_GAP
        {
            return None;
        }
        Some(Number::dec(a.as_ref() % b.as_ref()))
    }

    /// Removes trailing zeros of the fraction (`2.50` → `2.5`, `2.0` → `2`).
    pub fn normalized(&self) -> Number {
        match &self.0 {
            Repr::Small { m, s } => {
                let (mut m, mut s) = (*m, *s);
                while s > 0 && m % 10 == 0 {
                    m /= 10;
                    s -= 1;
                }
                Number(Repr::Small { m, s })
            }
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
            Repr::Small { .. } => self.to_string(),
            // beyond that many zeros, the exponent form (java would print them all)
            Repr::Dec(d) if d.as_bigint_and_exponent().1.abs() > decimal128::MAX_SCALE_GAP => {
                self.to_string()
            }
            Repr::Dec(d) => d.to_plain_string(),
        }
    }
}

fn digits_u128(q: u128) -> u32 {
    q.checked_ilog10().map_or(0, |l| l + 1)
}

impl From<i64> for Number {
    fn from(i: i64) -> Number {
        Number(Repr::Small { m: i, s: 0 })
    }
}

impl From<i32> for Number {
    fn from(i: i32) -> Number {
        Number(Repr::Small { m: i as i64, s: 0 })
    }
}

impl From<usize> for Number {
    fn from(i: usize) -> Number {
        match i64::try_from(i) {
            Ok(i) => Number(Repr::Small { m: i, s: 0 }),
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
            Repr::Small { m, s: 0 } => write!(f, "{m}"),
            Repr::Small { m, s } => {
                let digits = m.unsigned_abs().to_string();
                let s = *s as usize;
                let sign = if *m < 0 { "-" } else { "" };
                if digits.len() > s {
                    let (int, frac) = digits.split_at(digits.len() - s);
                    write!(f, "{sign}{int}.{frac}")
                } else {
                    // java switches to E notation below 1E-6
                    let adjusted = digits.len() as i64 - 1 - s as i64;
                    if adjusted < -6 {
                        let (first, rest) = digits.split_at(1);
                        if rest.is_empty() {
                            write!(f, "{sign}{first}E{adjusted}")
                        } else {
                            write!(f, "{sign}{first}.{rest}E{adjusted}")
                        }
                    } else {
                        write!(f, "{sign}0.{}{digits}", "0".repeat(s - digits.len()))
                    }
                }
            }
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
mod tests;
