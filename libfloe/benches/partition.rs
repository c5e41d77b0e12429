//! Criterion benchmarks of the partitioner (`floe::partition`) on the corpora of
//! `scripts/bench-decode-rust`, decoded by floe into batches of 8192 rows:
//!
//!   FLOE_CORPUS_DIR=target/bench-corpus cargo bench --bench partition
//!
//! Each `partition_*` group splits every batch by one partition spec two ways:
//! `floe_split` is `Partitioner::split`; `arrow_row` is the same grouping done with
//! arrow-row (a `RowConverter` over the transformed key columns, a `HashMap` from row
//! bytes to the rows' indices, then one `take` of the batch in group order), on the same
//! transformed columns. `transform_only` times the transforms both make, `take_only`
//! arrow-row's regrouping `take` (floe's is the same, except that a column some group is all
//! null in is regrouped group by group, those groups sliced from a kept null array). The `transforms` group times floe's column
//! transforms by themselves, on the values the scratch comparison with iceberg-rust uses
//! (docs/design/native-decoder-and-partitioner.md). A missing corpus file skips its
//! benchmarks.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{make_array, Array, ArrayRef, RecordBatch, UInt32Array};
use arrow_buffer::NullBuffer;
use arrow_row::{Row, RowConverter, SortField};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow_select::take::{take, take_record_batch};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use floe::json::{DecoderConfig, JsonDecoder};
use floe::partition::columns::{apply, result_type};
use floe::partition::{PartitionSpec, Partitioner, Transform};

const BATCH: usize = 8192;

fn with_id(field: Field, id: i32) -> Field {
    field.with_metadata(HashMap::from([(
        "PARQUET:field_id".to_string(),
        id.to_string(),
    )]))
}

/// The bid messages' schema with the field ids of the corpus's Iceberg schema.
fn bid_schema() -> SchemaRef {
    let bid = vec![
        with_id(Field::new("auction", DataType::Int64, false), 23),
        with_id(Field::new("bidder", DataType::Int64, false), 24),
        with_id(Field::new("price", DataType::Int64, false), 25),
        with_id(Field::new("channel", DataType::Utf8, true), 26),
        with_id(Field::new("url", DataType::Utf8, true), 27),
        with_id(
            Field::new(
                "dateTime",
                DataType::Timestamp(TimeUnit::Microsecond, None),
                false,
            ),
            28,
        ),
        with_id(Field::new("extra", DataType::Utf8, true), 29),
    ];
    Arc::new(Schema::new(vec![
        with_id(Field::new("event_type", DataType::Int32, false), 1),
        with_id(Field::new("bid", DataType::Struct(bid.into()), true), 4),
    ]))
}

/// All Nexmark events (a person, an auction or a bid in nullable structs), with the field
/// ids of the corpus's Iceberg schema.
fn nexmark_schema() -> SchemaRef {
    let ts = || DataType::Timestamp(TimeUnit::Microsecond, None);
    let mut id = 4;
    let mut next = |field: Field| {
        id += 1;
        with_id(field, id)
    };
    let mut person = vec![next(Field::new("id", DataType::Int64, true))];
    for name in ["name", "emailAddress", "creditCard", "city", "state"] {
        person.push(next(Field::new(name, DataType::Utf8, true)));
    }
    person.push(next(Field::new("dateTime", ts(), true)));
    person.push(next(Field::new("extra", DataType::Utf8, true)));
    let auction = vec![
        next(Field::new("id", DataType::Int64, true)),
        next(Field::new("itemName", DataType::Utf8, true)),
        next(Field::new("description", DataType::Utf8, true)),
        next(Field::new("initialBid", DataType::Int64, true)),
        next(Field::new("reserve", DataType::Int64, true)),
        next(Field::new("dateTime", ts(), true)),
        next(Field::new("expires", ts(), true)),
        next(Field::new("seller", DataType::Int64, true)),
        next(Field::new("category", DataType::Int64, true)),
        next(Field::new("extra", DataType::Utf8, true)),
    ];
    let DataType::Struct(bid) = bid_schema().field(1).data_type().clone() else {
        unreachable!("bid is a struct")
    };
    Arc::new(Schema::new(vec![
        with_id(Field::new("event_type", DataType::Int32, false), 1),
        with_id(
            Field::new("person", DataType::Struct(person.into()), true),
            2,
        ),
        with_id(
            Field::new("auction", DataType::Struct(auction.into()), true),
            3,
        ),
        with_id(Field::new("bid", DataType::Struct(bid), true), 4),
    ]))
}

fn synthetic_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        with_id(Field::new("id", DataType::Utf8, false), 1),
        with_id(Field::new("user_id", DataType::Int64, false), 2),
        with_id(Field::new("event_type", DataType::Utf8, false), 3),
        with_id(Field::new("value", DataType::Float64, false), 4),
        with_id(Field::new("info", DataType::Utf8, true), 5),
        with_id(
            Field::new(
                "ts",
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                false,
            ),
            6,
        ),
    ]))
}

