//! JSON -> Arrow decoding: exact values per type and format, and per-message
//! error isolation with index and reason.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use floe::json::{DecoderConfig, JsonDecoder, Reject};

fn schema(fields: Vec<Field>) -> SchemaRef {
    Arc::new(Schema::new(fields))
}

fn decode(schema: &SchemaRef, messages: &[&str]) -> (RecordBatch, Vec<Reject>) {
    decode_with(schema, messages, DecoderConfig::default())
}

fn decode_with(
    schema: &SchemaRef,
    messages: &[&str],
    config: DecoderConfig,
) -> (RecordBatch, Vec<Reject>) {
    let mut decoder = JsonDecoder::new(schema.clone(), config).unwrap();
    let out = decoder
        .decode(messages.iter().map(|m| m.as_bytes()), false)
        .unwrap();
    let packed = decode_packed(
        &mut decoder,
        &messages.iter().map(|m| m.as_bytes()).collect::<Vec<_>>(),
    );
    assert_eq!(
        packed.batch, out.batch,
        "packed and one-by-one decoding differ"
    );
    assert_eq!(packed.rejects, out.rejects);
    (out.batch, out.rejects)
}

/// Decodes messages packed back to back in one buffer, as a `MessageBatch` holds them.
fn decode_packed(decoder: &mut JsonDecoder, messages: &[&[u8]]) -> floe::json::DecodedBatch {
    let span = messages.concat();
    let mut slices = Vec::with_capacity(messages.len());
    let mut at = 0;
    for m in messages {
        slices.push(&span[at..at + m.len()]);
        at += m.len();
    }
    decoder.decode_packed(&span, &slices, false).unwrap()
}

fn only_reject(schema: &SchemaRef, message: &str) -> String {
    let (batch, rejects) = decode(schema, &[message]);
    assert_eq!(batch.num_rows(), 0, "{message} should be rejected");
    assert_eq!(rejects.len(), 1);
    rejects[0].reason.clone()
}

/// A nullable map of string keys to nullable int64 values.
fn string_to_int64_map(name: &str) -> Field {
    let entries = Arc::new(Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", DataType::Int64, true),
        ])),
        false,
    ));
    Field::new(name, DataType::Map(entries, false), true)
}

fn uuid_field(name: &str) -> Field {
    Field::new(name, DataType::FixedSizeBinary(16), true).with_metadata(HashMap::from([(
        "ARROW:extension:name".to_string(),
        "arrow.uuid".to_string(),
    )]))
}

#[test]
fn primitives_decode_exactly() {
    let s = schema(vec![
        Field::new("b", DataType::Boolean, true),
        Field::new("i", DataType::Int32, true),
        Field::new("l", DataType::Int64, true),
        Field::new("f", DataType::Float32, true),
        Field::new("d", DataType::Float64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("ls", DataType::LargeUtf8, true),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"b":true,"i":-2147483648,"l":9223372036854775807,"f":0.1,"d":1e-300,"s":"x","ls":"y"}"#,
            r#"{"b":false,"i":2147483647,"l":-9223372036854775808,"f":16777217,"d":-0.0,"s":"","ls":null}"#,
            r#"{}"#,
            r#"{"d":"NaN","f":"-Infinity"}"#,
        ],
    );
    assert!(rejects.is_empty(), "{rejects:?}");
    let b = batch.column(0).as_boolean();
    assert_eq!((b.value(0), b.value(1), b.is_null(2)), (true, false, true));
    let i = batch.column(1).as_primitive::<Int32Type>();
    assert_eq!((i.value(0), i.value(1)), (i32::MIN, i32::MAX));
    let l = batch.column(2).as_primitive::<Int64Type>();
    assert_eq!((l.value(0), l.value(1)), (i64::MAX, i64::MIN));
    let f = batch.column(3).as_primitive::<Float32Type>();
    assert_eq!(f.value(0), 0.1f32);
    assert_eq!(f.value(1), 16_777_216.0f32);
    assert_eq!(f.value(3), f32::NEG_INFINITY);
    let d = batch.column(4).as_primitive::<Float64Type>();
    assert_eq!(d.value(0), 1e-300);
    assert!(d.value(1) == 0.0 && d.value(1).is_sign_negative());
    assert!(d.value(3).is_nan());
    assert_eq!(batch.column(5).as_string::<i32>().value(1), "");
    assert!(batch.column(6).as_string::<i64>().is_null(1));
    assert_eq!(batch.column(6).as_string::<i64>().value(0), "y");
}

#[test]
fn strings_decode_every_escape() {
    let s = schema(vec![Field::new("s", DataType::Utf8, false)]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"s":"a\"b\\c\/d\b\f\n\r\t"}"#,
            r#"{"s":"\u00e9\u4e2d\ud83d\ude00"}"#,
            r#"{"s":"nul\u0000inside"}"#,
            "{\"s\":\"z\u{fc}rich \u{1f600}\"}",
        ],
    );
    assert!(rejects.is_empty(), "{rejects:?}");
    let col = batch.column(0).as_string::<i32>();
    assert_eq!(col.value(0), "a\"b\\c/d\u{8}\u{c}\n\r\t");
    assert_eq!(col.value(1), "é中😀");
    assert_eq!(col.value(2), "nul\0inside");
    assert_eq!(col.value(3), "zürich 😀");
}

