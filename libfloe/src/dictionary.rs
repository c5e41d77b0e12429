//! Which columns should skip dictionary encoding, judged on the first batch.
//!
//! parquet-rs keeps a column dictionary-encoded until the dictionary page fills
//! up, which for high-cardinality columns (ids, random text, measurements) costs
//! time and space for nothing. parquet-java checks after the first page whether
//! `dictionary + indices < plain` and falls back otherwise; floe makes the same
//! call on a sample of the first batch and writes such columns plain from the start.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_buffer::ToByteSlice;
use arrow_schema::DataType;
use parquet::schema::types::ColumnPath;

/// Rows of the first batch looked at per column.
const SAMPLE_ROWS: usize = 8192;

/// Leaf columns (top level or inside structs) for which dictionary encoding would not
/// be smaller than plain encoding on the sample. Lists and maps are left alone.
pub fn plain_columns(batch: &RecordBatch) -> Vec<ColumnPath> {
    let mut out = Vec::new();
    let rows = batch.num_rows().min(SAMPLE_ROWS);
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        visit(vec![field.name().clone()], &column.slice(0, rows), &mut out);
    }
    out
}

fn visit(path: Vec<String>, array: &ArrayRef, out: &mut Vec<ColumnPath>) {
    if let DataType::Struct(fields) = array.data_type() {
        let s = array.as_struct();
        for (f, child) in fields.iter().zip(s.columns()) {
            let mut p = path.clone();
            p.push(f.name().clone());
            visit(p, child, out);
        }
        return;
    }
    if sample_pays(array) == Some(false) {
        out.push(ColumnPath::new(path));
    }
}

/// Dictionary page plus bit-packed indices against plain values: whether `values` non-null
/// values taking `plain_bytes` encode smaller as `distinct` dictionary entries of
/// `distinct_bytes`.
fn dictionary_pays(
    values: usize,
    plain_bytes: usize,
    distinct: usize,
    distinct_bytes: usize,
) -> bool {
    if values == 0 {
        return true;
    }
    distinct_bytes + index_bytes(values, distinct) < plain_bytes
}

fn index_bytes(values: usize, distinct: usize) -> usize {
    let index_bits = usize::BITS - distinct.max(1).leading_zeros();
    (values * index_bits as usize).div_ceil(8)
}

/// `None` for types that are not sampled (they keep parquet-rs's default).
fn sample_pays(array: &ArrayRef) -> Option<bool> {
    use arrow_schema::TimeUnit;
    Some(match array.data_type() {
        DataType::Int32 => fixed::<Int32Type>(array),
        DataType::Int64 => fixed::<Int64Type>(array),
        DataType::Float32 => fixed::<Float32Type>(array),
        DataType::Float64 => fixed::<Float64Type>(array),
        DataType::Date32 => fixed::<Date32Type>(array),
        DataType::Decimal128(_, _) => fixed::<Decimal128Type>(array),
        DataType::Time64(TimeUnit::Microsecond) => fixed::<Time64MicrosecondType>(array),
        DataType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => fixed::<TimestampSecondType>(array),
            TimeUnit::Millisecond => fixed::<TimestampMillisecondType>(array),
            TimeUnit::Microsecond => fixed::<TimestampMicrosecondType>(array),
            TimeUnit::Nanosecond => fixed::<TimestampNanosecondType>(array),
        },
        DataType::Utf8 => bytes(
            array
                .as_string::<i32>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
        ),
        DataType::LargeUtf8 => bytes(
            array
                .as_string::<i64>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
        ),
        DataType::Binary => bytes(array.as_binary::<i32>().iter()),
        DataType::LargeBinary => bytes(array.as_binary::<i64>().iter()),
        DataType::FixedSizeBinary(_) => bytes(array.as_fixed_size_binary().iter()),
        _ => return None,
    })
}

