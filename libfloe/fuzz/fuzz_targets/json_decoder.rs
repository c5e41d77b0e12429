//! Fuzzes the JSON decoder (`floe::json::JsonDecoder`) against a schema that
//! uses every supported kind of column.
//!
//! Input layout: the first byte picks the configuration, the rest is split on
//! 0x1E (ASCII record separator, as in RFC 7464 JSON text sequences) into
//! messages, each meant to be one JSON object.
//!
//! Config byte: bit 0 = strict; bit 1 = small limits, with max_depth =
//! 1 + bits 2..4 (1..=8) and max_message_bytes = 4096 >> bits 5..7 (32..=4096);
//! without bit 1 the defaults apply. ASCII '0'..'3' are the four plain variants.
//!
//! Properties checked (a panic is a finding):
//! - `decode` never panics and never returns `Err`: bad input is a per-message reject;
//! - rows + rejects == messages; reject indices strictly increase and are in range;
//! - every output column passes `ArrayData::validate_full`;
//! - isolation: each message decoded alone gives exactly one row or one reject (with
//!   the same reason), and the batch's rows equal the single-message rows concatenated;
//! - `stop_at_first_reject`: the rows are exactly the good messages before the first
//!   bad one, and that one is the only reject;
//! - a reused decoder gives the same result again.

#![no_main]

use std::collections::HashMap;
use std::sync::{Arc, Once, OnceLock};

use arrow_array::{Array, Float64Array, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use arrow_select::concat::concat_batches;
use floe::json::{DecodedBatch, DecoderConfig, JsonDecoder};
use libfuzzer_sys::fuzz_target;

const SEPARATOR: u8 = 0x1E;

fn schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let uuid = Field::new("uuid", DataType::FixedSizeBinary(16), true).with_metadata(
                HashMap::from([("ARROW:extension:name".to_string(), "arrow.uuid".to_string())]),
            );
            let obj = DataType::Struct(Fields::from(vec![
                Field::new("req", DataType::Int64, false),
                Field::new(
                    "tags",
                    DataType::List(Arc::new(Field::new("element", DataType::Utf8, true))),
                    true,
                ),
            ]));
            let item =
                DataType::Struct(Fields::from(vec![Field::new("a", DataType::Int64, false)]));
            let entries = Field::new(
                "entries",
                DataType::Struct(Fields::from(vec![
                    Field::new("key", DataType::Utf8, false),
                    Field::new("value", DataType::Float64, true),
                ])),
                false,
            );
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int64, false),
                Field::new("i32", DataType::Int32, true),
                Field::new("f32", DataType::Float32, true),
                Field::new("f64", DataType::Float64, true),
                Field::new("dec9", DataType::Decimal128(9, 2), true),
                Field::new("dec38", DataType::Decimal128(38, 10), true),
                Field::new("flag", DataType::Boolean, true),
                Field::new("day", DataType::Date32, true),
                Field::new("tod", DataType::Time64(TimeUnit::Microsecond), true),
                Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
                Field::new(
                    "tstz",
                    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                    true,
                ),
                Field::new(
                    "tsns",
                    DataType::Timestamp(TimeUnit::Nanosecond, None),
                    true,
                ),
                Field::new("name", DataType::Utf8, false),
                Field::new("text", DataType::LargeUtf8, true),
                Field::new("bin", DataType::Binary, true),
                uuid,
                Field::new("fixed3", DataType::FixedSizeBinary(3), true),
                Field::new("obj", obj, true),
                Field::new(
                    "items",
                    DataType::List(Arc::new(Field::new("element", item, true))),
                    true,
                ),
                Field::new("attrs", DataType::Map(Arc::new(entries), false), true),
            ]))
        })
        .clone()
}

fn config_for(flags: u8) -> DecoderConfig {
    let mut config = DecoderConfig {
        strict: flags & 1 != 0,
        ..DecoderConfig::default()
    };
    if flags & 2 != 0 {
        config.max_depth = 1 + ((flags >> 2) & 7) as usize;
        config.max_message_bytes = 4096 >> ((flags >> 5) & 7);
    }
    config
}

fn decode(decoder: &mut JsonDecoder, messages: &[&[u8]], stop: bool) -> DecodedBatch {
    let out = decoder
        .decode(messages.iter().copied(), stop)
        .unwrap_or_else(|e| panic!("decode returned Err (stop={stop}): {e:?}"));
    for (i, column) in out.batch.columns().iter().enumerate() {
        if let Err(e) = column.to_data().validate_full() {
            panic!("column {i} of the output is invalid: {e}");
        }
    }
    out
}

