//! Exact number conversions: decimals from the number's text, floats correctly
//! rounded by the standard library's parser.

use super::error::{excerpt, ValueError};

/// Parses decimal text (`-12.340`, `1.5e3`) into the unscaled value of a
/// `decimal(precision, scale)`. More fraction digits than the scale allows (unless
/// they are zeros) and values beyond the precision are errors, never rounded.
pub fn parse_decimal(text: &[u8], precision: u8, scale: i8) -> Result<i128, ValueError> {
    let shown = || excerpt(text, false);
    let not_decimal = || ValueError::NotADecimal { text: shown() };
    let (negative, rest) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut digits: Vec<u8> = Vec::with_capacity(rest.len());
    let mut fraction_digits: i64 = 0;
    let mut exponent: i64 = 0;
    let mut i = 0;
    let mut seen_dot = false;
    while i < rest.len() {
        match rest[i] {
            d @ b'0'..=b'9' => {
                digits.push(d - b'0');
                if seen_dot {
                    fraction_digits += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            b'e' | b'E' => {
                let exp_text = std::str::from_utf8(&rest[i + 1..]).unwrap_or("");
                exponent = exp_text
                    .parse::<i64>()
                    .ok()
                    // unsigned_abs: i64::MIN has no i64 absolute value (abs() overflows).
                    .filter(|e| e.unsigned_abs() < 1000)
                    .ok_or_else(not_decimal)?;
                break;
            }
            _ => return Err(not_decimal()),
        }
        i += 1;
    }
    if digits.is_empty() {
        return Err(not_decimal());
    }
    // unscaled = digits x 10^shift
    let mut shift = exponent - fraction_digits + scale as i64;
    while shift < 0 {
        match digits.last() {
            Some(0) => {
                digits.pop();
                shift += 1;
            }
            Some(_) => {
                return Err(ValueError::DecimalTooPrecise {
                    text: shown(),
                    precision,
                    scale,
                })
            }
            None => break,
        }
    }
    let out_of_range = || ValueError::DecimalOutOfRange {
        text: shown(),
        precision,
        scale,
    };
    let mut value: i128 = 0;
    for &d in &digits {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(d as i128))
            .ok_or_else(out_of_range)?;
    }
    for _ in 0..shift.max(0) {
        value = value.checked_mul(10).ok_or_else(out_of_range)?;
    }
    let limit = 10i128
        .checked_pow(precision as u32)
        .ok_or_else(out_of_range)?;
    if value >= limit {
        return Err(out_of_range());
    }
    Ok(if negative { -value } else { value })
}

/// Parses a JSON number's text as f64; out-of-range magnitudes are errors, not infinities.
pub fn parse_f64(text: &[u8]) -> Result<f64, ValueError> {
    match fast_path(text, 1 << 53, &POW10_F64, |m| m as f64) {
        Some(v) => Ok(v),
        None => parse_float(text, "float64"),
    }
}

/// Parses a JSON number's text directly as f32 (one rounding, not via f64).
pub fn parse_f32(text: &[u8]) -> Result<f32, ValueError> {
    match fast_path(text, 1 << 24, &POW10_F32, |m| m as f32) {
        Some(v) => Ok(v),
        None => parse_float(text, "float32"),
    }
}

/// `m x 10^e` in one correctly rounded operation, when `m` (at most `max_mantissa`, exact in
/// the float) and `10^|e|` (in `pow10`) are both exact; `None` otherwise.
#[inline]
fn fast_path<F>(text: &[u8], max_mantissa: u64, pow10: &[F], float: fn(u64) -> F) -> Option<F>
where
    F: Copy + std::ops::Mul<Output = F> + std::ops::Div<Output = F> + std::ops::Neg<Output = F>,
{
    let (negative, m, e) = exact_parts(text)?;
    let power = *pow10.get(e.unsigned_abs() as usize)?;
    if m > max_mantissa {
        return None;
    }
    let v = if e >= 0 {
        float(m) * power
    } else {
        float(m) / power
    };
    Some(if negative { -v } else { v })
}

/// Powers of ten a float holds exactly: 10^22 = 2^22 * 5^22 and 5^22 < 2^53; 5^10 < 2^24.
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
const POW10_F32: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/// Clinger's fast path: `text` as `(negative, m, e)` with value `m x 10^e`, when it is a plain
/// `-?digits(.digits)?([eE][+-]?digits)?` whose digits fit a u64. A float then gets
/// the exact `m` times or divided by an exact power of ten, and one IEEE multiplication or
/// division rounds correctly: the same value the standard parser returns, without its
/// general algorithm. Anything else (`None`) goes to the standard parser.
#[inline]
fn exact_parts(text: &[u8]) -> Option<(bool, u64, i32)> {
    let (negative, mut rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mut m: u64 = 0;
    let mut digits = take_digits(&mut rest, &mut m)?;
    let mut e: i32 = 0;
    if let Some((b'.', tail)) = rest.split_first() {
        rest = tail;
        let fraction = take_digits(&mut rest, &mut m)?;
        digits += fraction;
        e = -i32::try_from(fraction).ok()?;
    }
    if let Some((b'e' | b'E', tail)) = rest.split_first() {
        let (negative_exp, mut exp_text) = match tail.split_first() {
            Some((b'-', t)) => (true, t),
            Some((b'+', t)) => (false, t),
            _ => (false, tail),
        };
        let mut exp: u64 = 0;
        if take_digits(&mut exp_text, &mut exp)? == 0 {
            return None;
        }
        let exp = i32::try_from(exp).ok()?;
        e = e.checked_add(if negative_exp { -exp } else { exp })?;
        rest = exp_text;
    }
    (digits > 0 && rest.is_empty()).then_some((negative, m, e))
}

/// Moves the leading ASCII digits of `rest` into `value` (`None` when it overflows); how many.
#[inline]
fn take_digits(rest: &mut &[u8], value: &mut u64) -> Option<usize> {
    let mut count = 0;
    while let Some((&d @ b'0'..=b'9', tail)) = rest.split_first() {
        *value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        *rest = tail;
        count += 1;
    }
    Some(count)
}

fn parse_float<F: std::str::FromStr + Into<f64> + Copy>(
    text: &[u8],
    type_name: &'static str,
) -> Result<F, ValueError> {
    let not_number = || ValueError::NotANumber {
        text: excerpt(text, false),
    };
    let v: F = std::str::from_utf8(text)
        .map_err(|_| not_number())?
        .parse()
        .map_err(|_| not_number())?;
    if v.into().is_finite() {
        Ok(v)
    } else {
        Err(ValueError::FloatOutOfRange {
            text: excerpt(text, false),
            type_name,
        })
    }
}

/// The non-finite values JSON cannot write as numbers, accepted as strings.
pub fn special_float(text: &[u8]) -> Option<f64> {
    match text {
        b"NaN" => Some(f64::NAN),
        b"Infinity" | b"+Infinity" => Some(f64::INFINITY),
        b"-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Canonical UUID text (`8-4-4-4-12` hex digits, any case) to its 16 bytes.
pub fn parse_uuid(text: &[u8], out: &mut Vec<u8>) -> Result<(), ValueError> {
    let not_uuid = |reason: &'static str| ValueError::NotAUuid {
        text: excerpt(text, false),
        reason,
    };
    if text.len() != 36 || [8, 13, 18, 23].iter().any(|&i| text[i] != b'-') {
        return Err(not_uuid("expected 8-4-4-4-12 hex digits"));
    }
    let mut bytes = [0u8; 16];
    // Every input byte is looked up (dashes skipped by position); an invalid digit sets the
    // table's high bit, checked once at the end.
    let mut invalid = 0u8;
    for (byte, pair) in bytes.iter_mut().zip(UUID_DIGIT_PAIRS) {
        let hi = HEX_VALUE[text[pair] as usize];
        let lo = HEX_VALUE[text[pair + 1] as usize];
        invalid |= hi | lo;
        *byte = hi << 4 | (lo & 0x0f);
    }
    if invalid & 0x80 != 0 {
        return Err(not_uuid("non-hex digit"));
    }
    out.extend_from_slice(&bytes);
    Ok(())
}

/// Where each byte's two hex digits start in `8-4-4-4-12` text.
const UUID_DIGIT_PAIRS: [usize; 16] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/// A hex digit's value, or 0x80 for any other byte.
const HEX_VALUE: [u8; 256] = {
    let mut table = [0x80u8; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path must return bit for bit what the standard parser returns, on the
    /// numbers it takes and on those it hands over.
    #[test]
    fn floats_match_the_standard_parser() {
        let mut rng = crate::test_rng::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1",
            "-1",
            "0.1",
            "0.3",
            "123456.78",
            "99999.99",
            "1e22",
            "1e23",
            "9007199254740992",
            "9007199254740993",
            "16777216",
            "16777217",
            "1.5e-7",
            "3.4028235e38",
            "1e-45",
            "4.9e-324",
            "2.2250738585072014e-308",
            "1e308",
            "1.7976931348623157e308",
            "0.000000000000000000000001",
            "12345678901234567890",
            "1.00000000000000000000",
            "007",
            "1E+2",
            "1e-0",
            "2.5E-3",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        for _ in 0..200_000 {
            let r = rng.next();
            let int_digits = 1 + (r % 17) as usize;
            let frac_digits = ((r >> 8) % 12) as usize;
            let mut t = String::new();
            if r & (1 << 20) != 0 {
                t.push('-');
            }
            let mut d = rng.next();
            for i in 0..int_digits + frac_digits {
                if i == int_digits {
                    t.push('.');
                }
                t.push((b'0' + (d % 10) as u8) as char);
                d /= 10;
                if d == 0 {
                    d = rng.next();
                }
            }
            if r & (1 << 21) != 0 {
                t.push_str(&format!("e{}", ((r >> 24) % 50) as i64 - 25));
            }
            texts.push(t);
        }
        for t in &texts {
            let standard64 = t.parse::<f64>().ok().filter(|v| v.is_finite());
            assert_eq!(
                parse_f64(t.as_bytes()).ok().map(f64::to_bits),
                standard64.map(f64::to_bits),
                "{t}"
            );
            let standard32 = t.parse::<f32>().ok().filter(|v| v.is_finite());
            assert_eq!(
                parse_f32(t.as_bytes()).ok().map(f32::to_bits),
                standard32.map(f32::to_bits),
                "{t}"
            );
        }
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(parse_decimal(b"12.34", 10, 2), Ok(1234));
        assert_eq!(parse_decimal(b"-0.5", 10, 2), Ok(-50));
        assert_eq!(parse_decimal(b"7", 10, 2), Ok(700));
        assert_eq!(parse_decimal(b"1.5e2", 10, 2), Ok(15000));
        assert_eq!(parse_decimal(b"12.3400", 10, 2), Ok(1234));
        assert_eq!(parse_decimal(b"1234.5E-2", 10, 3), Ok(12345));
        assert_eq!(
            parse_decimal(b"12.345", 10, 2).unwrap_err().to_string(),
            "12.345 has more fraction digits than decimal(10,2) allows"
        );
        assert_eq!(
            parse_decimal(b"123456789", 10, 2).unwrap_err().to_string(),
            "123456789 is out of range for decimal(10,2)"
        );
        assert_eq!(
            parse_decimal(b"1.2.3", 10, 2).unwrap_err().to_string(),
            "1.2.3 is not a valid decimal number"
        );
        assert_eq!(
            parse_decimal(b"9999999999999999999999999999.9999999999", 38, 10),
            Ok(99_999_999_999_999_999_999_999_999_999_999_999_999)
        );
        assert!(parse_decimal(b"99999999999999999999999999999", 38, 10).is_err());
    }

    #[test]
    fn floats_round_once() {
        assert_eq!(parse_f64(b"0.1"), Ok(0.1));
        assert_eq!(parse_f32(b"16777217"), Ok(16_777_216.0));
        assert_eq!(parse_f32(b"0.1"), Ok(0.1f32));
        assert_eq!(
            parse_f64(b"1e400").unwrap_err().to_string(),
            "number 1e400 is out of range for float64"
        );
        assert_eq!(
            parse_f32(b"1e39").unwrap_err().to_string(),
            "number 1e39 is out of range for float32"
        );
        assert_eq!(
            parse_f64(b"1e").unwrap_err().to_string(),
            "1e is not a valid number"
        );
    }

    #[test]
    fn uuids() {
        let mut out = Vec::new();
        parse_uuid(b"123e4567-E89B-12d3-a456-426614174000", &mut out).unwrap();
        assert_eq!(
            out,
            [
                0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17,
                0x40, 0x00
            ]
        );
        assert!(parse_uuid(b"123e4567e89b12d3a456426614174000", &mut out).is_err());
        assert!(parse_uuid(b"123e4567-e89b-12d3-a456-42661417400g", &mut out).is_err());
    }

    #[test]
    fn uuid_digits_are_checked_at_every_position() {
        let good = *b"0123abcd-EF45-6789-aBcD-ef0123456789";
        let mut out = Vec::new();
        parse_uuid(&good, &mut out).unwrap();
        let expected = "0123abcdef456789abcdef0123456789";
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, expected);
        for at in (0..36).filter(|i| ![8, 13, 18, 23].contains(i)) {
            for bad in [b'g', b'G', b'-', b' ', b'/', b':', b'@', b'`', 0xc3] {
                let mut text = good;
                text[at] = bad;
                let mut out = Vec::new();
                let error = parse_uuid(&text, &mut out).expect_err("a bad digit is refused");
                assert!(error.to_string().contains("non-hex digit"), "{error}");
                assert!(out.is_empty(), "nothing is appended on error");
            }
        }
    }
}
