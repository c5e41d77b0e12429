//! A partition's rows that are all null in a column get a slice of a null array the
//! partitioner keeps, not a take (`Partitioner::split`). The groups must be the rows a take
//! gives, and the files written from them byte for byte the files written from taken rows.

mod common;

use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, StructArray, UInt32Array,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use arrow_select::take::take_record_batch;
use common::{with_id, write_in_memory};
use floe::partition::{PartitionSpec, Partitioner};
use floe::WriterConfig;

/// Two record kinds in nullable structs, as Nexmark's: kind 0 fills `a`, kind 1 fills `b`,
/// kind 2 neither. `a.x` is required inside the nullable struct. A null struct's children are
/// null too, as floe's decoder leaves them (values hidden under a null parent would be seen by
/// the writer's dictionary sampling, so a take could encode the column differently).
fn schema() -> SchemaRef {
    let a = Fields::from(vec![
        with_id(Field::new("x", DataType::Int64, false), 4),
        with_id(Field::new("s", DataType::Utf8, true), 5),
    ]);
    let b = Fields::from(vec![with_id(Field::new("y", DataType::Utf8, true), 6)]);
    Arc::new(Schema::new(vec![
        with_id(Field::new("kind", DataType::Int32, false), 1),
        with_id(Field::new("a", DataType::Struct(a), true), 2),
        with_id(Field::new("b", DataType::Struct(b), true), 3),
        with_id(Field::new("note", DataType::Utf8, true), 7),
    ]))
}

fn batch(schema: &SchemaRef, rows: usize, seed: u64) -> RecordBatch {
    let kind: Vec<i32> = (0..rows as u64)
        .map(|i| ((i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed) >> 40) as i32 % 3)
        .collect();
    let DataType::Struct(a_fields) = schema.field(1).data_type().clone() else {
        unreachable!()
    };
    let DataType::Struct(b_fields) = schema.field(2).data_type().clone() else {
        unreachable!()
    };
    let a = StructArray::try_new(
        a_fields,
        vec![
            Arc::new(Int64Array::from_iter(
                (0..rows).map(|i| (kind[i] == 0).then_some(i as i64 * 7)),
            )) as ArrayRef,
            Arc::new(StringArray::from_iter((0..rows).map(|i| {
                (kind[i] == 0 && i % 5 != 0).then(|| format!("s{}", i % 11))
            }))),
        ],
        Some(NullBuffer::from_iter(kind.iter().map(|&k| k == 0))),
    )
    .unwrap();
    let b = StructArray::try_new(
        b_fields,
        vec![Arc::new(StringArray::from_iter(
            kind.iter().map(|&k| (k == 1).then(|| "y".repeat(3))),
        )) as ArrayRef],
        Some(NullBuffer::from_iter(kind.iter().map(|&k| k == 1))),
    )
    .unwrap();
    // Null everywhere: every group takes the kept null array.
    let note = StringArray::from(vec![None::<&str>; rows]);
    RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int32Array::from(kind)),
            Arc::new(a),
            Arc::new(b),
            Arc::new(note),
        ],
    )
    .unwrap()
}

#[test]
fn null_columns_of_a_group_write_the_file_a_take_writes() {
    let schema = schema();
    let spec = PartitionSpec::from_json(
        br#"{"version":1,"fields":[{"name":"kind","source_id":1,"transform":"identity"}]}"#,
    )
    .unwrap();
    let partitioner = Partitioner::new(&schema, &spec).unwrap();
    // Batches of changing sizes: the kept null arrays are sliced shorter and made anew longer.
    for (rows, seed) in [(3000, 1), (500, 2), (9000, 3), (10, 4)] {
        let input = batch(&schema, rows, seed);
        let split = partitioner.split(&input).unwrap();
        let order = UInt32Array::from(split.order.clone().expect("several kinds: reordered"));
        assert_eq!(split.groups.len(), 3, "{rows} rows");
        for (g, &(offset, length)) in split.ranges.iter().enumerate() {
            let group = split.group(g).unwrap();
            let taken = take_record_batch(&input, &order.slice(offset, length)).unwrap();
            assert_eq!(group, &taken, "group {g} of {rows} rows");
            // The kind that fills neither struct: both null, the kept arrays' slices.
            let kind = group
                .column(0)
                .as_any()
                .downcast_ref::<Int32Array>()
                .unwrap()
                .value(0);
            if kind == 2 {
                assert_eq!(group.column(1).null_count(), length);
                assert_eq!(group.column(2).null_count(), length);
            }
            let config = WriterConfig::default();
            let (from_group, _) =
                write_in_memory(schema.clone(), &config, std::slice::from_ref(group));
            let (from_take, _) = write_in_memory(schema.clone(), &config, &[taken]);
            assert_eq!(
                from_group, from_take,
                "group {g} of {rows} rows: the same file"
            );
        }
    }
}