/// The corpus `name` decoded by floe into batches of [`BATCH`] rows.
fn decoded(name: &str, schema: &SchemaRef) -> Option<Vec<RecordBatch>> {
    let dir = std::env::var_os("FLOE_CORPUS_DIR").map(PathBuf::from)?;
    let text = std::fs::read(dir.join(name)).ok()?;
    let messages: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut decoder = JsonDecoder::new(schema.clone(), DecoderConfig::default()).unwrap();
    let batches = messages
        .chunks(BATCH)
        .map(|chunk| {
            let out = decoder.decode(chunk.iter().copied(), false).unwrap();
            assert!(out.rejects.is_empty(), "{:?}", out.rejects.first());
            out.batch
        })
        .collect();
    Some(batches)
}

/// The column at `path` (names through structs); under a null struct a value is null.
fn column_at(batch: &RecordBatch, path: &[&str]) -> ArrayRef {
    let mut array = batch.column_by_name(path[0]).unwrap().clone();
    for name in &path[1..] {
        let parent = array.as_struct();
        let child = parent.column_by_name(name).unwrap().clone();
        let nulls = NullBuffer::union(parent.nulls(), child.nulls());
        array = make_array(child.to_data().into_builder().nulls(nulls).build().unwrap());
    }
    array
}

/// One partition field: the source column's path and id, and the transform.
#[derive(Clone, Copy)]
struct Key {
    path: &'static [&'static str],
    source_id: i32,
    transform: &'static str,
}

fn transformed(batch: &RecordBatch, keys: &[Key]) -> Vec<ArrayRef> {
    keys.iter()
        .map(|k| {
            let t = Transform::parse(k.transform).unwrap();
            apply(t, &column_at(batch, k.path), k.path[k.path.len() - 1]).unwrap()
        })
        .collect()
}

/// What `Partitioner::split` returns, as the arrow-row grouping builds it.
struct RowSplit {
    batch: RecordBatch,
    partitions: Vec<ArrayRef>,
    ranges: Vec<(usize, usize)>,
}

/// Groups `batch`'s rows by the tuple of their transformed key values with arrow-row:
/// groups in order of their first row, rows in input order within a group, one `take`
/// (none when there is only one group), partition values from each group's first row.
fn arrow_row_split(converter: &RowConverter, batch: &RecordBatch, keys: &[Key]) -> RowSplit {
    let values = transformed(batch, keys);
    let rows = converter.convert_columns(&values).unwrap();
    let mut group_of: HashMap<Row<'_>, usize> = HashMap::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let group = *group_of.entry(row).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[group].push(i as u32);
    }
    let firsts = UInt32Array::from_iter_values(members.iter().map(|m| m[0]));
    let partitions = values
        .iter()
        .map(|v| take(v.as_ref(), &firsts, None).unwrap())
        .collect();
    if members.len() <= 1 {
        let rows = batch.num_rows();
        return RowSplit {
            batch: batch.clone(),
            partitions,
            ranges: if rows == 0 { vec![] } else { vec![(0, rows)] },
        };
    }
    let mut ranges = Vec::with_capacity(members.len());
    let mut order = Vec::with_capacity(batch.num_rows());
    for m in &members {
        ranges.push((order.len(), m.len()));
        order.extend_from_slice(m);
    }
    let batch = take_record_batch(batch, &UInt32Array::from(order)).unwrap();
    RowSplit {
        batch,
        partitions,
        ranges,
    }
}