#[test]
fn keys_in_any_order_and_unknown_fields_ignored() {
    let s = schema(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Utf8, false),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"b":"x","extra":{"deep":[1,{"k":null}]},"a":1}"#,
            r#" { "a" : 2 , "b" : "y" } "#,
            r#"{"\u0061":3,"b":"z"}"#,
        ],
    );
    assert!(rejects.is_empty(), "{rejects:?}");
    let a = batch.column(0).as_primitive::<Int64Type>();
    assert_eq!(a.values().to_vec(), vec![1, 2, 3]);
    let strict = DecoderConfig {
        strict: true,
        ..DecoderConfig::default()
    };
    let (_, rejects) = decode_with(&s, &[r#"{"a":1,"b":"x","extra":1}"#], strict);
    assert!(
        rejects[0].reason.contains("unknown field 'extra'"),
        "{rejects:?}"
    );
}

#[test]
fn compact_keys_match_whole_names_only() {
    let s = schema(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("ab", DataType::Int64, true),
        Field::new("q\"x", DataType::Utf8, true),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"ab":1,"a":2}"#,
            r#"{"a":3,"ab":4,"q\"x":"v"}"#,
            r#"{"a":5, "ab":6}"#,
            r#"{"a":7,"a":8}"#,
            r#"{"a":9,"abc":10,"ab":11}"#,
        ],
    );
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    assert_eq!(rejects[0].index, 3);
    assert!(
        rejects[0].reason.contains("duplicate field 'a'"),
        "{rejects:?}"
    );
    let a = batch.column(0).as_primitive::<Int64Type>();
    let ab = batch.column(1).as_primitive::<Int64Type>();
    let q = batch.column(2).as_string::<i32>();
    assert_eq!(a.values().to_vec(), vec![2, 3, 5, 9]);
    assert_eq!(ab.values().to_vec(), vec![1, 4, 6, 11]);
    assert_eq!(q.value(1), "v");
    assert!(q.is_null(0) && q.is_null(2) && q.is_null(3));
}

/// A field whose name JSON must escape is matched by the key's decoded text, never by the bytes
/// as written (found in review, helper-56: the fast path compared raw bytes, so `{"a\u0041":1}`
/// filled the field named `a\u0041`, and `{"a"b":3}`, not JSON, filled `a"b`).
#[test]
fn names_that_need_escaping_match_decoded_keys_only() {
    let s = schema(vec![
        Field::new(r"a\u0041", DataType::Int32, true),
        Field::new("a\u{8}", DataType::Int32, true),
        Field::new("a\"b", DataType::Int32, true),
        Field::new("a\\", DataType::Int32, true),
        Field::new("a\nb", DataType::Int32, true),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"a\u0041":1}"#,      // key "aA": no field
            r#"{"a\\u0041":2}"#,     // the name written with its backslash escaped
            r#"{"a\b":3,"a\"b":4}"#, // keys "a" + U+0008 and a"b
            r#"{"a\\":5,"a\nb":6}"#, // keys a\ and "a", newline, "b"
            r#"{"a"b":7}"#,          // not JSON
            r#"{"a\":8}"#,           // an unterminated key
            "{\"a\nb\":9}",          // a raw control character in a key
        ],
    );
    assert_eq!(
        rejects.iter().map(|r| r.index).collect::<Vec<_>>(),
        vec![4, 5, 6],
        "{rejects:?}"
    );
    let column = |i: usize| {
        let c = batch.column(i).as_primitive::<Int32Type>();
        (0..c.len())
            .map(|r| c.is_valid(r).then(|| c.value(r)))
            .collect::<Vec<_>>()
    };
    assert_eq!(column(0), vec![None, Some(2), None, None]);
    assert_eq!(column(1), vec![None, None, Some(3), None]);
    assert_eq!(column(2), vec![None, None, Some(4), None]);
    assert_eq!(column(3), vec![None, None, None, Some(5)]);
    assert_eq!(column(4), vec![None, None, None, Some(6)]);
}

