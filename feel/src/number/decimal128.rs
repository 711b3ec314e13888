//! Arithmetic as java's `BigDecimal` does it under `MathContext.DECIMAL128` where baton needs
//! its exact steps: division of small operands, `pow` (repeated squaring at a working precision
//! of 34 + digits of the exponent + 1, scales limited to java's `int`), and the errors java
//! throws.

use std::fmt;

use bigdecimal::{BigDecimal, One, RoundingMode};
use num_bigint::BigInt;

use super::{Number, PRECISION, Repr, SMALL_MAX_SCALE, digits_u128, round_to_precision};

/// An `ArithmeticException` of java's `BigDecimal`, which ends a feel-scala evaluation
/// (`failed to evaluate expression '…' : java.lang.ArithmeticException: Overflow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithmeticError {
    /// The exponent of the result is beyond java's `int` scale (a huge number).
    Overflow,
    /// The exponent of the result is beyond java's `int` scale (a tiny number).
    Underflow,
    /// `pow` of an exponent beyond ±999,999,999.
    InvalidOperation,
    /// `pow` of zero to a negative exponent.
    DivisionByZero,
}

impl fmt::Display for ArithmeticError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArithmeticError::Overflow => "Overflow",
            ArithmeticError::Underflow => "Underflow",
            ArithmeticError::InvalidOperation => "Invalid operation",
            ArithmeticError::DivisionByZero => "Division by zero",
        })
    }
}

impl std::error::Error for ArithmeticError {}

/// How far apart two scales (or a scale and zero) may be before an operation that would align
/// them exactly (building a number of that many digits) takes a shortcut instead.
pub(super) const MAX_SCALE_GAP: i64 = 10_000;

/// Whether a decimal is whole, without building `10^scale` for a tiny one.
pub(super) fn is_integer(d: &BigDecimal) -> bool {
    let (int, scale) = d.as_bigint_and_exponent();
    if scale <= 0 || int.sign() == num_bigint::Sign::NoSign {
        return true;
    }
    // a fraction with more decimals than digits is below one
    scale < d.digits() as i64 && d.is_integer()
}

/// Whether a decimal is whole and has at most 19 digits before the point.
pub(super) fn is_small_integer(d: &BigDecimal) -> bool {
    let (_, scale) = d.as_bigint_and_exponent();
    d.digits() as i64 - scale <= 19 && is_integer(d)
}

/// `setScale(scale, mode)`, bounded: a value far below the new last digit rounds as a sticky
/// digit would; a value far above it keeps its own exponent (its digits would only grow by
/// zeros).
pub(super) fn with_scale(d: &BigDecimal, scale: i64, mode: RoundingMode) -> BigDecimal {
    let (int, own) = d.as_bigint_and_exponent();
    if int.sign() == num_bigint::Sign::NoSign {
        return BigDecimal::new(int, scale.clamp(own - MAX_SCALE_GAP, own + MAX_SCALE_GAP));
    }
    if scale - own > MAX_SCALE_GAP {
        return d.clone();
    }
    let digits = d.digits() as i64;
    if own - scale > MAX_SCALE_GAP && digits - own < -scale - 1 {
        // |d| is below a tenth of the new unit: it rounds as one hundredth of it would
        let sticky = BigDecimal::new(BigInt::from(signum(&int)), scale + 2);
        return sticky.with_scale_round(scale, mode);
    }
    d.with_scale_round(scale, mode)
}

