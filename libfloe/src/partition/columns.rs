//! Partition transforms applied to whole Arrow columns, value for value equal to
//! the scalar functions in [`crate::transforms`] (and so to Iceberg Java). Nulls
//! stay null under every transform.
//!
//! Result types: bucket, year, month, day and hour give `Int32` (day counts days
//! since the epoch, the int behind Iceberg's `date` result); identity and truncate
//! keep the source type; void gives an all-null column of the source type.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Int32Type, Int64Type, Time64MicrosecondType,
    TimestampMicrosecondType, TimestampNanosecondType,
};
use arrow_array::{
    new_null_array, Array, ArrayRef, BinaryArray, Int32Array, LargeBinaryArray, LargeStringArray,
    StringArray,
};
use arrow_schema::{DataType, TimeUnit};

use super::Transform;
use crate::error::{FloeError, Result};
use crate::transforms::{
    bucket_of, day_from_micros, hash_bytes, hash_decimal, hash_long, hash_timestamp_nanos,
    hour_from_micros, month_from_days, month_from_micros, year_from_days, year_from_micros,
};

/// Applies `transform` to `source`; `column` names the source in error messages.
pub fn apply(transform: Transform, source: &ArrayRef, column: &str) -> Result<ArrayRef> {
    let result = match transform {
        Transform::Identity if !source.data_type().is_nested() => Some(source.clone()),
        Transform::Void => Some(new_null_array(source.data_type(), source.len())),
        Transform::Bucket(n) => bucket(source, n),
        Transform::Truncate(width) => truncate(source, width),
        Transform::Year => temporal(source, year_from_days, year_from_micros),
        Transform::Month => temporal(source, month_from_days, month_from_micros),
        Transform::Day => temporal(source, |days| days, day_from_micros),
        Transform::Hour => match source.data_type() {
            DataType::Timestamp(..) => temporal(source, |_| unreachable!(), hour_from_micros),
            _ => None,
        },
        Transform::Identity => None,
    };
    result.ok_or_else(|| {
        FloeError::invalid_argument(format!(
            "transform {transform:?} does not apply to column '{column}' of type {}",
            source.data_type()
        ))
    })
}

/// The Arrow type `transform` produces from a `source` column.
pub fn result_type(transform: Transform, source: &DataType) -> DataType {
    match transform {
        Transform::Identity | Transform::Truncate(_) | Transform::Void => source.clone(),
        _ => DataType::Int32,
    }
}

fn bucket(source: &ArrayRef, n: u32) -> Option<ArrayRef> {
    let to_bucket = |hash: i32| bucket_of(hash, n);
    let long = |v: i64| to_bucket(hash_long(v));
    let buckets: Int32Array = match source.data_type() {
        DataType::Int32 => source.as_primitive::<Int32Type>().unary(|v| long(v as i64)),
        DataType::Date32 => source
            .as_primitive::<Date32Type>()
            .unary(|v| long(v as i64)),
        DataType::Int64 => source.as_primitive::<Int64Type>().unary(long),
        DataType::Time64(TimeUnit::Microsecond) => {
            source.as_primitive::<Time64MicrosecondType>().unary(long)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => source
            .as_primitive::<TimestampMicrosecondType>()
            .unary(long),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => source
            .as_primitive::<TimestampNanosecondType>()
            .unary(|v| to_bucket(hash_timestamp_nanos(v))),
        DataType::Decimal128(..) => source
            .as_primitive::<Decimal128Type>()
            .unary(|v| to_bucket(hash_decimal(v))),
        DataType::Utf8 => hash_each(
            source
                .as_string::<i32>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
            n,
        ),
        DataType::LargeUtf8 => hash_each(
            source
                .as_string::<i64>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
            n,
        ),
        DataType::Binary => hash_each(source.as_binary::<i32>().iter(), n),
        DataType::LargeBinary => hash_each(source.as_binary::<i64>().iter(), n),
        DataType::FixedSizeBinary(_) => hash_each(source.as_fixed_size_binary().iter(), n),
        _ => return None,
    };
    Some(Arc::new(buckets))
}

fn hash_each<'a>(values: impl Iterator<Item = Option<&'a [u8]>>, n: u32) -> Int32Array {
    values
        .map(|v| v.map(|bytes| bucket_of(hash_bytes(bytes), n)))
        .collect()
}

