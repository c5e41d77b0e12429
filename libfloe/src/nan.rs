//! NaN counts per float/double leaf, which Parquet statistics do not carry but
//! Iceberg metrics need, and which signs of zero the leaf holds: Parquet statistics
//! always give -0.0 for a zero minimum and 0.0 for a zero maximum, while Iceberg's
//! writer keeps the zero it met (its bounds order -0.0 below 0.0). Like Iceberg's own
//! writer, only leaves at the top level or inside structs are counted (Iceberg keeps no
//! metrics under lists and maps).

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Fields, Schema};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct NanCount {
    /// The leaf's path (struct field names).
    pub path: Vec<String>,
    /// Its `PARQUET:field_id`, when the schema has one.
    pub field_id: Option<i32>,
    pub count: u64,
    /// Whether a valid -0.0 was written.
    pub negative_zero: bool,
    /// Whether a valid 0.0 was written.
    pub positive_zero: bool,
}

pub struct NanCounter {
    leaves: Vec<(Vec<usize>, NanCount)>,
}

impl NanCounter {
    pub fn new(schema: &Schema) -> Self {
        let mut leaves = Vec::new();
        collect(
            schema.fields(),
            &mut Vec::new(),
            &mut Vec::new(),
            &mut leaves,
        );
        Self { leaves }
    }

    /// Adds the NaNs of one batch: values that are valid and whose parents are valid.
    pub fn count(&mut self, batch: &RecordBatch) {
        for (indices, leaf) in &mut self.leaves {
            let mut array: ArrayRef = batch.column(indices[0]).clone();
            let mut nulls: Option<NullBuffer> = array.logical_nulls();
            for &i in &indices[1..] {
                array = array.as_struct().column(i).clone();
                nulls = NullBuffer::union(nulls.as_ref(), array.logical_nulls().as_ref());
            }
            match array.data_type() {
                DataType::Float32 => {
                    scan(array.as_primitive::<Float32Type>().values(), &nulls, leaf)
                }
                _ => scan(array.as_primitive::<Float64Type>().values(), &nulls, leaf),
            }
        }
    }

    pub fn counts(&self) -> Vec<NanCount> {
        self.leaves.iter().map(|(_, c)| c.clone()).collect()
    }
}

/// Adds the NaNs among the valid values and notes the signs of their zeros. NaN is rare, so the
/// validity bit is only read for NaNs, and the common pass is a branch-free compare-and-add over
/// the values; a sign of zero once seen is not looked for again.
fn scan<T: num_like::Float>(values: &[T], nulls: &Option<NullBuffer>, leaf: &mut NanCount) {
    let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
    leaf.count += match nulls {
        None => values.iter().map(|v| u64::from(v.is_nan())).sum(),
        Some(n) => values
            .iter()
            .enumerate()
            .filter(|(i, v)| v.is_nan() && n.is_valid(*i))
            .count() as u64,
    };
    if !leaf.negative_zero {
        leaf.negative_zero = values
            .iter()
            .enumerate()
            .any(|(i, v)| v.is_negative_zero() && valid(i));
    }
    if !leaf.positive_zero {
        leaf.positive_zero = values
            .iter()
            .enumerate()
            .any(|(i, v)| v.is_positive_zero() && valid(i));
    }
}

mod num_like {
    pub trait Float: Copy {
        fn is_nan(&self) -> bool;
        fn is_negative_zero(&self) -> bool;
        fn is_positive_zero(&self) -> bool;
    }
    impl Float for f32 {
        fn is_nan(&self) -> bool {
            f32::is_nan(*self)
        }
        fn is_negative_zero(&self) -> bool {
            self.to_bits() == (-0.0f32).to_bits()
        }
        fn is_positive_zero(&self) -> bool {
            self.to_bits() == 0
        }
    }
    impl Float for f64 {
        fn is_nan(&self) -> bool {
            f64::is_nan(*self)
        }
        fn is_negative_zero(&self) -> bool {
            self.to_bits() == (-0.0f64).to_bits()
        }
        fn is_positive_zero(&self) -> bool {
            self.to_bits() == 0
        }
    }
}

fn collect(
    fields: &Fields,
    indices: &mut Vec<usize>,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<usize>, NanCount)>,
) {
    for (i, f) in fields.iter().enumerate() {
        indices.push(i);
        path.push(f.name().clone());
        match f.data_type() {
            DataType::Float32 | DataType::Float64 => out.push((
                indices.clone(),
                NanCount {
                    path: path.clone(),
                    field_id: f
                        .metadata()
                        .get(parquet::arrow::PARQUET_FIELD_ID_META_KEY)
                        .and_then(|id| id.parse().ok()),
                    count: 0,
                    negative_zero: false,
                    positive_zero: false,
                },
            )),
            DataType::Struct(children) => collect(children, indices, path, out),
            _ => {}
        }
        indices.pop();
        path.pop();
    }
}
