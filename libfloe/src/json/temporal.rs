//! Dates, times and timestamps from JSON text, exactly and without allocation.
//!
//! Accepted: dates `yyyy-MM-dd`; times `HH:mm[:ss[.fraction]]`; timestamps as
//! ISO-8601 `yyyy-MM-ddTHH:mm[:ss[.fraction]][Z|±HH:mm|±HHmm|±HH]` or Flink's SQL
//! form with a space instead of `T`. A fraction may have up to 9 digits, but not
//! more non-zero digits than the target unit holds (no silent truncation).

use std::cell::Cell;

use super::error::ValueError;

/// Time unit of a target column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Millis,
    Micros,
    Nanos,
}

impl Unit {
    pub fn per_second(self) -> i64 {
        match self {
            Unit::Millis => 1_000,
            Unit::Micros => 1_000_000,
            Unit::Nanos => 1_000_000_000,
        }
    }

    fn digits(self) -> usize {
        match self {
            Unit::Millis => 3,
            Unit::Micros => 6,
            Unit::Nanos => 9,
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(year) => 29,
        _ => 28,
    }
}

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn digits(&mut self, n: usize, what: &'static str) -> Result<u32, ValueError> {
        let part = self
            .s
            .get(self.i..self.i + n)
            .filter(|d| d.iter().all(u8::is_ascii_digit))
            .ok_or(ValueError::Digits {
                count: n,
                part: what,
            })?;
        self.i += n;
        Ok(part.iter().fold(0, |v, d| v * 10 + (d - b'0') as u32))
    }

    fn byte(&mut self, b: u8) -> bool {
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, b: u8, what: &'static str) -> Result<(), ValueError> {
        if self.byte(b) {
            Ok(())
        } else {
            Err(ValueError::Separator {
                byte: b,
                place: what,
            })
        }
    }

    fn done(&self) -> bool {
        self.i == self.s.len()
    }
}

/// Days since the epoch for `yyyy-MM-dd`.
pub fn parse_date(text: &[u8]) -> Result<i32, ValueError> {
    let mut sc = Scanner { s: text, i: 0 };
    let days = date_part(&mut sc)?;
    if !sc.done() {
        return Err(ValueError::TrailingText {
            after: "the date (expected yyyy-MM-dd)",
        });
    }
    i32::try_from(days).map_err(|_| ValueError::OutOfRange { what: "date" })
}

fn date_part(sc: &mut Scanner) -> Result<i64, ValueError> {
    let year = sc.digits(4, "year")? as i64;
    sc.expect(b'-', "after the year")?;
    let month = sc.digits(2, "month")?;
    sc.expect(b'-', "after the month")?;
    let day = sc.digits(2, "day")?;
    if !(1..=12).contains(&month) {
        return Err(ValueError::NoSuchMonth { month });
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(ValueError::NoSuchDay { year, month, day });
    }
    Ok(days_from_civil(year, month, day))
}

/// Time of day in `unit`s since midnight.
pub fn parse_time(text: &[u8], unit: Unit) -> Result<i64, ValueError> {
    let mut sc = Scanner { s: text, i: 0 };
    let value = time_part(&mut sc, unit)?;
    if !sc.done() {
        return Err(ValueError::TrailingText {
            after: "the time (expected HH:mm:ss[.fraction])",
        });
    }
    Ok(value)
}

fn time_part(sc: &mut Scanner, unit: Unit) -> Result<i64, ValueError> {
    // The usual full `HH:mm:ss` is taken in one step.
    let (hour, minute, second) = match hh_mm_ss(sc.s.get(sc.i..sc.i + 8)) {
        Some(hms) => {
            sc.i += 8;
            (hms.0, hms.1, Some(hms.2))
        }
        None => {
            let hour = sc.digits(2, "hour")?;
            sc.expect(b':', "after the hour")?;
            let minute = sc.digits(2, "minute")?;
            let second = if sc.byte(b':') {
                Some(sc.digits(2, "second")?)
            } else {
                None
            };
            (hour, minute, second)
        }
    };
    // A fraction only follows seconds.
    let fraction = if second.is_some() && sc.byte(b'.') {
        fraction_part(sc, unit)?
    } else {
        0
    };
    let second = second.unwrap_or(0);
    if hour > 23 || minute > 59 || second > 59 {
        return Err(ValueError::NoSuchTime {
            hour,
            minute,
            second,
        });
    }
    Ok(((hour as i64 * 60 + minute as i64) * 60 + second as i64) * unit.per_second() + fraction)
}

/// Hours, minutes and seconds of eight bytes that are exactly `dd:dd:dd`.
#[inline]
fn hh_mm_ss(text: Option<&[u8]>) -> Option<(u32, u32, u32)> {
    let &[h1, h2, b':', m1, m2, b':', s1, s2] = text? else {
        return None;
    };
    let digits = [h1, h2, m1, m2, s1, s2];
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let two = |a: u8, b: u8| (a - b'0') as u32 * 10 + (b - b'0') as u32;
    Some((two(h1, h2), two(m1, m2), two(s1, s2)))
}