fn truncate(source: &ArrayRef, width: u32) -> Option<ArrayRef> {
    let w = width as usize;
    Some(match source.data_type() {
        DataType::Int32 => {
            let width = i32::try_from(width).ok()?;
            Arc::new(
                source
                    .as_primitive::<Int32Type>()
                    .unary::<_, Int32Type>(|v| {
                        v.wrapping_sub((v % width).wrapping_add(width) % width)
                    }),
            )
        }
        DataType::Int64 => {
            let width = width as i64;
            Arc::new(
                source
                    .as_primitive::<Int64Type>()
                    .unary::<_, Int64Type>(|v| {
                        v.wrapping_sub((v % width).wrapping_add(width) % width)
                    }),
            )
        }
        DataType::Decimal128(..) => {
            let width = width as i128;
            Arc::new(
                source
                    .as_primitive::<Decimal128Type>()
                    .unary::<_, Decimal128Type>(|v| v - v.rem_euclid(width))
                    .with_data_type(source.data_type().clone()),
            )
        }
        DataType::Utf8 => Arc::new(
            source
                .as_string::<i32>()
                .iter()
                .map(|v| v.map(|s| crate::transforms::truncate_str(s, w)))
                .collect::<StringArray>(),
        ),
        DataType::LargeUtf8 => Arc::new(
            source
                .as_string::<i64>()
                .iter()
                .map(|v| v.map(|s| crate::transforms::truncate_str(s, w)))
                .collect::<LargeStringArray>(),
        ),
        DataType::Binary => Arc::new(
            source
                .as_binary::<i32>()
                .iter()
                .map(|v| v.map(|b| crate::transforms::truncate_bytes(b, w)))
                .collect::<BinaryArray>(),
        ),
        DataType::LargeBinary => Arc::new(
            source
                .as_binary::<i64>()
                .iter()
                .map(|v| v.map(|b| crate::transforms::truncate_bytes(b, w)))
                .collect::<LargeBinaryArray>(),
        ),
        _ => return None,
    })
}

/// year/month/day/hour: `from_days` for dates, `from_micros` for timestamps, as Iceberg Java
/// computes them (see [`java_micros`]; nanosecond timestamps floor to micros after that, and
/// floor division composes).
fn temporal(
    source: &ArrayRef,
    from_days: impl Fn(i32) -> i32,
    from_micros: impl Fn(i64) -> i32,
) -> Option<ArrayRef> {
    let result: Int32Array = match source.data_type() {
        DataType::Date32 => source.as_primitive::<Date32Type>().unary(from_days),
        DataType::Timestamp(TimeUnit::Microsecond, _) => source
            .as_primitive::<TimestampMicrosecondType>()
            .unary(|v| from_micros(java_micros(v))),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => source
            .as_primitive::<TimestampNanosecondType>()
            .unary(|v| from_micros(java_nanos(v).div_euclid(1000))),
        _ => return None,
    };
    Some(Arc::new(result))
}

/// The instant Iceberg Java's timestamp transforms floor (`DateTimeUtil.convertMicros`): the
/// timestamp itself, except before 1970 when its fraction of a second is the second's last micro
/// (`.999999`): Java then takes the whole second it is in as one second earlier, and a timestamp
/// that is the first second of an hour, day, month or year lands in the unit before (the
/// spec's floor would say the unit itself). Spark's and Flink's writers partition so; matching
/// them keeps a row, and the deletes of its key, in the partition their files are in.
fn java_micros(micros: i64) -> i64 {
    if micros < 0 && micros.rem_euclid(1_000_000) == 999_999 {
        micros.saturating_sub(1_000_000)
    } else {
        micros
    }
}

