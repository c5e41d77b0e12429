//! Criterion benchmarks of the native JSON decoder (and decode + Parquet encode)
//! on floe's corpora. The corpora come from `floe generate` (see
//! `scripts/bench-decode`), so Rust and JMH measure byte-identical input:
//!
//!   FLOE_CORPUS_DIR=target/bench-corpus cargo bench --bench decode
//!
//! Expects `nexmark-bids.jsonl` (the bid messages of the Nexmark corpus),
//! `nexmark.jsonl` (all events) and `synthetic.jsonl` in that folder; a missing
//! file skips its benchmarks.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use floe::json::{DecoderConfig, JsonDecoder};
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
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("user_id", DataType::Int64, false),
        Field::new("event_type", DataType::Utf8, false),
        Field::new("value", DataType::Float64, false),
        Field::new("info", DataType::Utf8, true),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
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

fn bench_corpus(c: &mut Criterion, name: &str, file: &str, schema: SchemaRef) {
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
    bench_corpus(c, "synthetic", "synthetic.jsonl", synthetic_schema());
}

criterion_group!(decode, benches);
criterion_main!(decode);