/// Column-by-column `ArrayData` equality (logical: offsets and null slots are ignored).
///
/// Floats and NaN: `ArrayData` equality compares primitive values by their bytes, so
/// a NaN equals a NaN of the same bit pattern (not IEEE `==`). Both sides here come
/// from the same parser, so equal inputs give identical bits; `check_nan_equality`
/// makes sure once per process that this still holds for the arrow version in use,
/// so a NaN can never show up as a false finding.
fn assert_same_rows(what: &str, actual: &RecordBatch, expected: &RecordBatch) {
    assert_eq!(actual.schema(), expected.schema(), "{what}: schema");
    assert_eq!(actual.num_rows(), expected.num_rows(), "{what}: rows");
    for (i, (a, e)) in actual.columns().iter().zip(expected.columns()).enumerate() {
        if a.to_data() != e.to_data() {
            panic!(
                "{what}: column '{}' differs\nactual:   {a:?}\nexpected: {e:?}",
                actual.schema().field(i).name()
            );
        }
    }
}

fn check_nan_equality() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let a = Float64Array::from(vec![f64::NAN, 1.0]).to_data();
        let b = Float64Array::from(vec![f64::NAN, 1.0]).to_data();
        assert!(
            a == b,
            "ArrayData equality no longer compares NaN by bits: fix assert_same_rows"
        );
    });
}

fuzz_target!(|data: &[u8]| {
    check_nan_equality();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let schema = schema();
    let config = config_for(flags);
    let messages: Vec<&[u8]> = rest.split(|&b| b == SEPARATOR).collect();
    let n = messages.len();
    // Fresh per input, so a finding reproduces from its input alone; it is then
    // reused for every call below, which exercises reuse across batches.
    let mut decoder = JsonDecoder::new(schema.clone(), config).expect("the schema is supported");

    let full = decode(&mut decoder, &messages, false);
    assert!(!full.stopped, "stopped without stop_at_first_reject");
    assert_eq!(
        full.batch.num_rows() + full.rejects.len(),
        n,
        "rows + rejects != messages: {:?}",
        full.rejects
    );
    for pair in full.rejects.windows(2) {
        assert!(pair[0].index < pair[1].index, "{:?}", full.rejects);
    }
    if let Some(last) = full.rejects.last() {
        assert!(last.index < n, "{:?}", full.rejects);
    }

    // Isolation: each message alone.
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let one = decode(&mut decoder, &[message], false);
        match (one.batch.num_rows(), one.rejects.as_slice()) {
            (1, []) => good.push(one.batch),
            (0, [reject]) => {
                assert_eq!(reject.index, 0);
                bad.push((i, reject.reason.clone()));
            }
            (rows, rejects) => panic!("message {i} alone: {rows} rows, rejects {rejects:?}"),
        }
    }
    let batch_rejects: Vec<(usize, String)> = full
        .rejects
        .iter()
        .map(|r| (r.index, r.reason.clone()))
        .collect();
    assert_eq!(
        batch_rejects, bad,
        "rejects in the batch differ from messages decoded alone"
    );
    let singles = concat_batches(&schema, &good).expect("concat the single-message rows");
    assert_same_rows("batch vs. messages alone", &full.batch, &singles);

    // Stop at the first reject.
    let stopped = decode(&mut decoder, &messages, true);
    match bad.first() {
        None => {
            assert!(!stopped.stopped && stopped.rejects.is_empty());
            assert_same_rows(
                "stop_at_first_reject, none bad",
                &stopped.batch,
                &full.batch,
            );
        }
        Some((first_bad, reason)) => {
            assert!(stopped.stopped, "did not stop at message {first_bad}");
            assert_eq!(stopped.rejects.len(), 1, "{:?}", stopped.rejects);
            assert_eq!(stopped.rejects[0].index, *first_bad);
            assert_eq!(&stopped.rejects[0].reason, reason);
            assert_same_rows(
                "stop_at_first_reject",
                &stopped.batch,
                &full.batch.slice(0, *first_bad),
            );
        }
    }

    // The reused decoder gives the same result again.
    let again = decode(&mut decoder, &messages, false);
    assert_eq!(again.rejects, full.rejects, "reused decoder: rejects");
    assert_same_rows("reused decoder", &again.batch, &full.batch);
});