/// As [`java_micros`] for nanoseconds (`DateTimeUtil.convertNanos`): the last nano of a second.
fn java_nanos(nanos: i64) -> i64 {
    if nanos < 0 && nanos.rem_euclid(1_000_000_000) == 999_999_999 {
        nanos.saturating_sub(1_000_000_000)
    } else {
        nanos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Date32Array, Decimal128Array, Int64Array, TimestampNanosecondArray};

    fn ints(array: &ArrayRef) -> Vec<Option<i32>> {
        array.as_primitive::<Int32Type>().iter().collect()
    }

    #[test]
    fn bucket_matches_the_scalar_hash_and_keeps_nulls() {
        let source: ArrayRef = Arc::new(Int64Array::from(vec![Some(34), None, Some(-7)]));
        let buckets = apply(Transform::Bucket(16), &source, "id").unwrap();
        assert_eq!(
            ints(&buckets),
            [
                Some(bucket_of(hash_long(34), 16)),
                None,
                Some(bucket_of(hash_long(-7), 16))
            ]
        );
        let strings: ArrayRef = Arc::new(StringArray::from(vec![Some("iceberg"), None]));
        let buckets = apply(Transform::Bucket(1000), &strings, "s").unwrap();
        assert_eq!(ints(&buckets), [Some(1_210_000_089 % 1000), None]);
    }

    #[test]
    fn truncate_keeps_the_source_type() {
        let source: ArrayRef = Arc::new(Int32Array::from(vec![1, -1, i32::MIN]));
        let truncated = apply(Transform::Truncate(10), &source, "n").unwrap();
        assert_eq!(
            ints(&truncated),
            [Some(0), Some(-10), Some(i32::MIN.wrapping_sub(2))]
        );
        let decimals: ArrayRef = Arc::new(
            Decimal128Array::from(vec![1065, -1])
                .with_precision_and_scale(9, 2)
                .unwrap(),
        );
        let truncated = apply(Transform::Truncate(50), &decimals, "d").unwrap();
        assert_eq!(truncated.data_type(), &DataType::Decimal128(9, 2));
        let values: Vec<_> = truncated.as_primitive::<Decimal128Type>().values().to_vec();
        assert_eq!(values, [1050, -50]);
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["東京😀x", "ab"]));
        let truncated = apply(Transform::Truncate(3), &strings, "s").unwrap();
        let values: Vec<_> = truncated.as_string::<i32>().iter().flatten().collect();
        assert_eq!(values, ["東京😀", "ab"]);
    }

    #[test]
    fn temporal_transforms_on_dates_and_nanos() {
        let dates: ArrayRef = Arc::new(Date32Array::from(vec![-1, 17_486]));
        assert_eq!(
            ints(&apply(Transform::Month, &dates, "d").unwrap()),
            [Some(-1), Some(574)]
        );
        assert_eq!(
            ints(&apply(Transform::Day, &dates, "d").unwrap()),
            [Some(-1), Some(17_486)]
        );
        assert!(
            apply(Transform::Hour, &dates, "d").is_err(),
            "hour needs a time of day"
        );
        let nanos: ArrayRef = Arc::new(TimestampNanosecondArray::from(vec![
            -1,
            1_510_871_468_000_000_999,
        ]));
        assert_eq!(
            ints(&apply(Transform::Hour, &nanos, "t").unwrap()),
            [Some(-1), Some(419_686)]
        );
    }

    /// Iceberg Java's values (`Transforms.hour/day/month/year` of 1.10 and 1.11) at the last
    /// micro (nano) of the first second of a unit before 1970, and around it.
    #[test]
    fn temporal_transforms_match_iceberg_java_before_1970() {
        use arrow_array::TimestampMicrosecondArray;
        const HOUR: i64 = 3_600_000_000;
        const DAY: i64 = 24 * HOUR;
        let cases: [(Transform, i64, i32); 10] = [
            (Transform::Hour, -HOUR + 999_999, -2), // 1969-12-31T23:00:00.999999
            (Transform::Hour, -HOUR + 999_998, -1),
            (Transform::Hour, -HOUR + 1_999_999, -1), // the second after: floor again
            (Transform::Hour, -HOUR, -1),
            (Transform::Hour, -HOUR - 1, -2),
            (Transform::Day, -DAY + 999_999, -2), // 1969-12-31T00:00:00.999999
            (Transform::Day, -1, -1),
            (Transform::Month, -31 * DAY + 999_999, -2), // 1969-12-01T00:00:00.999999
            (Transform::Year, -365 * DAY + 999_999, -2), // 1969-01-01T00:00:00.999999
            (Transform::Year, -365 * DAY + 1_000_000, -1),
        ];
        for (transform, micros, java) in cases {
            let source: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![micros]));
            let result = ints(&apply(transform, &source, "t").unwrap());
            assert_eq!(result, [Some(java)], "{transform:?} of {micros} micros");
            let nanos: ArrayRef = Arc::new(TimestampNanosecondArray::from(vec![
                micros * 1000 + 999, // the last nano of that micro
            ]));
            let nano_micros = micros * 1000 + 999;
            let expected = if nano_micros.rem_euclid(1_000_000_000) == 999_999_999 {
                java
            } else {
                apply_floor(transform, micros)
            };
            assert_eq!(
                ints(&apply(transform, &nanos, "t").unwrap()),
                [Some(expected)],
                "{nano_micros} nanos"
            );
        }
    }

    /// The spec's floor value, for nanos whose last micro is not the quirk's.
    fn apply_floor(transform: Transform, micros: i64) -> i32 {
        match transform {
            Transform::Hour => hour_from_micros(micros),
            Transform::Day => day_from_micros(micros),
            Transform::Month => month_from_micros(micros),
            _ => year_from_micros(micros),
        }
    }

    #[test]
    fn inapplicable_transforms_name_the_column() {
        let floats: ArrayRef = Arc::new(arrow_array::Float64Array::from(vec![1.0]));
        let err = apply(Transform::Bucket(4), &floats, "price").unwrap_err();
        assert!(err.to_string().contains("'price'"), "{err}");
        assert!(err.to_string().contains("Float64"), "{err}");
    }
}