/// Values keyed by their bytes (floats by bit pattern), as the dictionary sees them.
fn fixed<T: ArrowPrimitiveType>(array: &ArrayRef) -> bool {
    let values = array.as_primitive::<T>();
    let width = std::mem::size_of::<T::Native>();
    let count = values.len() - values.null_count();
    let plain = count * width;
    // Up to 8 bytes (every type but decimal) the key is one u64: cheaper to hash and compare.
    if width <= 8 {
        let keys = values.iter().flatten().map(|v| {
            let mut key = [0u8; 8];
            key[..width].copy_from_slice(v.to_byte_slice());
            u64::from_le_bytes(key)
        });
        distinct_pays(keys, count, plain, |_| width)
    } else {
        let keys = values.iter().flatten().map(|v| {
            let mut key = [0u8; 16];
            key[..width].copy_from_slice(v.to_byte_slice());
            u128::from_le_bytes(key)
        });
        distinct_pays(keys, count, plain, |_| width)
    }
}

/// Variable-length values: plain and dictionary entries both carry a 4-byte length.
fn bytes<'a>(values: impl Iterator<Item = Option<&'a [u8]>> + Clone) -> bool {
    let (count, plain) = values
        .clone()
        .flatten()
        .fold((0, 0), |(count, plain), v| (count + 1, plain + v.len() + 4));
    distinct_pays(values.flatten(), count, plain, |v: &&[u8]| v.len() + 4)
}

/// Counts the distinct keys of `count` values (`plain` bytes when encoded plain) until the
/// answer is certain: dictionary size and index bits only grow with each new key, so once
/// they reach `plain` the dictionary cannot pay, whatever the remaining values are.
fn distinct_pays<K: Hash + Eq>(
    keys: impl Iterator<Item = K>,
    count: usize,
    plain: usize,
    entry_bytes: impl Fn(&K) -> usize,
) -> bool {
    let mut seen: HashSet<K, SampleHash> =
        HashSet::with_capacity_and_hasher(count, SampleHash::new());
    let mut distinct_bytes = 0;
    for key in keys {
        let bytes = entry_bytes(&key);
        if seen.insert(key) {
            distinct_bytes += bytes;
            if distinct_bytes + index_bytes(count, seen.len()) >= plain {
                return false;
            }
        }
    }
    dictionary_pays(count, plain, seen.len(), distinct_bytes)
}

/// Hashing for the sample's set: SipHash (std's default) cost more than the rest of the
/// decision. A folded 64x64->128 multiply per 8 bytes mixes every input bit into the low bits
/// the table indexes by (floats that differ only in their high bits, timestamps that differ
/// by round amounts); the seed is random per sample, so crafted input cannot aim at collisions.
#[derive(Clone, Copy)]
struct SampleHash {
    seed: u64,
}

impl SampleHash {
    fn new() -> Self {
        Self {
            seed: RandomState::new().hash_one(0u64),
        }
    }
}

impl BuildHasher for SampleHash {
    type Hasher = FoldHasher;

    fn build_hasher(&self) -> FoldHasher {
        FoldHasher(self.seed)
    }
}

struct FoldHasher(u64);

impl FoldHasher {
    const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

