//! Which columns should skip dictionary encoding, judged on the first batch.
//!
//! parquet-rs keeps a column dictionary-encoded until the dictionary page fills
//! up, which for high-cardinality columns (ids, random text, measurements) costs
//! time and space for nothing. parquet-java checks after the first page whether
//! `dictionary + indices < plain` and falls back otherwise; floe makes the same
//! call on a sample of the first batch and writes such columns plain from the start.

use std::collections::HashSet;

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
    if let Some(stats) = sample_stats(array) {
        if !stats.dictionary_pays() {
            out.push(ColumnPath::new(path));
        }
    }
}

/// Plain size, distinct count and distinct size of a sample's non-null values.
struct SampleStats {
    values: usize,
    plain_bytes: usize,
    distinct: usize,
    distinct_bytes: usize,
}

impl SampleStats {
    /// Dictionary page plus bit-packed indices, against plain values.
    fn dictionary_pays(&self) -> bool {
        if self.values == 0 {
            return true;
        }
        let index_bits = usize::BITS - self.distinct.max(1).leading_zeros();
        let indices = (self.values * index_bits as usize).div_ceil(8);
        self.distinct_bytes + indices < self.plain_bytes
    }
}

fn sample_stats(array: &ArrayRef) -> Option<SampleStats> {
    match array.data_type() {
        DataType::Int32 => Some(fixed::<Int32Type>(array)),
        DataType::Int64 => Some(fixed::<Int64Type>(array)),
        DataType::Float32 => Some(fixed::<Float32Type>(array)),
        DataType::Float64 => Some(fixed::<Float64Type>(array)),
        DataType::Date32 => Some(fixed::<Date32Type>(array)),
        DataType::Decimal128(_, _) => Some(fixed::<Decimal128Type>(array)),
        DataType::Time64(arrow_schema::TimeUnit::Microsecond) => {
            Some(fixed::<Time64MicrosecondType>(array))
        }
        DataType::Timestamp(unit, _) => Some(match unit {
            arrow_schema::TimeUnit::Second => fixed::<TimestampSecondType>(array),
            arrow_schema::TimeUnit::Millisecond => fixed::<TimestampMillisecondType>(array),
            arrow_schema::TimeUnit::Microsecond => fixed::<TimestampMicrosecondType>(array),
            arrow_schema::TimeUnit::Nanosecond => fixed::<TimestampNanosecondType>(array),
        }),
        DataType::Utf8 => Some(bytes(
            array
                .as_string::<i32>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
        )),
        DataType::LargeUtf8 => Some(bytes(
            array
                .as_string::<i64>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
        )),
        DataType::Binary => Some(bytes(array.as_binary::<i32>().iter())),
        DataType::LargeBinary => Some(bytes(array.as_binary::<i64>().iter())),
        DataType::FixedSizeBinary(_) => Some(bytes(array.as_fixed_size_binary().iter())),
        _ => None,
    }
}

fn fixed<T: ArrowPrimitiveType>(array: &ArrayRef) -> SampleStats {
    let values = array.as_primitive::<T>();
    let width = std::mem::size_of::<T::Native>();
    // Keyed by the value's bytes (floats by bit pattern), as the dictionary sees them.
    let mut seen: HashSet<[u8; 16]> = HashSet::with_capacity(values.len());
    let mut count = 0;
    for v in values.iter().flatten() {
        let raw = v.to_byte_slice();
        let mut key = [0u8; 16];
        key[..raw.len()].copy_from_slice(raw);
        seen.insert(key);
        count += 1;
    }
    SampleStats {
        values: count,
        plain_bytes: count * width,
        distinct: seen.len(),
        distinct_bytes: seen.len() * width,
    }
}

fn bytes<'a>(values: impl Iterator<Item = Option<&'a [u8]>>) -> SampleStats {
    let mut seen: HashSet<&[u8]> = HashSet::new();
    let mut count = 0;
    let mut plain = 0;
    let mut distinct_bytes = 0;
    for v in values.flatten() {
        count += 1;
        plain += v.len() + 4;
        if seen.insert(v) {
            distinct_bytes += v.len() + 4;
        }
    }
    SampleStats {
        values: count,
        plain_bytes: plain,
        distinct: seen.len(),
        distinct_bytes,
    }
}
