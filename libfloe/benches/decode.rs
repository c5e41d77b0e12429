//! Criterion benchmarks of the native JSON decoder (and decode + Parquet encode)
//! on floe's corpora. The corpora come from `floe generate` (see
//! `scripts/bench-decode`), so Rust and JMH measure byte-identical input:
//!
//!   FLOE_CORPUS_DIR=target/bench-corpus cargo bench --bench decode
//!
//! Expects `nexmark-bids.jsonl` (the bid messages of the Nexmark corpus),
//! `nexmark.jsonl` (all events) and `synthetic.jsonl` in that folder; a missing
//! file skips its benchmarks.
//!
//! `encode_zstd3` and `encode_uncompressed` encode the batches `decode` made (decoded
//! beforehand) into one file, with zstd-3 and without a codec: the encoder's own work is
//! the second, zstd's the difference.
//!
//! `arrow_json` decodes the same batches with arrow-json's `Decoder` for comparison
//! (docs/design/native-decoder-and-partitioner.md), and `nexmark_bids_one_bad` puts one
//! bad message in every batch: floe rejects it, arrow-json fails the batch and is run
//! by bisection until the bad message is found.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow_select::concat::concat_batches;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use floe::json::{DecoderConfig, JsonDecoder, Outcome, RowTapeDecoder, TimestampStandard};
use floe::{OutputSink, ParquetFileWriter, WriterConfig};

const BATCH: usize = 8192;

fn bid_fields() -> Vec<Field> {
    vec![
        Field::new("auction", DataType::Int64, false),
        Field::new("bidder", DataType::Int64, false),
        Field::new("price", DataType::Int64, false),
        Field::new("channel", DataType::Utf8, true),
        Field::new("url", DataType::Utf8, true),
        Field::new(
            "dateTime",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            false,
        ),
        Field::new("extra", DataType::Utf8, true),
    ]
}

fn ts() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, None)
}

fn person_fields() -> Vec<Field> {
    let mut fields = vec![Field::new("id", DataType::Int64, true)];
    for name in ["name", "emailAddress", "creditCard", "city", "state"] {
        fields.push(Field::new(name, DataType::Utf8, true));
    }
    fields.push(Field::new("dateTime", ts(), true));
    fields.push(Field::new("extra", DataType::Utf8, true));
    fields
}

fn auction_fields() -> Vec<Field> {
    vec![
        Field::new("id", DataType::Int64, true),
        Field::new("itemName", DataType::Utf8, true),
        Field::new("description", DataType::Utf8, true),
        Field::new("initialBid", DataType::Int64, true),
        Field::new("reserve", DataType::Int64, true),
        Field::new("dateTime", ts(), true),
        Field::new("expires", ts(), true),
        Field::new("seller", DataType::Int64, true),
        Field::new("category", DataType::Int64, true),
        Field::new("extra", DataType::Utf8, true),
    ]
}

/// The Nexmark event envelope with only the bid struct kept (person/auction are null in bids).
fn nexmark_bid_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("event_type", DataType::Int32, false),
        Field::new("bid", DataType::Struct(bid_fields().into()), true),
    ]))
}

/// The whole Nexmark event, as Flink's Kafka table declares it.
fn nexmark_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("event_type", DataType::Int32, false),
        Field::new("person", DataType::Struct(person_fields().into()), true),
        Field::new("auction", DataType::Struct(auction_fields().into()), true),
        Field::new("bid", DataType::Struct(bid_fields().into()), true),
    ]))
}

fn synthetic_schema() -> SchemaRef {
    synthetic_schema_in("UTC")
}

/// arrow-json builds no decoder for a timestamp column in time zone "UTC" without arrow's
/// `chrono-tz` feature (only offsets): it gets the same instants as "+00:00".
fn synthetic_schema_for_arrow_json() -> SchemaRef {
    synthetic_schema_in("+00:00")
}

fn synthetic_schema_in(zone: &str) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("user_id", DataType::Int64, false),
        Field::new("event_type", DataType::Utf8, false),
        Field::new("value", DataType::Float64, false),
        Field::new("info", DataType::Utf8, true),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some(zone.into())),
            false,
        ),
    ]))
}

fn load(name: &str) -> Option<Vec<Vec<u8>>> {
    let dir = std::env::var_os("FLOE_CORPUS_DIR").map(PathBuf::from)?;
    let text = std::fs::read(dir.join(name)).ok()?;
    Some(
        text.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

/// A batch of messages back to back in one buffer, as a `MessageBatch` hands them over.
struct Packed {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Packed {
    fn new(messages: &[Vec<u8>]) -> Self {
        let mut ends = Vec::with_capacity(messages.len());
        let data = messages.concat();
        let mut end = 0;
        for m in messages {
            end += m.len();
            ends.push(end);
        }
        Self { data, ends }
    }

    fn messages(&self) -> Vec<&[u8]> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let m = &self.data[start..end];
                start = end;
                m
            })
            .collect()
    }
}