/// `a + b` exactly, except that an operand entirely below the last digit the sum can keep is
/// replaced by a sticky digit just below that place (java's `preAlign`): the sum rounds to 34
/// digits the same, without aligning numbers of very different magnitudes. A zero operand gives
/// the other, rounded, at a scale toward the larger of the two (java's `add` with a context).
pub(super) fn add(a: &BigDecimal, b: &BigDecimal) -> BigDecimal {
    let (ia, sa) = a.as_bigint_and_exponent();
    let (ib, sb) = b.as_bigint_and_exponent();
    let zero = num_bigint::Sign::NoSign;
    if ia.sign() == zero || ib.sign() == zero {
        let preferred = sa.max(sb);
        if ia.sign() == zero && ib.sign() == zero {
            return BigDecimal::new(BigInt::from(0), preferred);
        }
        let result = round_to_precision(if ia.sign() == zero {
            b.clone()
        } else {
            a.clone()
        });
        let (int, scale) = result.as_bigint_and_exponent();
        if scale == preferred {
            return result;
        }
        if scale > preferred {
            // strip trailing zeros toward the preferred scale
            let (mut int, mut scale) = (int, scale);
            let ten = BigInt::from(10u8);
            while scale > preferred && (&int % &ten).sign() == zero {
                int /= &ten;
                scale -= 1;
            }
            return BigDecimal::new(int, scale);
        }
        let room = PRECISION as i64 - result.digits() as i64;
        let target = preferred.min(scale + room);
        return result.with_scale(target);
    }
    if sa == sb {
        return a + b;
    }
    let (big, small) = if sa < sb { (a, b) } else { (b, a) };
    let (_, big_scale) = big.as_bigint_and_exponent();
    let (small_int, small_scale) = small.as_bigint_and_exponent();
    let est_ulp_scale = big_scale - big.digits() as i64 + PRECISION as i64;
    let small_high = small_scale - small.digits() as i64 + 1;
    if small_high > big_scale + 2 && small_high > est_ulp_scale + 2 {
        let sticky = BigDecimal::new(
            BigInt::from(signum(&small_int)),
            big_scale.max(est_ulp_scale) + 3,
        );
        return big + &sticky;
    }
    a + b
}

fn signum(int: &BigInt) -> i8 {
    match int.sign() {
        num_bigint::Sign::Minus => -1,
        num_bigint::Sign::NoSign => 0,
        num_bigint::Sign::Plus => 1,
    }
}

/// java's `checkScale`: a scale beyond `int` (a non-zero value) throws.
fn check_scale(d: &BigDecimal) -> Result<(), ArithmeticError> {
    let (int, scale) = d.as_bigint_and_exponent();
    if int.sign() == num_bigint::Sign::NoSign || i32::try_from(scale).is_ok() {
        return Ok(());
    }
    Err(if scale > 0 {
        ArithmeticError::Underflow
    } else {
        ArithmeticError::Overflow
    })
}

/// `x * y` rounded to `precision` digits, the scale checked.
fn multiply(x: &BigDecimal, y: &BigDecimal, precision: u64) -> Result<BigDecimal, ArithmeticError> {
    let product = x * y;
    check_scale(&product)?;
    let rounded = round_to(product, precision);
    check_scale(&rounded)?;
    Ok(rounded)
}

/// Rounds HALF_EVEN to `precision` significant digits.
fn round_to(d: BigDecimal, precision: u64) -> BigDecimal {
    let digits = d.digits();
    if digits <= precision {
        return d;
    }
    let (_, scale) = d.as_bigint_and_exponent();
    let rounded = d.with_scale_round(scale - (digits - precision) as i64, RoundingMode::HalfEven);
    if rounded.digits() > precision {
        let (_, scale) = rounded.as_bigint_and_exponent();
        rounded.with_scale_round(scale - 1, RoundingMode::HalfEven)
    } else {
        rounded
    }
}

/// java's `BigDecimal.pow(n, DECIMAL128)`.
pub(super) fn pow(base: &BigDecimal, n: i32) -> Result<BigDecimal, ArithmeticError> {
    if !(-999_999_999..=999_999_999).contains(&n) {
        return Err(ArithmeticError::InvalidOperation);
    }
    if n == 0 {
        return Ok(BigDecimal::one());
    }
    let mut mag = n.unsigned_abs();
    let elength = mag.checked_ilog10().map_or(1, |l| l + 1) as u64;
    let work = PRECISION + elength + 1;
    let mut acc = BigDecimal::one();
    let mut seen = false;
    // the exponent's 31 bits from the top: multiply for a one, square after the first one
    for i in 1..=31 {
        mag <<= 1;
        if mag & 0x8000_0000 != 0 {
            seen = true;
            acc = multiply(&acc, base, work)?;
        }
        if i < 31 && seen {
            acc = multiply(&acc, &acc, work)?;
        }
    }
    if n < 0 {
        if acc.sign() == num_bigint::Sign::NoSign {
            return Err(ArithmeticError::DivisionByZero);
        }
        acc = divide(&BigDecimal::one(), &acc, work);
        check_scale(&acc)?;
    }
    let result = round_to_precision(acc);
    check_scale(&result)?;
    Ok(result)
}

