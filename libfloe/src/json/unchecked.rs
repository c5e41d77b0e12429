//! The JSON decoder's only `unsafe` code (the C ABI in `ffi` has the rest), each use behind a
//! safe function whose argument types or own checks give the unsafe operation everything it
//! relies on, so no caller can misuse it:
//!
//! - [`find_special`]: the string scan's SSE2 loads, bounds-checked by its loop condition;
//! - [`string_array`]: string arrays built without Arrow's second UTF-8 pass over the values,
//!   which arrive as a `String` (valid UTF-8 by type).

use arrow_array::{GenericStringArray, OffsetSizeTrait};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer};
use arrow_schema::ArrowError;

/// Index of the first `"`, `\\` or control character (< 0x20) at or after `from`.
/// On x86_64 it looks at 16 bytes per step with SSE2 (part of every x86_64 CPU); the rest,
/// and other targets, eight bytes at a time (SWAR). Either beats a per-string memchr call on
/// the short strings JSON messages are made of.
#[inline]
pub fn find_special(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in the x86_64 baseline; every load reads 16 bytes inside `buf`
        // (`i + 16 <= buf.len()`), unaligned loads allowed.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let below_space = _mm_set1_epi8(0x1f);
            while i + 16 <= buf.len() {
                let chunk = _mm_loadu_si128(buf.as_ptr().add(i).cast::<__m128i>());
                // A control character is one that min(byte, 0x1f) leaves unchanged.
                let hits = _mm_or_si128(
                    _mm_or_si128(
                        _mm_cmpeq_epi8(chunk, quote),
                        _mm_cmpeq_epi8(chunk, backslash),
                    ),
                    _mm_cmpeq_epi8(_mm_min_epu8(chunk, below_space), chunk),
                );
                let mask = _mm_movemask_epi8(hits) as u32;
                if mask != 0 {
                    return Some(i + mask.trailing_zeros() as usize);
                }
                i += 16;
            }
        }
    }
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while i + 8 <= buf.len() {
        let word = u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
        let quote = word ^ (ONES * b'"' as u64);
        let backslash = word ^ (ONES * b'\\' as u64);
        // A byte is flagged when it is zero after the xor (a match) or below 0x20.
        let hits = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word);
        let hits = hits & HIGHS;
        if hits != 0 {
            return Some(i + (hits.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    buf[i..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|p| i + p)
}

/// A utf8 / large_utf8 array of `values` cut at `offsets`, without the UTF-8 validation
/// [`GenericStringArray::try_new`] would repeat: `values` is a `String`, so it is valid UTF-8
/// by its type. Everything else `try_new` checks is checked here: each offset is a character
/// boundary of `values` (so also within it; [`OffsetBuffer`] already guarantees they are
/// non-negative and non-decreasing) and the null buffer has one entry per value.
pub fn string_array<O: OffsetSizeTrait>(
    offsets: OffsetBuffer<O>,
    values: String,
    nulls: Option<NullBuffer>,
) -> Result<GenericStringArray<O>, ArrowError> {
    if let Some(bad) = offsets
        .iter()
        .find(|o| !values.is_char_boundary(o.as_usize()))
    {
        return Err(ArrowError::InvalidArgumentError(format!(
            "string offset {} is not a character boundary of the {}-byte values",
            bad.as_usize(),
            values.len()
        )));
    }
    let rows = offsets.len() - 1;
    if let Some(nulls) = nulls.as_ref().filter(|n| n.len() != rows) {
        return Err(ArrowError::InvalidArgumentError(format!(
            "{} null flags for {rows} strings",
            nulls.len()
        )));
    }
    let values = Buffer::from_vec(values.into_bytes());
    // SAFETY: `new_unchecked` is sound whenever `try_new` would succeed. `try_new` checks that
    // the values are UTF-8 (they were a `String`), that every offset is a character boundary
    // within them and that there is one null flag per value (both checked above).
    Ok(unsafe { GenericStringArray::<O>::new_unchecked(offsets, values, nulls) })
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use arrow_buffer::ScalarBuffer;

    use super::*;

    #[test]
    fn special_byte_scan_matches_a_plain_search() {
        let mut rng = crate::test_rng::XorShift(0x9e37_79b9_7f4a_7c15);
        // Mostly letters and UTF-8 bytes, sometimes a quote, backslash or control character,
        // at every length and start so both the 16-byte and the 8-byte steps and the tail run.
        let alphabet: &[u8] = b"abcxyz0189 ~\x7f\x80\xc3\xa9\xff";
        let specials: &[u8] = b"\"\\\x00\x1f\n";
        for len in 0..80 {
            for _ in 0..40 {
                let buf: Vec<u8> = (0..len)
                    .map(|_| {
                        let r = rng.next();
                        if r.is_multiple_of(23) {
                            specials[(r >> 8) as usize % specials.len()]
                        } else {
                            alphabet[(r >> 8) as usize % alphabet.len()]
                        }
                    })
                    .collect();
                for from in 0..=len {
                    let expected = buf[from..]
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                        .map(|p| from + p);
                    assert_eq!(find_special(&buf, from), expected, "{buf:?} from {from}");
                }
            }
        }
    }

    #[test]
    fn string_arrays_are_built_from_checked_offsets() {
        let offsets = |o: Vec<i32>| OffsetBuffer::new(ScalarBuffer::from(o));
        let values = "aé東".to_string(); // 1 + 2 + 3 bytes
        let array = string_array(offsets(vec![0, 1, 3, 6]), values.clone(), None).unwrap();
        assert_eq!(array.value(1), "é");
        assert_eq!(array.value(2), "東");
        array.to_data().validate_full().unwrap();

        let split = string_array(offsets(vec![0, 2]), values.clone(), None).unwrap_err();
        assert!(split.to_string().contains("offset 2"), "{split}");
        let beyond = string_array(offsets(vec![0, 7]), values.clone(), None).unwrap_err();
        assert!(beyond.to_string().contains("offset 7"), "{beyond}");
        let nulls = Some(NullBuffer::new_null(2));
        let short = string_array(offsets(vec![0, 1, 3, 6]), values, nulls).unwrap_err();
        assert!(short.to_string().contains("2 null flags for 3"), "{short}");
    }
}