fn fraction_part(sc: &mut Scanner, unit: Unit) -> Result<i64, ValueError> {
    let start = sc.i;
    while sc.i < sc.s.len() && sc.s[sc.i].is_ascii_digit() {
        sc.i += 1;
    }
    let digits = &sc.s[start..sc.i];
    if digits.is_empty() || digits.len() > 9 {
        return Err(ValueError::FractionDigits);
    }
    let keep = unit.digits();
    if digits.len() > keep && digits[keep..].iter().any(|&d| d != b'0') {
        return Err(ValueError::FractionTooFine {
            digits: String::from_utf8_lossy(digits).into_owned(),
            keep,
        });
    }
    let mut value = 0i64;
    for i in 0..keep {
        value = value * 10 + digits.get(i).map_or(0, |d| (d - b'0') as i64);
    }
    Ok(value)
}

/// The last date a column parsed (its 10 bytes `yyyy-MM-dd`) and its day number: the
/// timestamps of a stream mostly share their date, which then is compared, not parsed.
#[derive(Default)]
pub struct LastDate(Cell<Option<([u8; 10], i64)>>);

impl LastDate {
    fn date_part(&self, sc: &mut Scanner) -> Result<i64, ValueError> {
        let Some(text) = sc.s.get(sc.i..sc.i + 10) else {
            return date_part(sc);
        };
        if let Some((last, days)) = self.0.get() {
            if last == text {
                sc.i += 10;
                return Ok(days);
            }
        }
        let days = date_part(sc)?; // consumes exactly the 10 bytes when it succeeds
        self.0.set(Some((text.try_into().expect("10 bytes"), days)));
        Ok(days)
    }
}

/// A timestamp in `unit`s since the epoch. `zoned` columns (timestamptz) need `Z`
/// or an offset and store UTC; local columns must not carry one. (Columns use
/// [`parse_timestamp_after`]; this is its reference in tests.)
#[cfg(test)]
pub fn parse_timestamp(text: &[u8], unit: Unit, zoned: bool) -> Result<i64, ValueError> {
    parse_timestamp_after(text, unit, zoned, &LastDate::default())
}

