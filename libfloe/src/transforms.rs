//! Iceberg partition transforms on single values, exactly as the Iceberg spec
//! defines them (and Iceberg Java computes them): bucket[N] over Murmur3 x86 32-bit
//! hashes, truncate[W], and year/month/day/hour counted from the Unix epoch.
//!
//! These are the scalar building blocks; applying them to Arrow columns and fanning
//! rows out per partition builds on them.

/// Murmur3 x86 32-bit hash with seed 0, as Iceberg's `BucketUtil` uses (Guava's).
pub fn murmur3_32(data: &[u8]) -> i32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h: u32 = 0;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut k: u32 = 0;
        for (i, &b) in tail.iter().enumerate() {
            k ^= (b as u32) << (8 * i);
        }
        h ^= k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// The bucket of a hash: `(hash & Integer.MAX_VALUE) % n`.
pub fn bucket_of(hash: i32, n: u32) -> i32 {
    ((hash & i32::MAX) as u32 % n) as i32
}

/// Hash of int, long, date, time and timestamp (micros) values: the value as a long, 8 bytes LE.
pub fn hash_long(v: i64) -> i32 {
    murmur3_32(&v.to_le_bytes())
}

/// Hash of a decimal: its unscaled value's minimal big-endian two's-complement bytes.
pub fn hash_decimal(unscaled: i128) -> i32 {
    murmur3_32(&minimal_be_bytes(unscaled))
}

/// Hash of a timestamp_ns value: hashed as microseconds, like timestamps.
pub fn hash_timestamp_nanos(nanos: i64) -> i32 {
    hash_long(nanos.div_euclid(1000))
}

/// Hash of strings (UTF-8 bytes), uuids (16 bytes, big-endian), fixed and binary values.
pub fn hash_bytes(v: &[u8]) -> i32 {
    murmur3_32(v)
}

/// `BigInteger.toByteArray()`: the shortest big-endian two's-complement encoding.
pub fn minimal_be_bytes(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        let redundant = (b == 0x00 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    bytes[start..].to_vec()
}

/// truncate[W] of an int or long: `v - (((v % W) + W) % W)`, rounding towards negative infinity.
pub fn truncate_long(v: i64, width: i64) -> i64 {
    v.wrapping_sub(v.rem_euclid(width))
}

/// truncate[W] of a decimal applies to its unscaled value.
pub fn truncate_decimal(unscaled: i128, width: i128) -> i128 {
    unscaled - unscaled.rem_euclid(width)
}

/// truncate[W] of a string keeps its first W code points.
pub fn truncate_str(v: &str, width: usize) -> &str {
    match v.char_indices().nth(width) {
        Some((end, _)) => &v[..end],
        None => v,
    }
}

/// truncate[W] of binary keeps its first W bytes.
pub fn truncate_bytes(v: &[u8], width: usize) -> &[u8] {
    &v[..v.len().min(width)]
}

const MICROS_PER_HOUR: i64 = 3_600_000_000;
const MICROS_PER_DAY: i64 = 86_400_000_000;

/// day transform of a timestamp in micros: days since 1970-01-01 (floor).
pub fn day_from_micros(micros: i64) -> i32 {
    micros.div_euclid(MICROS_PER_DAY) as i32
}

/// hour transform of a timestamp in micros: hours since 1970-01-01 00:00 (floor).
pub fn hour_from_micros(micros: i64) -> i32 {
    micros.div_euclid(MICROS_PER_HOUR) as i32
}

/// month transform of a date: months since 1970-01.
pub fn month_from_days(days: i32) -> i32 {
    let (y, m, _) = civil_from_days(days as i64);
    ((y - 1970) * 12 + (m as i64 - 1)) as i32
}

/// year transform of a date: years since 1970.
pub fn year_from_days(days: i32) -> i32 {
    (civil_from_days(days as i64).0 - 1970) as i32
}

pub fn month_from_micros(micros: i64) -> i32 {
    month_from_days(day_from_micros(micros))
}

pub fn year_from_micros(micros: i64) -> i32 {
    year_from_days(day_from_micros(micros))
}

/// (year, month, day) of days since 1970-01-01, proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The hash test vectors of the Iceberg spec (Appendix B).
    #[test]
    fn spec_hash_vectors() {
        assert_eq!(hash_long(34), 2_017_239_379, "int and long 34");
        assert_eq!(hash_decimal(1420), -500_754_589, "decimal(9,2) 14.20");
        assert_eq!(hash_long(17_486), -653_330_422, "date 2017-11-16");
        assert_eq!(hash_long(81_068_000_000), -662_762_989, "time 22:31:08");
        assert_eq!(
            hash_long(1_510_871_468_000_000),
            -2_047_944_441,
            "timestamp 2017-11-16T22:31:08"
        );
        assert_eq!(
            hash_timestamp_nanos(1_510_871_468_000_000_999),
            -2_047_944_441,
            "timestamp_ns hashes as micros"
        );
        assert_eq!(hash_bytes(b"iceberg"), 1_210_000_089, "string");
        let uuid = [
            0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7,
            0x85, 0xe7,
        ];
        assert_eq!(hash_bytes(&uuid), 1_488_055_340, "uuid");
        assert_eq!(hash_bytes(&[0, 1, 2, 3]), -188_683_207, "fixed and binary");
    }

    #[test]
    fn buckets_are_non_negative() {
        assert_eq!(bucket_of(hash_long(34), 100), 2_017_239_379 % 100);
        assert_eq!(
            bucket_of(-188_683_207, 16),
            (-188_683_207i32 & i32::MAX) % 16
        );
        assert!((0..1000).all(|v| (0..7).contains(&bucket_of(hash_long(v - 500), 7))));
    }

    #[test]
    fn minimal_decimal_bytes() {
        assert_eq!(minimal_be_bytes(0), [0x00]);
        assert_eq!(minimal_be_bytes(128), [0x00, 0x80]);
        assert_eq!(minimal_be_bytes(-1), [0xff]);
        assert_eq!(minimal_be_bytes(-129), [0xff, 0x7f]);
        assert_eq!(minimal_be_bytes(1420), [0x05, 0x8c]);
    }

    #[test]
    fn truncation_rounds_towards_negative_infinity() {
        assert_eq!(truncate_long(1, 10), 0);
        assert_eq!(truncate_long(-1, 10), -10);
        assert_eq!(truncate_long(-10, 10), -10);
        assert_eq!(truncate_decimal(1065, 50), 1050, "10.65 -> 10.50");
        assert_eq!(truncate_decimal(-1, 50), -50);
        assert_eq!(truncate_str("iceberg", 3), "ice");
        assert_eq!(truncate_str("東京😀x", 3), "東京😀");
        assert_eq!(truncate_str("ab", 3), "ab");
        assert_eq!(truncate_bytes(&[1, 2, 3], 2), [1, 2]);
    }

    #[test]
    fn temporal_transforms_count_from_the_epoch() {
        let ts = 1_510_871_468_000_000; // 2017-11-16T22:31:08
        assert_eq!(year_from_micros(ts), 47);
        assert_eq!(month_from_micros(ts), 574);
        assert_eq!(day_from_micros(ts), 17_486);
        assert_eq!(hour_from_micros(ts), 419_686);
        // Before 1970 they round down, not towards zero.
        assert_eq!(day_from_micros(-1), -1);
        assert_eq!(hour_from_micros(-1), -1);
        assert_eq!(month_from_days(-1), -1, "1969-12");
        assert_eq!(year_from_days(-1), -1, "1969");
        assert_eq!(year_from_days(-366), -2, "1968-12-31");
        assert_eq!(month_from_days(0), 0);
    }
}