/// arrow-json's decoder over a batch's bytes (the messages back to back): one record batch, or
/// the error that fails the whole batch. A new decoder each time: after a failed `flush` the
/// decoder keeps the batch's rows and fails again on the next one.
fn arrow_json_decode(schema: &SchemaRef, data: &[u8], rows: usize) -> Result<RecordBatch, String> {
    let mut decoder = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(rows.max(1))
        .build_decoder()
        .map_err(|e| e.to_string())?;
    let read = decoder.decode(data).map_err(|e| e.to_string())?;
    assert_eq!(read, data.len(), "a batch is decoded in one call");
    match decoder.flush().map_err(|e| e.to_string())? {
        Some(batch) => Ok(batch),
        None => Ok(RecordBatch::new_empty(schema.clone())),
    }
}

/// What it takes to isolate bad messages with arrow-json: its errors fail the batch and name no
/// message, so a failed range is split in halves and retried until each bad message stands alone.
fn arrow_json_bisect(
    schema: &SchemaRef,
    packed: &Packed,
    range: std::ops::Range<usize>,
    good: &mut Vec<RecordBatch>,
    bad: &mut Vec<usize>,
) {
    let start = if range.start == 0 {
        0
    } else {
        packed.ends[range.start - 1]
    };
    let end = packed.ends[range.end - 1];
    match arrow_json_decode(schema, &packed.data[start..end], range.len()) {
        Ok(batch) => good.push(batch),
        Err(_) if range.len() == 1 => bad.push(range.start),
        Err(_) => {
            let mid = range.start + range.len() / 2;
            arrow_json_bisect(schema, packed, range.start..mid, good, bad);
            arrow_json_bisect(schema, packed, mid..range.end, good, bad);
        }
    }
}

/// `schema` with its timestamps in nanoseconds, the unit the row decoder writes them in.
fn nanosecond_timestamps(schema: &Schema) -> Schema {
    fn field(f: &Field) -> Field {
        let data_type = match f.data_type() {
            DataType::Timestamp(_, zone) => DataType::Timestamp(TimeUnit::Nanosecond, zone.clone()),
            DataType::Struct(children) => {
                DataType::Struct(children.iter().map(|c| field(c)).collect())
            }
            other => other.clone(),
        };
        f.as_ref().clone().with_data_type(data_type)
    }
    Schema::new(schema.fields().iter().map(|f| field(f)).collect::<Vec<_>>())
}

fn bench_corpus(c: &mut Criterion, name: &str, file: &str, schema: SchemaRef) {
    bench_corpus_with(c, name, file, schema.clone(), schema);
}