    fn add(&mut self, word: u64) {
        let product = u128::from(self.0 ^ word) * u128::from(Self::MULTIPLIER);
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

impl Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    fn write_u128(&mut self, value: u128) {
        self.add(value as u64);
        self.add((value >> 64) as u64);
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Decimal128Array, Float64Array, Int32Array, Int64Array, StringArray};
    use std::collections::BTreeSet;
    use std::sync::Arc;

    /// The decision computed the plain way: every value looked at, distinct values in a set.
    fn reference(values: &[Option<Vec<u8>>], fixed_width: Option<usize>) -> bool {
        let present: Vec<&Vec<u8>> = values.iter().flatten().collect();
        let distinct: BTreeSet<&Vec<u8>> = present.iter().copied().collect();
        let size = |v: &Vec<u8>| fixed_width.unwrap_or(v.len() + 4);
        let plain = present.iter().map(|v| size(v)).sum();
        let distinct_bytes = distinct.iter().map(|v| size(v)).sum();
        dictionary_pays(present.len(), plain, distinct.len(), distinct_bytes)
    }

    /// A deterministic value stream with `cardinality` distinct values.
    fn draws(len: usize, cardinality: u64) -> impl Iterator<Item = u64> + Clone {
        (0..len as u64).map(move |i| i.wrapping_mul(0x2545_F491_4F6C_DD1D) % cardinality)
    }

    /// Checks one sample against the reference and notes the outcome.
    fn check(
        array: ArrayRef,
        raw: Vec<Option<Vec<u8>>>,
        width: Option<usize>,
        outcomes: &mut BTreeSet<(String, bool)>,
    ) {
        let expected = reference(&raw, width);
        let what = format!("{} of {} values", array.data_type(), raw.len());
        assert_eq!(sample_pays(&array), Some(expected), "{what}");
        outcomes.insert((array.data_type().to_string(), expected));
    }

    #[test]
    fn fixed_width_decisions_equal_the_full_count() {
        let mut outcomes = BTreeSet::new();
        let cardinalities = [
            1, 2, 100, 1000, 2000, 3000, 4000, 5000, 6000, 6500, 6600, 7000, 8192,
        ];
        for cardinality in cardinalities {
            let ints = draws(8192, cardinality).map(|v| v as i64 * 1_000_003);
            check(
                Arc::new(Int64Array::from_iter_values(ints.clone())),
                ints.map(|v| Some(v.to_le_bytes().to_vec())).collect(),
                Some(8),
                &mut outcomes,
            );
            // Doubles that differ only in their high bits.
            let doubles = draws(8192, cardinality).map(|v| v as f64);
            check(
                Arc::new(Float64Array::from_iter_values(doubles.clone())),
                doubles.map(|v| Some(v.to_le_bytes().to_vec())).collect(),
                Some(8),
                &mut outcomes,
            );
            let with_nulls = draws(8192, cardinality).map(|v| (v % 7 != 3).then_some(v as i32));
            check(
                Arc::new(Int32Array::from_iter(with_nulls.clone())),
                with_nulls
                    .map(|v| v.map(|v| v.to_le_bytes().to_vec()))
                    .collect(),
                Some(4),
                &mut outcomes,
            );
            let decimals = draws(4000, cardinality).map(|v| (v as i128) << 70);
            check(
                Arc::new(
                    Decimal128Array::from_iter_values(decimals.clone())
                        .with_precision_and_scale(38, 2)
                        .unwrap(),
                ),
                decimals.map(|v| Some(v.to_le_bytes().to_vec())).collect(),
                Some(16),
                &mut outcomes,
            );
        }
        // For every type the cardinalities straddle the break-even point.
        assert_eq!(outcomes.len(), 8, "{outcomes:?}");
    }

    #[test]
    fn string_decisions_equal_the_full_count() {
        let mut outcomes = BTreeSet::new();
        for cardinality in [1, 3, 50, 500, 2000, 4000, 8192] {
            for width in [1usize, 4, 12, 40] {
                let text =
                    draws(8192, cardinality).map(|v| (v % 11 != 5).then(|| format!("{v:0width$}")));
                check(
                    Arc::new(StringArray::from_iter(text.clone())),
                    text.map(|v| v.map(String::into_bytes)).collect(),
                    None,
                    &mut outcomes,
                );
            }
        }
        assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    }

    #[test]
    fn empty_and_all_null_samples_keep_the_dictionary() {
        let empty: ArrayRef = Arc::new(Int64Array::from(Vec::<i64>::new()));
        assert_eq!(sample_pays(&empty), Some(true));
        let nulls: ArrayRef = Arc::new(StringArray::from(vec![None::<&str>; 10]));
        assert_eq!(sample_pays(&nulls), Some(true));
    }
}