/// `a / b` as java's `divide(b, new MathContext(precision, HALF_EVEN))`: the exact quotient when
/// it has at most `precision` digits (with the scale closest to the preferred `scale(a) -
/// scale(b)`), else rounded. `b` is not zero.
pub(super) fn divide(a: &BigDecimal, b: &BigDecimal, precision: u64) -> BigDecimal {
    let (ua, sa) = a.as_bigint_and_exponent();
    let (ub, sb) = b.as_bigint_and_exponent();
    let preferred = sa - sb;
    if ua.sign() == num_bigint::Sign::NoSign {
        return BigDecimal::new(BigInt::from(0), preferred.max(0));
    }
    // scale the dividend so that the integer quotient has at least precision + 2 digits
    let da = BigDecimal::from(ua.clone()).digits() as i64;
    let db = BigDecimal::from(ub.clone()).digits() as i64;
    let shift = (precision as i64 + 2 - (da - db)).max(0) as u64;
    let num = &ua * super::ten_pow(shift);
    let (q, r) = (&num / &ub, &num % &ub);
    let scale = preferred + shift as i64;
    if r.sign() != num_bigint::Sign::NoSign {
        // inexact: append a sticky digit so that HALF_EVEN sees "more than half"
        let sticky = if q.sign() == num_bigint::Sign::Minus {
            BigInt::from(-1)
        } else {
            BigInt::from(1)
        };
        return round_to(
            BigDecimal::new(&q * BigInt::from(10u8) + sticky, scale + 1),
            precision,
        );
    }
    // exact: strip trailing zeros down to the preferred scale
    let result = round_to(BigDecimal::new(q, scale), precision);
    let (mut int, mut sc) = result.into_bigint_and_exponent();
    let ten = BigInt::from(10u8);
    while sc > preferred
        && int.sign() != num_bigint::Sign::NoSign
        && (&int % &ten).sign() == num_bigint::Sign::NoSign
    {
        int /= &ten;
        sc -= 1;
    }
    BigDecimal::new(int, sc)
}

/// `a / b` for small operands with `u128` long division: 35 significant digits, then HALF_EVEN
/// to 34 (the remainder is the sticky bit); an exact quotient keeps the scale closest to the
/// preferred `sa - sb`, as java's `divide(divisor, DECIMAL128)`. `b` is not zero.
pub(super) fn div_small(ma: i64, sa: u8, mb: i64, sb: u8) -> Number {
    let negative = (ma < 0) != (mb < 0);
    let d = mb.unsigned_abs() as u128;
    let mut q = ma.unsigned_abs() as u128 / d;
    let mut r = ma.unsigned_abs() as u128 % d;
    let preferred = sa as i64 - sb as i64;
    let mut k: i64 = 0;
    let target = PRECISION as u32 + 1;
    while r != 0 && digits_u128(q) < target {
        let step = (target - digits_u128(q)).min(19);
        let p = 10u128.pow(step);
        let t = r * p;
        q = q * p + t / d;
        r = t % d;
        k += step as i64;
    }
    let mut scale = k + preferred;
    if r == 0 {
        // exact: no more trailing zeros than the preferred scale needs
        while scale > preferred && q != 0 && q.is_multiple_of(10) {
            q /= 10;
            scale -= 1;
        }
    }
    if digits_u128(q) > PRECISION as u32 {
        // drop the 35th digit, rounding HALF_EVEN (the remainder decides ties)
        let digit = q % 10;
        q /= 10;
        scale -= 1;
        if digit > 5 || (digit == 5 && (r != 0 || q % 2 == 1)) {
            q += 1;
            if digits_u128(q) > PRECISION as u32 {
                q /= 10;
                scale -= 1;
            }
        }
    } else if r == 0 {
        // exact: the scale closest to the preferred one
        while scale < preferred && digits_u128(q) < PRECISION as u32 {
            q *= 10;
            scale += 1;
        }
        if q == 0 {
            scale = preferred.max(0);
        }
    }
    if (0..=SMALL_MAX_SCALE as i64).contains(&scale)
        && let Ok(m) = i64::try_from(q)
    {
        return Number(Repr::Small {
            m: if negative { -m } else { m },
            s: scale as u8,
        });
    }
    let int = BigInt::from(q);
    Number::dec(BigDecimal::new(if negative { -int } else { int }, scale))
}