/// The same names, each the only field, where the fast path would meet them first: invalid JSON
/// spelled like the name is rejected (before, `{"a"b":3}` and `{"a\":4}` were accepted).
#[test]
fn a_key_spelled_like_a_name_that_needs_escaping_is_still_checked() {
    for (name, message) in [
        ("a\"b", r#"{"a"b":3}"#),
        ("a\\", r#"{"a\":4}"#),
        ("a\nb", "{\"a\nb\":5}"),
    ] {
        let s = schema(vec![Field::new(name, DataType::Int32, true)]);
        let (batch, rejects) = decode(&s, &[message]);
        assert_eq!(
            (batch.num_rows(), rejects.len()),
            (0, 1),
            "{name:?}: {rejects:?}"
        );
    }
}

#[test]
fn decimals_are_parsed_from_the_text() {
    let s = schema(vec![
        Field::new("small", DataType::Decimal128(9, 2), true),
        Field::new("big", DataType::Decimal128(38, 10), true),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"small":12.34,"big":1234567890123456789012345678.0123456789}"#,
            r#"{"small":-0.1,"big":"-1e-10"}"#,
            r#"{"small":12.345}"#,
            r#"{"small":12345678.9}"#,
        ],
    );
    let small = batch.column(0).as_primitive::<Decimal128Type>();
    assert_eq!(small.value(0), 1234);
    assert_eq!(small.value(1), -10);
    let big = batch.column(1).as_primitive::<Decimal128Type>();
    assert_eq!(big.value(0), 12345678901234567890123456780123456789);
    assert_eq!(big.value(1), -1);
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(rejects[0].index, 2);
    assert!(
        rejects[0].reason.contains("more fraction digits"),
        "{}",
        rejects[0].reason
    );
    assert!(
        rejects[0].reason.contains("'small'"),
        "{}",
        rejects[0].reason
    );
    assert!(
        rejects[1].reason.contains("out of range for decimal(9,2)"),
        "{}",
        rejects[1].reason
    );
}

#[test]
fn decimal_exponent_of_i64_min_is_rejected() {
    // Found by fuzzing (fuzz target json_decoder): i64::MIN.abs() overflowed, a panic
    // with overflow checks; without them the shift wrapped and 0.000e-9223372036854775808
    // looped for ~2^63 steps.
    let s = schema(vec![
        Field::new("small", DataType::Decimal128(9, 2), true),
        Field::new("big", DataType::Decimal128(38, 10), true),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"small":5e-9223372036854775808}"#,
            r#"{"small":0.000e-9223372036854775808}"#,
            r#"{"big":"0e-9223372036854775808"}"#,
            r#"{"big":1e-9223372036854775807}"#,
            r#"{"small":1.5e2,"big":0e-999}"#,
        ],
    );
    assert_eq!(
        rejects.iter().map(|r| r.index).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    for reject in &rejects {
        assert!(
            reject.reason.contains("is not a valid decimal number"),
            "{}",
            reject.reason
        );
    }
    assert_eq!(batch.num_rows(), 1);
    assert_eq!(
        batch.column(0).as_primitive::<Decimal128Type>().value(0),
        15000
    );
    assert_eq!(batch.column(1).as_primitive::<Decimal128Type>().value(0), 0);
}

#[test]
fn temporal_types_from_every_format() {
    let s = schema(vec![
        Field::new("day", DataType::Date32, true),
        Field::new("t", DataType::Time64(TimeUnit::Microsecond), true),
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        Field::new(
            "tz",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new(
            "ns",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"day":"2026-11-30","t":"12:00:01.5","ts":"2026-11-30 12:00:01.12","tz":"2026-11-30T12:00:00Z","ns":"2026-11-30T12:00:00.000000001+00:00"}"#,
            r#"{"day":"1969-12-31","t":"00:00","ts":"2026-11-30T12:00:00.123456","tz":"2026-11-30T13:00:00+01:00","ns":1796040000000}"#,
            r#"{"ts":1796040000123}"#,
        ],
    );
    assert!(rejects.is_empty(), "{rejects:?}");
    let base = 1_796_040_000_000_000i64;
    let day = batch.column(0).as_primitive::<Date32Type>();
    assert_eq!((day.value(0), day.value(1)), (20_787, -1));
    let t = batch.column(1).as_primitive::<Time64MicrosecondType>();
    assert_eq!((t.value(0), t.value(1)), (43_201_500_000, 0));
    let ts = batch.column(2).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(ts.value(0), base + 1_120_000);
    assert_eq!(ts.value(1), base + 123_456);
    assert_eq!(ts.value(2), base + 123_000, "epoch milliseconds");
    let tz = batch.column(3).as_primitive::<TimestampMicrosecondType>();
    assert_eq!((tz.value(0), tz.value(1)), (base, base));
    let ns = batch.column(4).as_primitive::<TimestampNanosecondType>();
    assert_eq!(ns.value(0), base * 1000 + 1);
    assert_eq!(ns.value(1), base * 1000);

    let reason = only_reject(&s, r#"{"tz":"2026-11-30T12:00:00"}"#);
    assert!(
        reason.contains("'tz'") && reason.contains("needs 'Z' or an offset"),
        "{reason}"
    );
    let reason = only_reject(&s, r#"{"day":"2026-02-30"}"#);
    assert!(reason.contains("invalid date \"2026-02-30\""), "{reason}");
    let reason = only_reject(&s, r#"{"ts":"2026-11-30T12:00:00.1234567"}"#);
    assert!(reason.contains("finer than"), "{reason}");
    // Offsets from -18:00 to +18:00, as java.time allows.
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"tz":"2026-11-30T12:00:00+18:00"}"#,
            r#"{"tz":"2026-11-30T12:00:00-18:00"}"#,
        ],
    );
    assert!(rejects.is_empty(), "{rejects:?}");
    let tz = batch.column(3).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(tz.value(1) - tz.value(0), 36 * 3_600_000_000);
    for beyond in ["+18:01", "-18:30", "+19"] {
        let reason = only_reject(&s, &format!(r#"{{"tz":"2026-11-30T12:00:00{beyond}"}}"#));
        assert!(reason.contains("offset"), "{beyond}: {reason}");
    }
}

/// A UTF-8 byte order mark before a message is stepped over, as Jackson steps over it.
#[test]
fn a_byte_order_mark_before_the_message_is_skipped() {
    let s = schema(vec![Field::new("a", DataType::Int64, true)]);
    let (batch, rejects) = decode(&s, &["\u{feff}{\"a\":1}", "{\"a\":2}"]);
    assert!(rejects.is_empty(), "{rejects:?}");
    let a = batch.column(0).as_primitive::<Int64Type>();
    assert_eq!((a.value(0), a.value(1)), (1, 2));
    let reason = only_reject(&s, "\u{feff}{\"a\":x}");
    assert!(
        reason.contains("at byte 8"),
        "positions are the message's bytes: {reason}"
    );
    only_reject(&s, "{\"a\":1}\u{feff}"); // only at the start
}

#[test]
fn binary_uuid_and_fixed() {
    let s = schema(vec![
        Field::new("bin", DataType::Binary, true),
        Field::new("lbin", DataType::LargeBinary, true),
        uuid_field("id"),
        Field::new("fixed", DataType::FixedSizeBinary(3), true),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"bin":"AAEC/w==","lbin":"","id":"123e4567-e89b-12d3-a456-426614174000","fixed":"AQID"}"#,
            r#"{"id":null}"#,
        ],
    );
    assert!(rejects.is_empty(), "{rejects:?}");
    assert_eq!(batch.column(0).as_binary::<i32>().value(0), [0, 1, 2, 255]);
    assert_eq!(batch.column(1).as_binary::<i64>().value(0), b"");
    let id = batch.column(2).as_fixed_size_binary();
    assert_eq!(id.value(0)[..4], [0x12, 0x3e, 0x45, 0x67]);
    assert!(id.is_null(1));
    assert_eq!(batch.column(3).as_fixed_size_binary().value(0), [1, 2, 3]);
    assert!(only_reject(&s, r#"{"id":"not-a-uuid"}"#).contains("is not a UUID"));
    assert!(only_reject(&s, r#"{"fixed":"AQIDBA=="}"#).contains("expected 3 bytes"));
    assert!(only_reject(&s, r#"{"bin":"***"}"#).contains("invalid base64"));
    // As java.util.Base64's decoder (Jackson, Iceberg's connector): padding optional, a last
    // symbol's unused bits ignored; a wrong padding is still refused.
    let (batch, rejects) = decode(&s, &[r#"{"bin":"AQ"}"#, r#"{"bin":"AR=="}"#]);
    assert!(rejects.is_empty(), "{rejects:?}");
    let bin = batch.column(0).as_binary::<i32>();
    assert_eq!((bin.value(0), bin.value(1)), (&[1u8][..], &[1u8][..]));
    assert!(only_reject(&s, r#"{"bin":"AQ="}"#).contains("invalid base64"));
}

#[test]
fn nested_struct_list_and_map() {
    let element = Arc::new(Field::new("element", DataType::Int64, true));
    let entries = Arc::new(Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", DataType::Utf8, true),
        ])),
        false,
    ));
    let s = schema(vec![
        Field::new(
            "point",
            DataType::Struct(Fields::from(vec![
                Field::new("x", DataType::Float64, false),
                Field::new("tags", DataType::List(element.clone()), true),
            ])),
            true,
        ),
        Field::new("attrs", DataType::Map(entries, false), true),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"point":{"x":1.5,"tags":[1,null,3]},"attrs":{"k1":"v1","k2":null}}"#,
            r#"{"point":null,"attrs":{}}"#,
            r#"{"point":{"x":2,"tags":[4, "five"]}}"#,
            r#"{"point":{"tags":[]}}"#,
            r#"{"point":{"x":3,"tags":[]},"attrs":null}"#,
        ],
    );
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(rejects.iter().map(|r| r.index).collect::<Vec<_>>(), [2, 3]);
    assert!(
        rejects[0]
            .reason
            .contains("field 'point.tags[1]': expected int64, found string"),
        "{}",
        rejects[0].reason
    );
    assert!(
        rejects[1]
            .reason
            .contains("field 'point': missing required field 'x'"),
        "{}",
        rejects[1].reason
    );
    let point = batch.column(0).as_struct();
    assert!(point.is_null(1));
    let x = point.column(0).as_primitive::<Float64Type>();
    assert_eq!((x.value(0), x.value(2)), (1.5, 3.0));
    let tags = point.column(1).as_list::<i32>();
    let first = tags.value(0);
    let first = first.as_primitive::<Int64Type>();
    assert_eq!(first.len(), 3);
    assert!(first.is_null(1));
    assert_eq!(
        tags.value(2).len(),
        0,
        "the rejected rows' elements were taken out"
    );
    let attrs = batch.column(1).as_map();
    assert_eq!(attrs.value_length(0), 2);
    assert_eq!(attrs.keys().as_string::<i32>().value(1), "k2");
    assert!(attrs.values().is_null(1));
    assert!(attrs.is_null(2));
}

/// Iceberg's maps hold each key once: a key given twice in one object (also as an escape of the
/// same text) is refused, naming the map, and a map with many keys is checked as well.
#[test]
fn a_map_key_given_twice_is_refused() {
    let s = schema(vec![string_to_int64_map("m")]);
    let many: String = (0..40).map(|i| format!("\"k{i}\":{i},")).collect();
    let many_twice = format!(r#"{{"m":{{{many}"k7":0}}}}"#);
    let many_once = format!(r#"{{"m":{{{many}"k40":40}}}}"#);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"m":{"k":1,"k":2}}"#,
            r#"{"m":{"k":1,"\u006b":2}}"#,
            r#"{"m":{"k":1,"j":2}}"#,
            &many_twice,
            &many_once,
            r#"{"m":{"k":3}}"#,
        ],
    );
    assert_eq!(
        rejects.iter().map(|r| r.index).collect::<Vec<_>>(),
        [0, 1, 3]
    );
    for reject in &rejects {
        assert!(
            reject.reason.contains("field 'm': duplicate map key"),
            "{}",
            reject.reason
        );
    }
    let m = batch.column(0).as_map();
    assert_eq!(
        (0..batch.num_rows())
            .map(|r| m.value_length(r))
            .collect::<Vec<_>>(),
        [2, 41, 1]
    );
}

/// A reason quotes at most an excerpt of the bad value: reasons travel into dead-letter headers,
/// where a megabyte of digits made the dead letter larger than the topic takes (the sink then
/// stops at the bad record).
#[test]
fn reasons_quote_an_excerpt_of_a_huge_bad_value() {
    let s = schema(vec![
        Field::new("i", DataType::Int64, true),
        Field::new("f", DataType::Float64, true),
        Field::new("d", DataType::Decimal128(10, 2), true),
        Field::new("t", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        Field::new("date", DataType::Date32, true),
        uuid_field("u"),
        string_to_int64_map("m"),
    ]);
    let digits = "9".repeat(1_000_000);
    let long_key = "k".repeat(1_000_000);
    let messages = [
        format!(r#"{{"i":{digits}}}"#),
        format!(r#"{{"i":1.{digits}}}"#),
        format!(r#"{{"f":{digits}e{digits}}}"#),
        format!(r#"{{"f":"{digits}"}}"#),
        format!(r#"{{"d":{digits}}}"#),
        format!(r#"{{"t":"{digits}"}}"#),
        format!(r#"{{"date":"2024-01-0{digits}"}}"#),
        format!(r#"{{"u":"{digits}"}}"#),
        format!(r#"{{"m":{{"{long_key}":1,"{long_key}":2}}}}"#),
    ];
    let (batch, rejects) = decode(&s, &messages.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(batch.num_rows(), 0);
    assert_eq!(rejects.len(), messages.len());
    for reject in &rejects {
        assert!(
            reject.reason.len() < 200 && reject.reason.contains("..."),
            "message {}: {} bytes: {}",
            reject.index,
            reject.reason.len(),
            &reject.reason[..reject.reason.len().min(300)]
        );
    }
    let mut strict = JsonDecoder::new(
        s.clone(),
        DecoderConfig {
            strict: true,
            ..DecoderConfig::default()
        },
    )
    .unwrap();
    let unknown = format!(r#"{{"{long_key}":1}}"#);
    let out = strict.decode([unknown.as_bytes()], false).unwrap();
    assert!(
        out.rejects[0].reason.len() < 200,
        "{}",
        out.rejects[0].reason.len()
    );
}

/// A reason's field path names the list element (its index) and the map value (its key) the bad
/// value was in, not only the schema's path.
#[test]
fn paths_name_the_list_element_and_the_map_key() {
    let c = Fields::from(vec![Field::new("c", DataType::Int64, true)]);
    let element = Arc::new(Field::new("element", DataType::Struct(c.clone()), true));
    let entries = Arc::new(Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", DataType::Struct(c), true),
        ])),
        false,
    ));
    let a = Fields::from(vec![
        Field::new("b", DataType::List(element), true),
        Field::new("m", DataType::Map(entries, false), true),
    ]);
    let s = schema(vec![Field::new("a", DataType::Struct(a), true)]);
    assert!(
        only_reject(&s, r#"{"a":{"b":[{"c":1},{"c":2},null,{"c":"oops"}]}}"#)
            .starts_with("field 'a.b[3].c': expected int64, found string \"oops\"")
    );
    assert!(
        only_reject(&s, r#"{"a":{"m":{"ok":{"c":1},"bad key":{"c":true}}}}"#)
            .starts_with(r#"field 'a.m{"bad key"}.c': expected int64, found boolean"#)
    );
    let shallow = DecoderConfig {
        max_depth: 3,
        ..DecoderConfig::default()
    };
    let (_, rejects) = decode_with(&s, &[r#"{"zz":[[[[1]]]]}"#], shallow);
    assert!(
        rejects[0]
            .reason
            .starts_with("field 'zz': nesting deeper than the limit of 3"),
        "an unknown field's value too: {}",
        rejects[0].reason
    );
}

#[test]
fn bad_messages_at_start_middle_and_end_are_isolated() {
    let s = schema(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
    ]);
    let messages = [
        r#"{"id":1,"name":"#,            // 0 truncated
        r#"{"id":2,"name":"two"}"#,      // good
        r#"[1,2]"#,                      // 2 not an object
        r#"{"id":"3"}"#,                 // 3 wrong type
        r#"{"id":4}"#,                   // good
        r#"{"name":"no id"}"#,           // 5 missing required
        r#"{"id":9223372036854775808}"#, // 6 out of range
        r#"{"id":6,"id":7}"#,            // 7 duplicate
        r#"{"id":8} trailing"#,          // 8 trailing data
        r#"{"id":null}"#,                // 9 required null
        r#""#,                           // 10 empty
        r#"{"id":10,"name":"ten"}"#,     // good
        r#"{"id":11,"name":"\ud800"}"#,  // 12 lone surrogate
        r#"{"id":1.5}"#,                 // 13 fraction for an integer
        r#"{"id":12,"name":"a\u00"#,     // 14 cut inside an escape
        r#"{"id":13,"name":"a\"#,        // 15 cut after a backslash
        r#"{"id":14,"name":"a\q"}"#,     // 16 unknown escape
        r#"nope"#,                       // 17 not a literal, though it starts as null does
        r#"tru"#,                        // 18 cut short
        r#"null"#,                       // 19 a JSON null
        " \t\r\n",                       // 20 blank
    ];
    let (batch, rejects) = decode(&s, &messages);
    let ids = batch.column(0).as_primitive::<Int64Type>();
    assert_eq!(ids.values().to_vec(), vec![2, 4, 10]);
    let names = batch.column(1).as_string::<i32>();
    assert_eq!(names.value(0), "two");
    assert!(names.is_null(1));
    assert_eq!(names.value(2), "ten");
    let expected: Vec<(usize, &str)> = vec![
        (0, "truncated message"),
        (2, "message is a JSON array, expected an object"),
        (3, "field 'id': expected int64, found string"),
        (5, "missing required field 'id'"),
        (6, "out of range for int64"),
        (7, "duplicate field 'id'"),
        (8, "unexpected data after the top-level object"),
        (9, "field 'id': null is not allowed"),
        (10, "empty message"),
        (12, "high surrogate without its low surrogate"),
        (13, "non-integer number 1.5"),
        (14, "truncated message inside a string"),
        (15, "truncated message inside a string"),
        (16, "unknown escape '\\q'"),
        (17, "invalid JSON"),
        (18, "truncated message"),
        (19, "message is a JSON null, expected an object"),
        (20, "blank message (whitespace only)"),
    ];
    assert_eq!(rejects.len(), expected.len(), "{rejects:?}");
    for (reject, (index, text)) in rejects.iter().zip(expected) {
        assert_eq!(reject.index, index);
        assert!(
            reject.reason.contains(text),
            "message {index}: {}",
            reject.reason
        );
    }
}

/// A packed batch is checked for UTF-8 in one pass; each message must still be valid on its own.
#[test]
fn packed_messages_are_each_checked_for_utf8() {
    let s = schema(vec![Field::new("s", DataType::Utf8, true)]);
    let mut decoder = JsonDecoder::new(s, DecoderConfig::default()).unwrap();
    // "é" is 0xC3 0xA9: the first message ends inside it, so the buffer as a whole is valid
    // UTF-8 while neither message is.
    let span: &[u8] = b"{\"s\":\"a\"}{\"s\":\"\xC3\xA9\"}\n{\"s\":\"b\"}";
    assert!(std::str::from_utf8(span).is_ok());
    let first = b"{\"s\":\"a\"}".len();
    let split = first + b"{\"s\":\"\xC3".len();
    let second_end = first + b"{\"s\":\"\xC3\xA9\"}".len();
    let messages = [
        &span[..first],
        &span[first..split],
        &span[split..second_end],
        &span[second_end..],
    ];
    let out = decoder.decode_packed(span, &messages, false).unwrap();
    let rejected: Vec<usize> = out.rejects.iter().map(|r| r.index).collect();
    assert_eq!(rejected, vec![1, 2], "{:?}", out.rejects);
    assert!(
        out.rejects
            .iter()
            .all(|r| r.reason.contains("invalid UTF-8")),
        "{:?}",
        out.rejects
    );
    let values = out.batch.column(0).as_string::<i32>();
    assert_eq!((values.value(0), values.value(1)), ("a", "b"));

    // Whole characters in packed messages decode as usual, escapes included.
    let span = "{\"s\":\"é\\u00e9\"}{\"s\":\"\\ud83d\\ude00 😀\"}".as_bytes();
    let cut = "{\"s\":\"é\\u00e9\"}".len();
    let out = decoder
        .decode_packed(span, &[&span[..cut], &span[cut..]], false)
        .unwrap();
    assert!(out.rejects.is_empty(), "{:?}", out.rejects);
    let values = out.batch.column(0).as_string::<i32>();
    assert_eq!((values.value(0), values.value(1)), ("éé", "😀 😀"));

    // Slices that do not tile the span are checked one by one (and still decode).
    let out = decoder
        .decode_packed(&span[..cut], &[&span[cut..]], false)
        .unwrap();
    assert_eq!(out.batch.num_rows(), 1);
}

/// Nesting is parsed on the caller's stack: a depth limit above the bounded one is refused, and a
/// message as deep as it allows decodes, in a release build, on a thread with a quarter of a Java
/// thread's stack.
#[test]
fn the_depth_limit_is_bounded_by_the_stack() {
    let too_deep = format!(
        r#"{{"version":1,"max_depth":{}}}"#,
        floe::json::MAX_DEPTH_LIMIT + 1
    );
    let err = DecoderConfig::from_json(too_deep.as_bytes()).expect_err("refused");
    assert!(
        err.message.contains("max_depth 1001 is above 1000"),
        "{}",
        err.message
    );
    // The release library's frames (what ships); unoptimized test builds take several times more.
    let stack = if cfg!(debug_assertions) {
        8 << 20
    } else {
        256 << 10
    };
    let deepest = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(|| {
            let s = schema(vec![Field::new("id", DataType::Int64, true)]);
            let config = DecoderConfig {
                max_depth: floe::json::MAX_DEPTH_LIMIT,
                describe_unknown_fields: true,
                ..DecoderConfig::default()
            };
            let levels = floe::json::MAX_DEPTH_LIMIT - 1;
            let arrays = format!(
                r#"{{"id":1,"a":{}1{}}}"#,
                "[".repeat(levels),
                "]".repeat(levels)
            );
            let objects = format!(
                r#"{{"id":2,"o":{}1{}}}"#,
                r#"{"k":"#.repeat(levels),
                "}".repeat(levels)
            );
            let mut decoder = JsonDecoder::new(s, config).unwrap();
            let out = decoder
                .decode([arrays.as_bytes(), objects.as_bytes()], false)
                .unwrap();
            (out.batch.num_rows(), decoder.take_unknown_fields().len())
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(deepest, (2, 2));
}

#[test]
fn limits_invalid_utf8_and_stop_at_first() {
    let s = schema(vec![Field::new(
        "v",
        DataType::List(Arc::new(Field::new("element", DataType::Int64, true))),
        true,
    )]);
    let config = DecoderConfig {
        max_depth: 3,
        max_message_bytes: 40,
        ..DecoderConfig::default()
    };
    let deep = r#"{"x":[[[[1]]]]}"#;
    let big = format!(r#"{{"v":[{}]}}"#, vec!["1"; 30].join(","));
    let mut decoder = JsonDecoder::new(s.clone(), config).unwrap();
    let bad_utf8: &[u8] = b"{\"v\":[1],\"s\":\"\xff\"}";
    let messages: Vec<&[u8]> = vec![deep.as_bytes(), big.as_bytes(), bad_utf8, b"{\"v\":[7]}"];
    let out = decoder.decode(messages.clone(), false).unwrap();
    assert_eq!(out.batch.num_rows(), 1);
    assert!(out.rejects[0]
        .reason
        .contains("nesting deeper than the limit of 3"));
    assert!(out.rejects[1]
        .reason
        .contains("exceeds the limit of 40 bytes"));
    assert!(
        out.rejects[2].reason.contains("invalid UTF-8 (at byte 14)"),
        "{}",
        out.rejects[2].reason
    );

    let out = decoder.decode(messages, true).unwrap();
    assert!(out.stopped);
    assert_eq!(out.rejects.len(), 1);
    assert_eq!(out.batch.num_rows(), 0);
}

#[test]
fn decoder_is_reusable_across_batches() {
    let s = schema(vec![Field::new("a", DataType::Utf8, true)]);
    let mut decoder = JsonDecoder::new(s, DecoderConfig::default()).unwrap();
    for round in 0..3 {
        let msgs = [format!(r#"{{"a":"r{round}"}}"#), "{\"a\":".to_string()];
        let out = decoder
            .decode(msgs.iter().map(|m| m.as_bytes()), false)
            .unwrap();
        assert_eq!(out.batch.num_rows(), 1);
        assert_eq!(
            out.batch.column(0).as_string::<i32>().value(0),
            format!("r{round}")
        );
    }
}

#[test]
fn unsupported_types_are_named_at_creation() {
    let s = schema(vec![Field::new(
        "outer",
        DataType::Struct(Fields::from(vec![Field::new(
            "d",
            DataType::Duration(TimeUnit::Second),
            true,
        )])),
        true,
    )]);
    let err = JsonDecoder::new(s, DecoderConfig::default()).err().unwrap();
    assert!(err.message.contains("outer.d"), "{}", err.message);
}

/// Runs of null structs reach their children in bulk; the rows must line up all the same,
/// also around a bad message taken out again and at the end of the batch.
#[test]
fn runs_of_null_structs_line_up_with_their_neighbours() {
    let inner = Fields::from(vec![
        Field::new("b", DataType::Utf8, true),
        Field::new("c", DataType::Boolean, true),
    ]);
    let outer = Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("t", DataType::Struct(inner), true),
        Field::new(
            "l",
            DataType::List(Arc::new(Field::new("item", DataType::Int32, true))),
            true,
        ),
    ]);
    let s = schema(vec![Field::new("s", DataType::Struct(outer), true)]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"s":null}"#,
            r#"{"s":null}"#,
            r#"{"s":{"a":1,"t":null,"l":[1,2]}}"#,
            r#"{"s":{"a":"bad"}}"#,
            r#"{"s":null}"#,
            r#"{"s":{"t":{"b":"x","c":true}}}"#,
            r#"{"s":{"a":5,"t":{"b":"cut"#,
            r#"{"s":null}"#,
            r#"{"s":{"a":2,"t":{"b":"y"},"l":null}}"#,
            r#"{}"#,
            r#"{"s":null}"#,
        ],
    );
    let rejected: Vec<usize> = rejects.iter().map(|r| r.index).collect();
    assert_eq!(rejected, vec![3, 6]);
    let outer = batch.column(0).as_struct();
    assert_eq!(outer.len(), 9);
    let nulls: Vec<bool> = (0..9).map(|i| outer.is_null(i)).collect();
    assert_eq!(
        nulls,
        [true, true, false, true, false, true, false, true, true]
    );
    let a = outer.column(0).as_primitive::<Int64Type>();
    let t = outer.column(1).as_struct();
    let l = outer.column(2).as_list::<i32>();
    assert!(a.len() == 9 && t.len() == 9 && l.len() == 9);
    assert_eq!(
        a.iter().collect::<Vec<_>>()[2..7],
        [Some(1), None, None, None, Some(2)]
    );
    let present: Vec<usize> = (0..9).filter(|&i| t.is_valid(i)).collect();
    assert_eq!(present, vec![4, 6]);
    let b = t.column(0).as_string::<i32>();
    let c = t.column(1).as_boolean();
    assert_eq!((b.value(4), c.value(4)), ("x", true));
    assert_eq!(b.value(6), "y");
    assert!(c.is_null(6) && b.len() == 9 && c.len() == 9);
    let list = l.value(2);
    assert_eq!(
        list.as_primitive::<Int32Type>().values().to_vec(),
        vec![1, 2]
    );
    assert!(l.is_null(6) && l.is_null(4));
}

#[test]
fn unknown_fields_are_reported_by_path_and_kind_when_asked() {
    let point = Fields::from(vec![Field::new("x", DataType::Int64, true)]);
    let s = schema(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("point", DataType::Struct(point.clone()), true),
        Field::new(
            "points",
            DataType::List(Arc::new(Field::new(
                "element",
                DataType::Struct(point),
                true,
            ))),
            true,
        ),
    ]);
    let messages = [
        r#"{"id":1,"extra":"a","point":{"x":1,"y":2}}"#,
        r#"{"id":2,"extra":3,"point":{"x":1,"y":2.5},"points":[{"x":1,"z":true},{"z":null}]}"#,
        r#"{"id":3,"more":{"deep":[1]},"extra":4e2}"#,
    ];
    let config = DecoderConfig {
        report_unknown_fields: true,
        ..DecoderConfig::default()
    };
    let mut decoder = JsonDecoder::new(s.clone(), config).unwrap();
    let decoded = decoder
        .decode(messages.iter().map(|m| m.as_bytes()), false)
        .unwrap();
    assert_eq!(decoded.batch.num_rows(), 3, "unknown fields do not reject");
    let mut unknown: Vec<(String, Vec<&str>, u64)> = decoder
        .take_unknown_fields()
        .into_iter()
        .map(|f| (f.path, f.kinds, f.count))
        .collect();
    unknown.sort();
    assert_eq!(
        unknown,
        vec![
            ("extra".to_string(), vec!["string", "integer", "float"], 3),
            ("more".to_string(), vec!["object"], 1),
            ("point.y".to_string(), vec!["integer", "float"], 2),
            ("points[].z".to_string(), vec!["boolean", "null"], 2),
        ]
    );
    assert!(
        decoder.take_unknown_fields().is_empty(),
        "taking them forgets them"
    );

    // Off by default: nothing is counted.
    let mut quiet = JsonDecoder::new(s, DecoderConfig::default()).unwrap();
    quiet
        .decode(messages.iter().map(|m| m.as_bytes()), false)
        .unwrap();
    assert!(quiet.take_unknown_fields().is_empty());
}

fn with_id(field: Field, id: i32) -> Field {
    field.with_metadata(HashMap::from([(
        "PARQUET:field_id".to_string(),
        id.to_string(),
    )]))
}

#[test]
fn described_unknown_fields_carry_their_shapes_and_parents() {
    let point = Fields::from(vec![with_id(Field::new("x", DataType::Int64, true), 3)]);
    let s = schema(vec![
        with_id(Field::new("id", DataType::Int64, false), 1),
        with_id(
            Field::new("point", DataType::Struct(point.clone()), true),
            2,
        ),
        with_id(
            Field::new(
                "points",
                DataType::List(Arc::new(with_id(
                    Field::new("element", DataType::Struct(point), true),
                    5,
                ))),
                true,
            ),
            4,
        ),
    ]);
    let messages = [
        r#"{"id":1,"tags":[],"point":{"x":1,"y":2},"seen":null}"#,
        r#"{"id":2,"tags":["a"],"point":{"y":2.5},"points":[{"z":{"k":1}},{"z":{"k":null,"j":true}}]}"#,
        r#"{"id":3,"meta":{"deep":[1,2.5],"n":null},"tags":[null,"b"],"seen":7,"odd":1}"#,
        r#"{"id":4,"odd":"x"}"#,
    ];
    let config = DecoderConfig {
        describe_unknown_fields: true,
        ..DecoderConfig::default()
    };
    let mut decoder = JsonDecoder::new(s, config).unwrap();
    let decoded = decoder
        .decode(messages.iter().map(|m| m.as_bytes()), false)
        .unwrap();
    assert_eq!(decoded.batch.num_rows(), 4, "unknown fields do not reject");
    let mut unknown = decoder.take_unknown_fields();
    unknown.sort_by(|a, b| a.path.cmp(&b.path));
    let json = serde_json::to_value(&unknown).unwrap();
    let expected = serde_json::json!([
        {"path": "meta", "name": "meta", "kinds": ["object"], "count": 1, "shape": {"object": [
            {"name": "deep", "shape": {"array": "float"}},
            {"name": "n", "shape": "null"}]}},
        // The first kind met stays; the string will not fit the column made for it.
        {"path": "odd", "name": "odd", "kinds": ["string", "integer"], "count": 2, "shape": "integer"},
        {"path": "point.y", "name": "y", "kinds": ["integer", "float"], "count": 2, "parent_id": 2,
            "shape": "float"},
        {"path": "points[].z", "name": "z", "kinds": ["object"], "count": 2, "parent_id": 5,
            "shape": {"object": [
                {"name": "k", "shape": "integer"},
                {"name": "j", "shape": "boolean"}]}},
        {"path": "seen", "name": "seen", "kinds": ["integer", "null"], "count": 2, "shape": "integer"},
        {"path": "tags", "name": "tags", "kinds": ["array"], "count": 3, "shape": {"array": "string"}},
    ]);
    assert_eq!(json, expected);
}

#[test]
fn described_decoding_reports_values_that_need_a_wider_column() {
    let s = schema(vec![
        with_id(Field::new("n", DataType::Int32, true), 1),
        with_id(Field::new("f", DataType::Float32, true), 2),
        with_id(Field::new("d", DataType::Decimal128(5, 2), true), 3),
    ]);
    let messages = [
        r#"{"n":1,"f":1.5,"d":"123.45"}"#,
        r#"{"n":3000000000}"#,
        r#"{"n":-3000000000}"#,
        r#"{"f":1e300}"#,
        r#"{"d":12345678.9}"#,
        r#"{"d":-123456.5}"#,
        r#"{"n":1e99}"#,
    ];
    let config = DecoderConfig {
        describe_unknown_fields: true,
        ..DecoderConfig::default()
    };
    let mut decoder = JsonDecoder::new(s.clone(), config).unwrap();
    let decoded = decoder
        .decode(messages.iter().map(|m| m.as_bytes()), false)
        .unwrap();
    assert_eq!(
        decoded.batch.num_rows(),
        1,
        "too-wide values still reject their messages"
    );
    let reasons: Vec<&str> = decoded.rejects.iter().map(|r| r.reason.as_str()).collect();
    assert!(
        reasons[0].contains("3000000000 is out of range for int32") && reasons[0].contains("'n'"),
        "{reasons:?}"
    );
    let mut widen = decoder.take_unknown_fields();
    widen.sort_by(|a, b| a.path.cmp(&b.path));
    let json = serde_json::to_value(&widen).unwrap();
    assert_eq!(
        json,
        serde_json::json!([
            {"path": "d", "kinds": ["decimal"], "count": 2, "field_id": 3, "widen_to": "decimal(10,2)"},
            {"path": "f", "kinds": ["float"], "count": 1, "field_id": 2, "widen_to": "double"},
            // 1e99 is no integer: rejected, and no widening would hold it.
            {"path": "n", "kinds": ["integer"], "count": 2, "field_id": 1, "widen_to": "long"},
        ])
    );

    // Without describing, the same values are rejected and nothing is counted.
    let mut plain = JsonDecoder::new(
        s,
        DecoderConfig {
            report_unknown_fields: true,
            ..DecoderConfig::default()
        },
    )
    .unwrap();
    let decoded = plain
        .decode(messages.iter().map(|m| m.as_bytes()), false)
        .unwrap();
    assert_eq!(decoded.rejects.len(), 6);
    assert!(plain.take_unknown_fields().is_empty());
}

fn with_default(field: Field, json: &str) -> Field {
    field.with_metadata(HashMap::from([(
        "floe.write-default".to_string(),
        json.to_string(),
    )]))
}

#[test]
fn missing_fields_take_their_write_default_and_explicit_nulls_stay_null() {
    let s = schema(vec![
        Field::new("id", DataType::Int64, false),
        with_default(Field::new("city", DataType::Utf8, true), r#""nowhere""#),
        with_default(Field::new("level", DataType::Int32, false), "7"),
        with_default(Field::new("day", DataType::Date32, true), r#""2024-02-29""#),
    ]);
    let (batch, rejects) = decode(
        &s,
        &[
            r#"{"id":1}"#,
            r#"{"id":2,"city":"x","level":1,"day":"2024-01-01"}"#,
            r#"{"id":3,"city":null,"day":null}"#,
        ],
    );
    assert!(rejects.is_empty(), "{rejects:?}");
    let city = batch.column(1).as_string::<i32>();
    assert_eq!(
        (0..3)
            .map(|i| city.is_valid(i).then(|| city.value(i)))
            .collect::<Vec<_>>(),
        vec![Some("nowhere"), Some("x"), None]
    );
    assert_eq!(
        batch
            .column(2)
            .as_primitive::<Int32Type>()
            .values()
            .to_vec(),
        vec![7, 1, 7],
        "a required field with a default may be missing"
    );
    let day = batch.column(3).as_primitive::<Date32Type>();
    assert_eq!(day.value(0), 19782); // 2024-02-29
    assert_eq!(day.value(1), 19723); // 2024-01-01
    assert!(day.is_null(2));
}

#[test]
fn a_write_default_that_does_not_decode_is_refused_naming_its_field() {
    let s = schema(vec![with_default(
        Field::new("level", DataType::Int32, true),
        r#""seven""#,
    )]);
    let err = JsonDecoder::new(s, DecoderConfig::default())
        .err()
        .expect("refused");
    assert!(
        err.to_string()
            .contains("field 'level': its write default (floe.write-default) does not decode"),
        "{err}"
    );
}
