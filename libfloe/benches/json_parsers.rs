//! The codec bound under the `floe-json` format: floe's row decoder (one message onto a row tape)
//! against general JSON parsers decoding the same Nexmark events into typed Rust structs of the
//! same schema (serde_json, and simd-json's serde path on a copy it may rewrite in place). The
//! typed structs borrow unescaped strings and keep timestamps as text, so the general parsers do
//! less than floe does (no timestamp parse, no exact-or-fallback checks, no output).
//!
//! Run with `scripts/bench-decode-rust --bench json_parsers` (the Nexmark corpus of
//! `floe generate`; `FLOE_CORPUS_DIR` names its folder).

mod common;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

use arrow_schema::{DataType, Field, Schema, TimeUnit};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use floe::json::{RowTapeDecoder, TimestampStandard, TIMESTAMP_PRECISION};
use serde::Deserialize;

// Nexmark's events as Flink's Kafka JSON table declares them (docs: ../shared/NEXMARK.md).

#[allow(dead_code, non_snake_case)]
#[derive(Deserialize)]
struct Person<'a> {
    id: Option<i64>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    emailAddress: Option<Cow<'a, str>>,
    #[serde(borrow)]
    creditCard: Option<Cow<'a, str>>,
    #[serde(borrow)]
    city: Option<Cow<'a, str>>,
    #[serde(borrow)]
    state: Option<Cow<'a, str>>,
    #[serde(borrow)]
    dateTime: Option<Cow<'a, str>>,
    #[serde(borrow)]
    extra: Option<Cow<'a, str>>,
}

#[allow(dead_code, non_snake_case)]
#[derive(Deserialize)]
struct Auction<'a> {
    id: Option<i64>,
    #[serde(borrow)]
    itemName: Option<Cow<'a, str>>,
    #[serde(borrow)]
    description: Option<Cow<'a, str>>,
    initialBid: Option<i64>,
    reserve: Option<i64>,
    #[serde(borrow)]
    dateTime: Option<Cow<'a, str>>,
    #[serde(borrow)]
    expires: Option<Cow<'a, str>>,
    seller: Option<i64>,
    category: Option<i64>,
    #[serde(borrow)]
    extra: Option<Cow<'a, str>>,
}

#[allow(dead_code, non_snake_case)]
#[derive(Deserialize)]
struct Bid<'a> {
    auction: i64,
    bidder: i64,
    price: i64,
    #[serde(borrow)]
    channel: Option<Cow<'a, str>>,
    #[serde(borrow)]
    url: Option<Cow<'a, str>>,
    #[serde(borrow)]
    dateTime: Cow<'a, str>,
    #[serde(borrow)]
    extra: Option<Cow<'a, str>>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Event<'a> {
    event_type: i32,
    #[serde(borrow)]
    person: Option<Person<'a>>,
    #[serde(borrow)]
    auction: Option<Auction<'a>>,
    #[serde(borrow)]
    bid: Option<Bid<'a>>,
}

/// The same schema for floe's row decoder (timestamps as Flink's: nanosecond Arrow stand-ins, of
/// precision 6 as Iceberg's Flink module maps them).
fn nexmark_row_schema() -> Schema {
    let timestamp = || DataType::Timestamp(TimeUnit::Nanosecond, None);
    let precision = HashMap::from([(TIMESTAMP_PRECISION.to_string(), "6".to_string())]);
    let timestamp_field = |name: &str, nullable| {
        Field::new(name, timestamp(), nullable).with_metadata(precision.clone())
    };
    let text = |name: &str| Field::new(name, DataType::Utf8, true);
    let long = |name: &str| Field::new(name, DataType::Int64, true);
    let mut person = vec![long("id")];
    person.extend(["name", "emailAddress", "creditCard", "city", "state"].map(text));
    person.push(timestamp_field("dateTime", true));
    person.push(text("extra"));
    let auction = vec![
        long("id"),
        text("itemName"),
        text("description"),
        long("initialBid"),
        long("reserve"),
        timestamp_field("dateTime", true),
        timestamp_field("expires", true),
        long("seller"),
        long("category"),
        text("extra"),
    ];
    let bid = vec![
        Field::new("auction", DataType::Int64, false),
        Field::new("bidder", DataType::Int64, false),
        Field::new("price", DataType::Int64, false),
        text("channel"),
        text("url"),
        timestamp_field("dateTime", false),
        text("extra"),
    ];
    Schema::new(vec![
        Field::new("event_type", DataType::Int32, false),
        Field::new("person", DataType::Struct(person.into()), true),
        Field::new("auction", DataType::Struct(auction.into()), true),
        Field::new("bid", DataType::Struct(bid.into()), true),
    ])
}

/// The first 100,000 events, as the `flink-json` JMH benchmark decodes them.
fn load() -> Option<Vec<Vec<u8>>> {
    let dir = std::env::var_os("FLOE_CORPUS_DIR").map(PathBuf::from)?;
    let text = std::fs::read(dir.join("nexmark.jsonl")).ok()?;
    Some(
        text.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .take(100_000)
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

fn parsers(c: &mut Criterion) {
    let Some(messages) = load() else {
        eprintln!("skipping: set FLOE_CORPUS_DIR to a folder with nexmark.jsonl");
        return;
    };
    let bytes: usize = messages.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("nexmark_parsers");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));

    let mut rows =
        RowTapeDecoder::new(&nexmark_row_schema(), TimestampStandard::Sql, false).unwrap();
    group.bench_function("floe_row_tape", |b| {
        b.iter(|| common::decode_rows(&mut rows, &messages))
    });
    let mut binary_rows = RowTapeDecoder::new(&nexmark_row_schema(), TimestampStandard::Sql, false)
        .unwrap()
        .with_binary_rows()
        .unwrap();
    group.bench_function("floe_binary_rows", |b| {
        b.iter(|| common::decode_rows(&mut binary_rows, &messages))
    });
    group.bench_function("serde_json_typed", |b| {
        b.iter(|| {
            let mut types = 0;
            for message in &messages {
                let event: Event = serde_json::from_slice(message).unwrap();
                types += event.event_type;
            }
            types
        })
    });
    let mut copy = Vec::with_capacity(1 << 16);
    let mut buffers = simd_json::Buffers::default();
    group.bench_function("simd_json_typed", |b| {
        b.iter(|| {
            let mut types = 0;
            for message in &messages {
                copy.clear();
                copy.extend_from_slice(message); // simd-json rewrites its input in place
                let event: Event =
                    simd_json::serde::from_slice_with_buffers(&mut copy, &mut buffers).unwrap();
                types += event.event_type;
            }
            types
        })
    });
    group.finish();
}

criterion_group!(json_parsers, parsers);
criterion_main!(json_parsers);
