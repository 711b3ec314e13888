//! Decimal arithmetic against java's `BigDecimal` answers.

use super::*;

fn n(s: &str) -> Number {
    Number::parse(s).unwrap()
}

#[test]
fn doubles_convert_to_their_shortest_decimal_and_back() {
    // the fast paths agree with the printed shortest decimal, digit for digit
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z ^ (z >> 31)
    };
    let mut values = vec![
        0.1,
        0.2,
        0.3,
        250.5,
        1.19,
        -3.75,
        1e-7,
        123456.789,
        0.1 + 0.2,
    ];
    for _ in 0..20_000 {
        let r = next();
        let cents = (r % 10_000_000) as f64 / 100.0;
        let scaled = (r >> 20) as f64 / 10f64.powi((r % 17) as i32);
        values.extend([cents, -cents, scaled, f64::from_bits(r >> 2)]);
    }
    for f in values
        .into_iter()
        .filter(|f| f.is_finite() && *f != f.trunc())
    {
        let fast = Number::from_f64(f).unwrap();
        let printed = Number::parse(&format!("{f:?}")).unwrap();
        assert!(
            fast == printed && fast.scale() == printed.scale(),
            "{f:?}: {fast} vs {printed}"
        );
        if fast.scale() <= 15 && fast.to_string().len() < 16 {
            assert_eq!(fast.to_f64(), f, "{f:?}");
        }
    }
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
fn small_division_agrees_with_bigint_division() {
    let values = [
        "1",
        "2",
        "3",
        "7",
        "-7",
        "10",
        "0.1",
        "0.3",
        "2.5",
        "-2.5",
        "6.0",
        "100",
        "1.19",
        "0.0001",
        "12345.678",
        "3.14159",
        "999999999999999999",
        "-123456789012345678",
        "0.000000000000000001",
        "0",
        "4",
        "8",
        "9",
    ];
    for a in values {
        for b in values {
            let (x, y) = (n(a), n(b));
            if y.is_zero() {
                continue;
            }
            let fast = x.div(&y).unwrap();
            let slow = x.div_big(&y).unwrap();
            assert_eq!(fast.to_string(), slow.to_string(), "{a} / {b}");
        }
    }
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