/// [`parse_timestamp`], skipping the date's parse when it is `last`'s (and remembering it).
pub fn parse_timestamp_after(
    text: &[u8],
    unit: Unit,
    zoned: bool,
    last: &LastDate,
) -> Result<i64, ValueError> {
    let mut sc = Scanner { s: text, i: 0 };
    let days = last.date_part(&mut sc)?;
    if !(sc.byte(b'T') || sc.byte(b't') || sc.byte(b' ')) {
        return Err(ValueError::DateTimeSeparator);
    }
    let time = time_part(&mut sc, unit)?;
    let offset_seconds = if sc.done() {
        None
    } else if sc.byte(b'Z') || sc.byte(b'z') {
        Some(0)
    } else {
        let sign = if sc.byte(b'+') {
            1
        } else if sc.byte(b'-') {
            -1
        } else {
            return Err(ValueError::TrailingText {
                after: "the time (expected Z or an offset)",
            });
        };
        let hours = sc.digits(2, "offset hours")?;
        let minutes = if sc.done() {
            0
        } else {
            sc.byte(b':');
            sc.digits(2, "offset minutes")?
        };
        // -18:00 to +18:00, as java.time (and so Iceberg's readers) allows
        if minutes > 59 || hours * 60 + minutes > 18 * 60 {
            return Err(ValueError::OutOfRange { what: "offset" });
        }
        Some(sign * (hours as i64 * 3600 + minutes as i64 * 60))
    };
    if !sc.done() {
        return Err(ValueError::TrailingText {
            after: "the offset",
        });
    }
    let offset = match (offset_seconds, zoned) {
        (Some(o), true) => o,
        (None, true) => return Err(ValueError::ZoneRequired),
        (Some(_), false) => return Err(ValueError::ZoneForbidden),
        (None, false) => 0,
    };
    // In i128: the first day of the range (1677-09-21 in nanoseconds) starts below i64's
    // range, and only its time of day brings the instant back into it.
    let per_second = i128::from(unit.per_second());
    let instant =
        i128::from(days) * 86_400 * per_second + i128::from(time) - i128::from(offset) * per_second;
    i64::try_from(instant).map_err(|_| ValueError::OutOfRange { what: "timestamp" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(1600, 2, 29), -135_081);
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date(b"2026-11-30"), Ok(20_787));
        assert_eq!(
            parse_date(b"2026-02-29").unwrap_err().to_string(),
            "day 29 does not exist in 2026-02"
        );
        assert!(parse_date(b"2024-02-29").is_ok());
        assert!(parse_date(b"2026-13-01").is_err());
        assert!(parse_date(b"2026-1-01").is_err());
        assert_eq!(
            parse_date(b"2026-01-01x").unwrap_err().to_string(),
            "unexpected characters after the date (expected yyyy-MM-dd)"
        );
        assert_eq!(
            parse_date(b"2026-1-01").unwrap_err().to_string(),
            "expected 2 digits for the month"
        );
        assert_eq!(
            parse_date(b"2026/01/01").unwrap_err().to_string(),
            "expected '-' after the year"
        );
    }

    #[test]
    fn times() {
        assert_eq!(parse_time(b"00:00", Unit::Micros), Ok(0));
        assert_eq!(
            parse_time(b"23:59:59.999999", Unit::Micros),
            Ok(86_399_999_999)
        );
        assert_eq!(
            parse_time(b"12:00:00.5", Unit::Nanos),
            Ok(43_200_500_000_000)
        );
        assert_eq!(
            parse_time(b"24:00:00", Unit::Micros)
                .unwrap_err()
                .to_string(),
            "time 24:00:00 is not a valid time of day"
        );
        assert_eq!(parse_time(b"07:08:09", Unit::Millis), Ok(25_689_000));
        assert_eq!(parse_time(b"07:08", Unit::Millis), Ok(25_680_000));
        assert!(parse_time(b"07:08.5", Unit::Millis).is_err()); // a fraction needs seconds
        assert!(parse_time(b"07:0a:09", Unit::Millis).is_err());
        assert!(parse_time(b"07:60:09", Unit::Millis).is_err());
        assert!(parse_time(b"7:08:09", Unit::Millis).is_err());
        assert_eq!(
            parse_time(b"12:00:00.1234567", Unit::Micros)
                .unwrap_err()
                .to_string(),
            "fraction .1234567 is finer than the column's precision (6 digits)"
        );
        assert_eq!(
            parse_time(b"12:00:00.1234560", Unit::Micros),
            Ok(43_200_123_456)
        );
    }

    #[test]
    fn timestamps() {
        let base = 1_796_040_000_000_000i64; // 2026-11-30 12:00:00 UTC in micros
        assert_eq!(
            parse_timestamp(b"2026-11-30 12:00:00", Unit::Micros, false),
            Ok(base)
        );
        assert_eq!(
            parse_timestamp(b"2026-11-30 12:00:01.12", Unit::Micros, false),
            Ok(base + 1_120_000)
        );
        assert_eq!(
            parse_timestamp(b"2026-11-30T12:00:00Z", Unit::Micros, true),
            Ok(base)
        );
        assert_eq!(
            parse_timestamp(b"2026-11-30T14:30:00+02:30", Unit::Micros, true),
            Ok(base)
        );
        assert_eq!(
            parse_timestamp(b"2026-11-30T07:00:00-0500", Unit::Micros, true),
            Ok(base)
        );
        assert_eq!(
            parse_timestamp(b"1969-12-31T23:59:59.999999999Z", Unit::Nanos, true),
            Ok(-1)
        );
        // The ends of the nanosecond range, inside their first and last days
        assert_eq!(
            parse_timestamp(b"1677-09-21T00:12:43.145224192", Unit::Nanos, false),
            Ok(i64::MIN)
        );
        assert_eq!(
            parse_timestamp(b"2262-04-11T23:47:16.854775807", Unit::Nanos, false),
            Ok(i64::MAX)
        );
        for outside in [
            &b"1677-09-21T00:12:43.145224191"[..],
            b"2262-04-11T23:47:16.854775808",
        ] {
            assert!(parse_timestamp(outside, Unit::Nanos, false).is_err());
        }
        let error = |text: &[u8], zoned| {
            parse_timestamp(text, Unit::Micros, zoned)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error(b"2026-11-30T12:00:00", true),
            "a timestamp with time zone needs 'Z' or an offset"
        );
        assert_eq!(
            error(b"2026-11-30T12:00:00Z", false),
            "a timestamp without time zone must not carry 'Z' or an offset"
        );
        assert_eq!(
            error(b"2026-11-30X12:00:00", false),
            "expected 'T' or ' ' between the date and the time"
        );
        assert_eq!(
            error(b"2026-11-30T12:00:00+19:00", true),
            "offset out of range"
        );
        assert_eq!(
            error(b"2026-11-30T12:00:00+01:00x", true),
            "unexpected characters after the offset"
        );
    }

    #[test]
    fn a_remembered_date_parses_like_a_new_one() {
        let last = LastDate::default();
        let texts: [&[u8]; 8] = [
            b"2026-11-30 12:00:00",
            b"2026-11-30 13:00:00.5",
            b"2026-11-30T12:00:00Z",
            b"2026-11-30",
            b"2026-02-29 00:00:00",
            b"2026-02-29 00:00:00",
            b"1969-12-31 23:59:59.999",
            b"1969-12-31 23:59:59.999",
        ];
        for zoned in [false, true] {
            for text in texts {
                assert_eq!(
                    parse_timestamp_after(text, Unit::Millis, zoned, &last),
                    parse_timestamp(text, Unit::Millis, zoned),
                    "{}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }
}