fn bench_split(c: &mut Criterion, name: &str, batches: &[RecordBatch], keys: &[Key]) {
    let schema = batches[0].schema();
    let spec = serde_json::json!({
        "version": 1,
        "fields": keys.iter().map(|k| serde_json::json!({
            "name": format!("p{}", k.source_id),
            "source_id": k.source_id,
            "transform": k.transform,
        })).collect::<Vec<_>>(),
    });
    let spec = PartitionSpec::from_json(spec.to_string().as_bytes()).unwrap();
    let partitioner = Partitioner::new(&schema, &spec).unwrap();
    let sort_fields = keys
        .iter()
        .map(|k| {
            let source = column_at(&batches[0], k.path);
            let t = Transform::parse(k.transform).unwrap();
            SortField::new(result_type(t, source.data_type()))
        })
        .collect();
    let converter = RowConverter::new(sort_fields).unwrap();

    // Both give the same groups, rows and partition values.
    let mut groups = 0;
    let mut orders = Vec::with_capacity(batches.len());
    for batch in batches {
        let floe = partitioner.split(batch).unwrap();
        let rows = arrow_row_split(&converter, batch, keys);
        assert_eq!(floe.ranges, rows.ranges);
        for (group, &(offset, length)) in floe.groups.iter().zip(&floe.ranges) {
            assert_eq!(*group, rows.batch.slice(offset, length));
        }
        assert_eq!(floe.partitions.columns(), rows.partitions.as_slice());
        groups += floe.ranges.len();
        orders.push(floe.order.map(UInt32Array::from));
    }
    eprintln!(
        "{name}: {} batches, {} groups in all ({:.1} per batch)",
        batches.len(),
        groups,
        groups as f64 / batches.len() as f64
    );

    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.throughput(Throughput::Elements(rows as u64));
    group.bench_function("floe_split", |b| {
        b.iter(|| {
            batches
                .iter()
                .map(|batch| partitioner.split(batch).unwrap().len())
                .sum::<usize>()
        })
    });
    group.bench_function("arrow_row", |b| {
        b.iter(|| {
            batches
                .iter()
                .map(|batch| arrow_row_split(&converter, batch, keys).ranges.len())
                .sum::<usize>()
        })
    });
    group.bench_function("transform_only", |b| {
        b.iter(|| {
            batches
                .iter()
                .map(|batch| transformed(batch, keys).len())
                .sum::<usize>()
        })
    });
    // arrow-row's one regrouping `take` (none for a batch that is all one partition).
    group.bench_function("take_only", |b| {
        b.iter(|| {
            batches
                .iter()
                .zip(&orders)
                .filter_map(|(batch, order)| {
                    order
                        .as_ref()
                        .map(|order| take_record_batch(batch, order).unwrap().num_rows())
                })
                .sum::<usize>()
        })
    });
    group.finish();
}

fn bench_transforms(
    c: &mut Criterion,
    bids: Option<&[RecordBatch]>,
    synthetic: Option<&[RecordBatch]>,
) {
    let mut cases: Vec<(&str, &str, Vec<ArrayRef>)> = Vec::new();
    if let Some(bids) = bids {
        let auctions = bids
            .iter()
            .map(|b| column_at(b, &["bid", "auction"]))
            .collect();
        cases.push(("bucket16_long", "bucket[16]", auctions));
    }
    if let Some(synthetic) = synthetic {
        let column = |name: &str| -> Vec<ArrayRef> {
            synthetic.iter().map(|b| column_at(b, &[name])).collect()
        };
        cases.push(("bucket16_string", "bucket[16]", column("id")));
        cases.push(("day_timestamptz", "day", column("ts")));
        cases.push(("truncate4_string", "truncate[4]", column("id")));
    }
    let mut group = c.benchmark_group("transforms");
    group.sample_size(20);
    for (name, transform, arrays) in &cases {
        let t = Transform::parse(transform).unwrap();
        let values: usize = arrays.iter().map(|a| a.len()).sum();
        group.throughput(Throughput::Elements(values as u64));
        group.bench_function(*name, |b| {
            b.iter(|| {
                arrays
                    .iter()
                    .map(|a| apply(t, a, "c").unwrap().len())
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let bids = decoded("nexmark-bids.jsonl", &bid_schema());
    let nexmark = decoded("nexmark.jsonl", &nexmark_schema());
    let synthetic = decoded("synthetic.jsonl", &synthetic_schema());
    if bids.is_none() || nexmark.is_none() || synthetic.is_none() {
        eprintln!(
            "set FLOE_CORPUS_DIR to a folder with nexmark-bids.jsonl, nexmark.jsonl and synthetic.jsonl"
        );
    }
    // bucket[4] of bid.auction: on the bids alone, and on every Nexmark event (the e2e
    // harness's table, where persons and auctions land in the null bucket).
    let by_auction = [Key {
        path: &["bid", "auction"],
        source_id: 23,
        transform: "bucket[4]",
    }];
    for (name, batches) in [
        ("partition_bids_bucket4_auction", &bids),
        ("partition_nexmark_bucket4_auction", &nexmark),
    ] {
        if let Some(batches) = batches {
            bench_split(c, name, batches, &by_auction);
        }
    }
    if let Some(synthetic) = &synthetic {
        let event_type = Key {
            path: &["event_type"],
            source_id: 3,
            transform: "identity",
        };
        let day = Key {
            path: &["ts"],
            source_id: 6,
            transform: "day",
        };
        bench_split(
            c,
            "partition_synthetic_identity_event_type",
            synthetic,
            &[event_type],
        );
        bench_split(c, "partition_synthetic_day_ts", synthetic, &[day]);
        bench_split(
            c,
            "partition_synthetic_day_ts_identity_event_type",
            synthetic,
            &[day, event_type],
        );
        bench_split(
            c,
            "partition_synthetic_bucket16_user_id",
            synthetic,
            &[Key {
                path: &["user_id"],
                source_id: 2,
                transform: "bucket[16]",
            }],
        );
    }
    bench_transforms(c, bids.as_deref(), synthetic.as_deref());
}

criterion_group!(partition, benches);
criterion_main!(partition);