fn bench_corpus_with(
    c: &mut Criterion,
    name: &str,
    file: &str,
    schema: SchemaRef,
    arrow_json_schema: SchemaRef,
) {
    let Some(messages) = load(file) else {
        eprintln!("skipping {name}: set FLOE_CORPUS_DIR to a folder with {file}");
        return;
    };
    let bytes: usize = messages.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    let batches: Vec<Packed> = messages.chunks(BATCH).map(Packed::new).collect();
    let mut decoder = JsonDecoder::new(schema.clone(), DecoderConfig::default()).unwrap();
    group.bench_function("decode", |b| {
        b.iter(|| {
            let mut rows = 0;
            for packed in &batches {
                let out = decoder
                    .decode_packed(&packed.data, &packed.messages(), false)
                    .unwrap();
                assert!(out.rejects.is_empty(), "{:?}", out.rejects.first());
                rows += out.batch.num_rows();
            }
            rows
        })
    });
    // The same messages through the row decoder of floe-json (one message at a time onto a
    // row tape, no Arrow): the parse work both decoders share, against what building columns
    // adds. Only where every message decodes natively (no fallback to Flink's decoder).
    let mut rows = RowTapeDecoder::new(
        &nanosecond_timestamps(&schema),
        TimestampStandard::Sql,
        false,
    )
    .unwrap();
    if messages.iter().all(|m| rows.decode(m) == Outcome::Row) {
        group.bench_function("row_tape", |b| {
            b.iter(|| common::decode_rows(&mut rows, &messages))
        });
    }
    group.bench_function("decode_encode_zstd3", |b| {
        b.iter(|| {
            let mut writer = ParquetFileWriter::open(
                OutputSink::Stream(Box::new(std::io::sink())),
                schema.clone(),
                &WriterConfig::default(),
            )
            .unwrap();
            for packed in &batches {
                let out = decoder
                    .decode_packed(&packed.data, &packed.messages(), false)
                    .unwrap();
                writer.write(&out.batch).unwrap();
            }
            writer.close().unwrap().num_rows
        })
    });
    // Encoding alone, on batches decoded beforehand: the writer thread's share of a sink's
    // work, with and without the codec (the difference is zstd's own time).
    let decoded: Vec<RecordBatch> = batches
        .iter()
        .map(|packed| {
            decoder
                .decode_packed(&packed.data, &packed.messages(), false)
                .unwrap()
                .batch
        })
        .collect();
    for (label, codec) in [
        ("encode_zstd3", "zstd"),
        ("encode_uncompressed", "uncompressed"),
    ] {
        let config = WriterConfig {
            codec: codec.to_string(),
            ..WriterConfig::default()
        };
        group.bench_function(label, |b| {
            b.iter(|| {
                let mut writer = ParquetFileWriter::open(
                    OutputSink::Stream(Box::new(std::io::sink())),
                    schema.clone(),
                    &config,
                )
                .unwrap();
                for batch in &decoded {
                    writer.write(batch).unwrap();
                }
                writer.close().unwrap().num_rows
            })
        });
    }
    // One arrow-json decoder for all batches, as floe's: fine while no batch fails (a failed
    // flush leaves the bad rows in its tape, see `arrow_json_decode`).
    let mut arrow_decoder = arrow_json::ReaderBuilder::new(arrow_json_schema)
        .with_batch_size(BATCH)
        .build_decoder()
        .unwrap();
    group.bench_function("arrow_json", |b| {
        b.iter(|| {
            let mut rows = 0;
            for packed in &batches {
                let read = arrow_decoder.decode(&packed.data).unwrap();
                assert_eq!(read, packed.data.len(), "a batch is decoded in one call");
                let batch = arrow_decoder.flush().unwrap().unwrap();
                assert_eq!(batch.num_rows(), packed.ends.len());
                rows += batch.num_rows();
            }
            rows
        })
    });
    group.finish();
}

/// Message `BAD_AT` of every batch gets a string for `bid.price` (an int64): a type error.
const BAD_AT: usize = 4000;

fn bench_one_bad_message(c: &mut Criterion, name: &str, file: &str, schema: SchemaRef) {
    let Some(mut messages) = load(file) else {
        eprintln!("skipping {name}: set FLOE_CORPUS_DIR to a folder with {file}");
        return;
    };
    for chunk in messages.chunks_mut(BATCH) {
        if let Some(message) = chunk.get_mut(BAD_AT) {
            let text = String::from_utf8(std::mem::take(message)).unwrap();
            assert!(text.contains("\"price\":"), "{text}");
            *message = text
                .replacen("\"price\":", "\"price\":\"bad\",\"was\":", 1)
                .into_bytes();
        }
    }
    let bytes: usize = messages.iter().map(Vec::len).sum();
    let bad_per_run = messages.chunks(BATCH).filter(|c| c.len() > BAD_AT).count();
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    let batches: Vec<Packed> = messages.chunks(BATCH).map(Packed::new).collect();
    let mut decoder = JsonDecoder::new(schema.clone(), DecoderConfig::default()).unwrap();
    group.bench_function("decode", |b| {
        b.iter(|| {
            let mut rejects = 0;
            for packed in &batches {
                let out = decoder
                    .decode_packed(&packed.data, &packed.messages(), false)
                    .unwrap();
                rejects += out.rejects.len();
            }
            assert_eq!(rejects, bad_per_run);
            rejects
        })
    });
    group.bench_function("arrow_json_bisect", |b| {
        b.iter(|| {
            let mut rejects = 0;
            for packed in &batches {
                let (mut good, mut bad) = (Vec::new(), Vec::new());
                arrow_json_bisect(&schema, packed, 0..packed.ends.len(), &mut good, &mut bad);
                let batch = concat_batches(&schema, &good).unwrap();
                assert_eq!(batch.num_rows() + bad.len(), packed.ends.len());
                rejects += bad.len();
            }
            assert_eq!(rejects, bad_per_run);
            rejects
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_corpus(
        c,
        "nexmark_bids",
        "nexmark-bids.jsonl",
        nexmark_bid_schema(),
    );
    bench_corpus(c, "nexmark", "nexmark.jsonl", nexmark_schema());
    bench_corpus_with(
        c,
        "synthetic",
        "synthetic.jsonl",
        synthetic_schema(),
        synthetic_schema_for_arrow_json(),
    );
    bench_one_bad_message(
        c,
        "nexmark_bids_one_bad",
        "nexmark-bids.jsonl",
        nexmark_bid_schema(),
    );
}

criterion_group!(decode, benches);
criterion_main!(decode);
