//! One JSON message -> one row, written as a compact "row tape" a JVM reads back into Flink
//! `RowData`: the native half of floe's `floe-json` Flink format.
//!
//! The contract is **exact or fallback**. A message is decoded here only when the result is
//! certainly the row Flink's own `json` format (`JsonParserToRowDataConverters`) makes of it;
//! anything else -- malformed JSON, a value Flink would coerce (a quoted number, a float for an
//! int, `"True"`), a duplicate key, a timestamp in a form other than the format's canonical one,
//! a decimal that would round, a missing field under `fail-on-missing-field` -- returns
//! [`Outcome::Fallback`], and the caller runs Flink's own decoder on it. So the Java side always
//! produces Flink's row (or Flink's error), and the common, clean message is fast.
//!
//! # The tape
//!
//! Little-endian, read in the order written:
//! - row: `(u16 field index, value)*` then `u16 0xFFFF`; a field that is absent or `null` is not
//!   written (the row's field stays null);
//! - bool, i8: 1 byte; i16: 2; i32, date (days), time (ms of day), f32: 4; i64, f64: 8;
//! - timestamp: i64 epoch millis, i32 nano of milli;
//! - decimal: u8 0 and i64 unscaled, or u8 1 and (u32 length, ASCII unscaled digits);
//! - string, binary: u32 length, bytes (strings UTF-8, escapes decoded);
//! - array: u32 count, then per element u8 0 (null) or u8 1 and the value;
//! - map: u32 count, then per entry (u32 length, key bytes), u8 0 or 1, the value.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, TimeUnit};
use base64::Engine;

use super::binary_row::{binary_capable, BinaryRowSink, BinaryRows};
use super::cursor::{Cursor, Token};
use crate::error::FloeError;

/// Arrow field metadata: a timestamp field's Flink precision (`"0"` to `"9"`), which binary rows
/// need (a precision of at most 3 is stored as millis).
pub const TIMESTAMP_PRECISION: &str = "floe.flink.timestamp_precision";
/// In binary-row mode, the first byte of [`RowTapeDecoder::output`] when a Flink
/// `BinaryRowData` follows.
pub const OUTPUT_BINARY_ROW: u8 = 1;
/// In binary-row mode, the first byte of [`RowTapeDecoder::output`] when a row tape follows (a
/// row the binary layout cannot hold exactly).
pub const OUTPUT_ROW_TAPE: u8 = 0;

const END_OF_ROW: u16 = 0xFFFF;
/// Longer number texts are left to Jackson, which has its own limits.
const MAX_NUMBER_TEXT: usize = 100;

/// What a message decoded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The row is on the tape.
    Row,
    /// Not certainly Flink's row: decode the message with Flink's own format.
    Fallback,
}

/// Anything that sends a message to the fallback; carries nothing, costs nothing.
pub(super) struct Fallback;

pub(super) type Step<T = ()> = Result<T, Fallback>;

impl From<super::error::DecodeError> for Fallback {
    fn from(_: super::error::DecodeError) -> Self {
        Fallback
    }
}

/// How `TIMESTAMP` and `TIMESTAMP_LTZ` strings are written (`timestamp-format.standard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampStandard {
    /// `yyyy-MM-dd HH:mm:ss[.fraction]`, `Z` after it for `TIMESTAMP_LTZ`.
    Sql,
    /// `yyyy-MM-ddTHH:mm:ss[.fraction]`, `Z` after it for `TIMESTAMP_LTZ`.
    Iso8601,
}

#[derive(Debug)]
pub(super) enum Kind {
    Bool,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Date,
    Time,
    /// `precision` is Flink's (from the field's [`TIMESTAMP_PRECISION`] metadata), if given:
    /// only binary rows need it.
    Timestamp {
        utc: bool,
        precision: Option<u8>,
    },
    Decimal {
        precision: u8,
        scale: u8,
    },
    Utf8,
    Binary,
    Row(RowShape),
    Array(Box<Kind>),
    Map(Box<Kind>),
}

#[derive(Debug)]
pub(super) struct RowShape {
    names: Vec<String>,
    /// Each field's key as compact JSON writes it after another: `,"name":` (the first key of
    /// an object drops the comma). Keys that arrive in schema order are matched whole.
    compact_keys: Vec<Vec<u8>>,
    pub(super) kinds: Vec<Kind>,
    /// Wide rows look keys up here; narrow ones scan `names`.
    index: Option<HashMap<String, u16>>,
}

impl RowShape {
    pub(super) fn new(fields: &[Arc<Field>]) -> Result<Self, FloeError> {
        if fields.len() >= END_OF_ROW as usize {
            return Err(FloeError::invalid_argument(format!(
                "rows of {} fields are too wide",
                fields.len()
            )));
        }
        let mut names = Vec::with_capacity(fields.len());
        let mut kinds = Vec::with_capacity(fields.len());
        for field in fields {
            names.push(field.name().clone());
            kinds.push(Kind::of(field)?);
        }
        let index = (names.len() > 16).then(|| {
            names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i as u16))
                .collect()
        });
        let compact_keys = names
            .iter()
            .map(|n| serde_json::to_vec(n).map(|quoted| [&b","[..], &quoted, b":"].concat()))
            .collect::<Result<_, _>>()
            .map_err(|e| FloeError::invalid_argument(format!("field name: {e}")))?;
        Ok(Self {
            names,
            compact_keys,
            kinds,
            index,
        })
    }

    /// The field named `key`, trying `expected` (the next in schema order) first.
    #[inline]
    fn find(&self, key: &str, expected: usize) -> Option<usize> {
        if self.names.get(expected).is_some_and(|n| n == key) {
            return Some(expected);
        }
        match &self.index {
            Some(index) => index.get(key).map(|&i| i as usize),
            None => self.names.iter().position(|n| n == key),
        }
    }
}

impl Kind {
    fn of(field: &Field) -> Result<Self, FloeError> {
        let unsupported = || {
            FloeError::invalid_argument(format!(
                "floe-json does not decode field '{}' of type {}",
                field.name(),
                field.data_type()
            ))
        };
        Ok(match field.data_type() {
            DataType::Boolean => Kind::Bool,
            DataType::Int8 => Kind::I8,
            DataType::Int16 => Kind::I16,
            DataType::Int32 => Kind::I32,
            DataType::Int64 => Kind::I64,
            DataType::Float32 => Kind::F32,
            DataType::Float64 => Kind::F64,
            DataType::Date32 => Kind::Date,
            DataType::Time32(TimeUnit::Millisecond) => Kind::Time,
            DataType::Timestamp(TimeUnit::Nanosecond, zone) => Kind::Timestamp {
                utc: zone.is_some(),
                precision: match field.metadata().get(TIMESTAMP_PRECISION) {
                    None => None,
                    Some(p) => Some(p.parse().ok().filter(|p| *p <= 9).ok_or_else(|| {
                        FloeError::invalid_argument(format!(
                            "field '{}': {TIMESTAMP_PRECISION} '{p}' is not a precision 0-9",
                            field.name()
                        ))
                    })?),
                },
            },
            DataType::Decimal128(precision, scale) if *scale >= 0 && *scale as u8 <= *precision => {
                Kind::Decimal {
                    precision: *precision,
                    scale: *scale as u8,
                }
            }
            DataType::Utf8 => Kind::Utf8,
            DataType::Binary => Kind::Binary,
            DataType::Struct(fields) => Kind::Row(RowShape::new(fields)?),
            DataType::List(element) => Kind::Array(Box::new(Kind::of(element)?)),
            DataType::Map(entries, _) => match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 && kv[0].data_type() == &DataType::Utf8 => {
                    Kind::Map(Box::new(Kind::of(&kv[1])?))
                }
                _ => return Err(unsupported()),
            },
            _ => return Err(unsupported()),
        })
    }
}

/// The settings of Flink's `json` format that change a row: `timestamp-format.standard`
/// (`"SQL"` or `"ISO-8601"`) and `fail-on-missing-field` (`ignore-parse-errors` changes only
/// what happens to a bad message, which is the fallback's); and `binary_rows`, what a decoded
/// row is returned as (see [`RowTapeDecoder::output`]).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowTapeConfig {
    pub version: u32,
    pub timestamp_format: String,
    pub fail_on_missing_field: bool,
    #[serde(default)]
    pub binary_rows: bool,
}

/// The version of [`RowTapeConfig`] this library reads.
pub const ROW_TAPE_CONFIG_VERSION: u32 = 1;

impl RowTapeConfig {
    pub fn from_json(bytes: &[u8]) -> Result<Self, FloeError> {
        let config: Self = serde_json::from_slice(bytes)
            .map_err(|e| FloeError::invalid_argument(format!("row decoder config: {e}")))?;
        if config.version != ROW_TAPE_CONFIG_VERSION {
            return Err(FloeError::invalid_argument(format!(
                "row decoder config: version {} is not supported (this library reads version {ROW_TAPE_CONFIG_VERSION})",
                config.version
            )));
        }
        Ok(config)
    }

    fn standard(&self) -> Result<TimestampStandard, FloeError> {
        match self.timestamp_format.as_str() {
            "SQL" => Ok(TimestampStandard::Sql),
            "ISO-8601" => Ok(TimestampStandard::Iso8601),
            other => Err(FloeError::invalid_argument(format!(
                "row decoder config: timestamp_format '{other}' is neither SQL nor ISO-8601"
            ))),
        }
    }
}

/// Decodes messages of one row type; keeps its tape between calls. Not thread-safe.
pub struct RowTapeDecoder {
    root: RowShape,
    timestamps: TimestampStandard,
    fail_on_missing_field: bool,
    tape: Vec<u8>,
    scratch: String,
    /// Binary-row mode: the writer's scratch space and what [`Self::output`] returns.
    binary: Option<BinaryRows>,
}

impl RowTapeDecoder {
    /// A decoder for rows of `schema` (its fields are the row's): Arrow types stand for Flink's
    /// (`Int8` TINYINT, `Time32(ms)` TIME, `Timestamp(ns[, tz])` TIMESTAMP[_LTZ], `Decimal128`
    /// DECIMAL, `Utf8` CHAR/VARCHAR, `Binary` BINARY/VARBINARY, struct ROW, list ARRAY, map with
    /// string keys MAP).
    pub fn with_config(schema: &Schema, config: &RowTapeConfig) -> Result<Self, FloeError> {
        let decoder = Self::new(schema, config.standard()?, config.fail_on_missing_field)?;
        if config.binary_rows {
            decoder.with_binary_rows()
        } else {
            Ok(decoder)
        }
    }

    /// Binary-row mode: [`Self::output`] is Flink's `BinaryRowData` of each row (see
    /// `binary_row.rs`). Refused for rows holding a map or a timestamp without its
    /// [`TIMESTAMP_PRECISION`].
    pub fn with_binary_rows(mut self) -> Result<Self, FloeError> {
        binary_capable(&self.root).map_err(|what| {
            FloeError::invalid_argument(format!(
                "binary rows cannot hold this row type: it has {what}"
            ))
        })?;
        self.binary = Some(BinaryRows::default());
        Ok(self)
    }

    pub fn new(
        schema: &Schema,
        timestamps: TimestampStandard,
        fail_on_missing_field: bool,
    ) -> Result<Self, FloeError> {
        Ok(Self {
            root: RowShape::new(schema.fields())?,
            timestamps,
            fail_on_missing_field,
            tape: Vec::with_capacity(1024),
            scratch: String::new(),
            binary: None,
        })
    }

    /// The tape of the last [`Outcome::Row`] outside binary-row mode (in it, rows are usually
    /// written without a tape: read [`Self::output`]).
    pub fn tape(&self) -> &[u8] {
        &self.tape
    }

    /// What the caller receives for the last [`Outcome::Row`]: its tape; in binary-row mode,
    /// [`OUTPUT_BINARY_ROW`] and the row's `BinaryRowData` bytes, or (for a row the binary
    /// layout cannot hold exactly) [`OUTPUT_ROW_TAPE`] and its tape.
    pub fn output(&self) -> &[u8] {
        match &self.binary {
            Some(binary) => &binary.output,
            None => &self.tape,
        }
    }

    /// Decodes one message; on [`Outcome::Row`] the row is in [`Self::output`].
    ///
    /// In binary-row mode the row is written as a binary row while it is parsed. A message whose
    /// keys come out of field order (Flink writes the variable part in field order), or whose row
    /// the layout cannot hold, is parsed again onto the tape, which is then rewritten or sent.
    pub fn decode(&mut self, message: &[u8]) -> Outcome {
        self.tape.clear();
        let Ok(text) = simdutf8::basic::from_utf8(message) else {
            return Outcome::Fallback; // Jackson's error, or its replacement characters
        };
        let settings = (self.timestamps, self.fail_on_missing_field);
        let Some(binary) = &mut self.binary else {
            let tape = TapeSink {
                tape: &mut self.tape,
            };
            return parse(text, &self.root, tape, &mut self.scratch, settings).0;
        };
        binary.output.clear();
        binary.output.push(OUTPUT_BINARY_ROW);
        let sink = BinaryRowSink::new(&mut binary.output, &mut binary.scratch);
        let (outcome, sink) = parse(text, &self.root, sink, &mut self.scratch, settings);
        if outcome == Outcome::Row || !sink.unfused() {
            return outcome;
        }
        let tape = TapeSink {
            tape: &mut self.tape,
        };
        let (outcome, _) = parse(text, &self.root, tape, &mut self.scratch, settings);
        if outcome == Outcome::Row {
            binary.rewrite(&self.root, &self.tape);
        }
        outcome
    }
}

/// Parses `text` as one row of `root` into `sink`; returns the sink for the caller to inspect.
pub(super) fn parse<S: RowSink>(
    text: &str,
    root: &RowShape,
    sink: S,
    scratch: &mut String,
    (timestamps, fail_on_missing_field): (TimestampStandard, bool),
) -> (Outcome, S) {
    // Flink's parser is Jackson: a token longer than it reads is its error, so the fallback's.
    let mut cursor = Cursor::new(text, 1000).with_jackson_limits();
    // A top-level array is several rows in Flink's format: the fallback's.
    if cursor.peek() != Token::Object {
        return (Outcome::Fallback, sink);
    }
    let mut parser = RowParser {
        sink,
        scratch,
        timestamps,
        fail_on_missing_field,
    };
    let parsed = parser
        .row(&mut cursor, root)
        .and_then(|()| cursor.finish().map_err(Fallback::from));
    let outcome = match parsed {
        Ok(()) => Outcome::Row,
        Err(Fallback) => Outcome::Fallback,
    };
    (outcome, parser.sink)
}

/// Where a parsed row goes: onto a row tape ([`TapeSink`]) or into Flink's binary row
/// ([`BinaryRowSink`]). The parser calls it in message order; values go to the field (or the
/// array element) announced last.
pub(super) trait RowSink {
    fn begin_row(&mut self, arity: usize);
    /// A present, non-null value of `field` follows.
    fn field(&mut self, field: usize) -> Step;
    fn end_row(&mut self);
    /// Bool, i8, i16, i32, i64, f32, f64, date (days), time (ms of day): little-endian bytes.
    fn fixed<const N: usize>(&mut self, bytes: [u8; N]);
    fn timestamp(&mut self, millis: i64, nano_of_milli: i32, precision: Option<u8>) -> Step;
    /// A decimal's unscaled digits (no sign, no leading zeros; empty for zero).
    fn decimal(&mut self, negative: bool, unscaled: &str, precision: u8) -> Step;
    /// A string's UTF-8 or a binary's bytes.
    fn bytes(&mut self, bytes: &[u8]);
    /// Returns a token for [`Self::end_array`].
    fn begin_array(&mut self) -> usize;
    /// Before each array element or map value: whether it is non-null (a value follows).
    fn element(&mut self, present: bool);
    fn end_array(&mut self, token: usize, count: u32, element: &Kind) -> Step;
    /// Returns a token for [`Self::end_map`].
    fn begin_map(&mut self) -> usize;
    fn map_key(&mut self, key: &[u8]);
    fn end_map(&mut self, token: usize, count: u32);
}

/// Writes the row tape (see the module's doc).
pub(super) struct TapeSink<'t> {
    pub(super) tape: &'t mut Vec<u8>,
}

impl TapeSink<'_> {
    fn count_placeholder(&mut self) -> usize {
        let at = self.tape.len();
        self.tape.extend_from_slice(&[0; 4]);
        at
    }

    fn patch_count(&mut self, at: usize, count: u32) {
        self.tape[at..at + 4].copy_from_slice(&count.to_le_bytes());
    }

    fn length_and_bytes(&mut self, bytes: &[u8]) {
        self.tape
            .extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.tape.extend_from_slice(bytes);
    }
}

impl RowSink for TapeSink<'_> {
    #[inline]
    fn begin_row(&mut self, _arity: usize) {}

    #[inline]
    fn field(&mut self, field: usize) -> Step {
        self.tape.extend_from_slice(&(field as u16).to_le_bytes());
        Ok(())
    }

    #[inline]
    fn end_row(&mut self) {
        self.tape.extend_from_slice(&END_OF_ROW.to_le_bytes());
    }

    #[inline]
    fn fixed<const N: usize>(&mut self, bytes: [u8; N]) {
        self.tape.extend_from_slice(&bytes);
    }

    fn timestamp(&mut self, millis: i64, nano_of_milli: i32, _precision: Option<u8>) -> Step {
        self.tape.extend_from_slice(&millis.to_le_bytes());
        self.tape.extend_from_slice(&nano_of_milli.to_le_bytes());
        Ok(())
    }

    fn decimal(&mut self, negative: bool, unscaled: &str, precision: u8) -> Step {
        if precision <= 18 {
            let magnitude: i64 = if unscaled.is_empty() {
                0
            } else {
                unscaled.parse().map_err(|_| Fallback)?
            };
            self.tape.push(0);
            self.tape
                .extend_from_slice(&(if negative { -magnitude } else { magnitude }).to_le_bytes());
        } else {
            let mut digits = String::with_capacity(unscaled.len() + 1);
            if negative && !unscaled.is_empty() {
                digits.push('-');
            }
            digits.push_str(if unscaled.is_empty() { "0" } else { unscaled });
            self.tape.push(1);
            self.length_and_bytes(digits.as_bytes());
        }
        Ok(())
    }

    #[inline]
    fn bytes(&mut self, bytes: &[u8]) {
        self.length_and_bytes(bytes);
    }

    fn begin_array(&mut self) -> usize {
        self.count_placeholder()
    }

    #[inline]
    fn element(&mut self, present: bool) {
        self.tape.push(present as u8);
    }

    fn end_array(&mut self, token: usize, count: u32, _element: &Kind) -> Step {
        self.patch_count(token, count);
        Ok(())
    }

    fn begin_map(&mut self) -> usize {
        self.count_placeholder()
    }

    fn map_key(&mut self, key: &[u8]) {
        self.length_and_bytes(key);
    }

    fn end_map(&mut self, token: usize, count: u32) {
        self.patch_count(token, count);
    }
}

/// Flink's `json` format's rules for one message (exact or fallback), its values handed to a
/// [`RowSink`].
struct RowParser<'t, S> {
    sink: S,
    scratch: &'t mut String,
    timestamps: TimestampStandard,
    fail_on_missing_field: bool,
}

impl<S: RowSink> RowParser<'_, S> {
    fn row(&mut self, cursor: &mut Cursor, shape: &RowShape) -> Step {
        cursor.begin_object()?;
        self.sink.begin_row(shape.kinds.len());
        let mut seen = SeenFields::new(shape.names.len());
        let mut expected = 0;
        let mut first = true;
        loop {
            // Compact JSON in schema order: the next key is matched whole, without a scan.
            let in_order = shape
                .compact_keys
                .get(expected)
                .is_some_and(|key| cursor.try_compact_key(if first { &key[1..] } else { key }));
            let field = if in_order {
                expected
            } else {
                let Some(key) = cursor.next_key(first)? else {
                    break;
                };
                match shape.find(key, expected) {
                    Some(field) => field,
                    None => {
                        first = false;
                        cursor.skip_value()?;
                        continue;
                    }
                }
            };
            first = false;
            if !seen.insert(field) {
                return Err(Fallback); // Flink counts repeats towards the arity: its own rules
            }
            expected = field + 1;
            if cursor.take_null()? {
                continue;
            }
            self.sink.field(field)?;
            self.value(cursor, &shape.kinds[field])?;
        }
        if self.fail_on_missing_field && seen.count < shape.names.len() {
            return Err(Fallback); // Flink's "Some field is missing" error
        }
        self.sink.end_row();
        Ok(())
    }

    fn value(&mut self, cursor: &mut Cursor, kind: &Kind) -> Step {
        match kind {
            Kind::Bool => match cursor.peek() {
                Token::Bool => {
                    let v = cursor.parse_bool()?;
                    self.sink.fixed([v as u8]);
                }
                _ => return Err(Fallback),
            },
            Kind::I8 => {
                let v = self.integer(cursor, i8::MIN as i64, i8::MAX as i64)?;
                self.sink.fixed([v as i8 as u8]);
            }
            Kind::I16 => {
                let v = self.integer(cursor, i16::MIN as i64, i16::MAX as i64)?;
                self.sink.fixed((v as i16).to_le_bytes());
            }
            Kind::I32 => {
                let v = self.integer(cursor, i32::MIN as i64, i32::MAX as i64)?;
                self.sink.fixed((v as i32).to_le_bytes());
            }
            Kind::I64 => {
                let v = self.integer(cursor, i64::MIN, i64::MAX)?;
                self.sink.fixed(v.to_le_bytes());
            }
            Kind::F32 => {
                let v: f32 = number_text(cursor)?.parse().map_err(|_| Fallback)?;
                if !v.is_finite() {
                    return Err(Fallback);
                }
                self.sink.fixed(v.to_le_bytes());
            }
            Kind::F64 => {
                let v: f64 = number_text(cursor)?.parse().map_err(|_| Fallback)?;
                if !v.is_finite() {
                    return Err(Fallback);
                }
                self.sink.fixed(v.to_le_bytes());
            }
            Kind::Date => {
                let days = self.string_value(cursor, parse_date)?;
                self.sink.fixed(days.to_le_bytes());
            }
            Kind::Time => {
                let (seconds, _nanos) = self.string_value(cursor, parse_time)?;
                // Flink keeps whole seconds of a TIME: toSecondOfDay() * 1000.
                self.sink.fixed(((seconds * 1000) as i32).to_le_bytes());
            }
            Kind::Timestamp { utc, precision } => {
                let separator = match self.timestamps {
                    TimestampStandard::Sql => b' ',
                    TimestampStandard::Iso8601 => b'T',
                };
                let (millis, nanos) =
                    self.string_value(cursor, |t| parse_timestamp(t, separator, *utc))?;
                self.sink.timestamp(millis, nanos, *precision)?;
            }
            Kind::Decimal { precision, scale } => {
                let text = number_text(cursor)?;
                self.decimal(text.as_bytes(), *precision, *scale)?;
            }
            Kind::Utf8 => {
                if cursor.peek() != Token::String {
                    return Err(Fallback); // Flink writes a number's or a tree's text: its own
                }
                let bytes = cursor.parse_str_using("string", self.scratch)?;
                self.sink.bytes(bytes);
            }
            Kind::Binary => {
                let decoded = self.string_value(cursor, decode_base64)?;
                self.sink.bytes(&decoded);
            }
            Kind::Row(shape) => {
                if cursor.peek() != Token::Object {
                    return Err(Fallback);
                }
                self.row(cursor, shape)?;
            }
            Kind::Array(element) => {
                if cursor.peek() != Token::Array {
                    return Err(Fallback);
                }
                cursor.begin_array()?;
                let token = self.sink.begin_array();
                let mut count: u32 = 0;
                let mut first = true;
                while cursor.next_element(first)? {
                    first = false;
                    count += 1;
                    self.nullable(cursor, element)?;
                }
                self.sink.end_array(token, count, element)?;
            }
            Kind::Map(value) => {
                if cursor.peek() != Token::Object {
                    return Err(Fallback);
                }
                cursor.begin_object()?;
                let token = self.sink.begin_map();
                let mut count: u32 = 0;
                let mut first = true;
                while let Some(key) = cursor.next_key(first)? {
                    first = false;
                    count += 1;
                    self.sink.map_key(key.as_bytes());
                    self.nullable(cursor, value)?;
                }
                self.sink.end_map(token, count);
            }
        }
        Ok(())
    }

    fn nullable(&mut self, cursor: &mut Cursor, kind: &Kind) -> Step {
        if cursor.take_null()? {
            self.sink.element(false);
        } else {
            self.sink.element(true);
            self.value(cursor, kind)?;
        }
        Ok(())
    }

    /// A JSON integer token in range; anything else (a float, a string) is Flink's to coerce.
    fn integer(&mut self, cursor: &mut Cursor, min: i64, max: i64) -> Step<i64> {
        if cursor.peek() != Token::Number {
            return Err(Fallback);
        }
        Ok(cursor.parse_integer("integer", min, max)?)
    }

    /// A string token's decoded text (in the scratch buffer), parsed by `parse`.
    fn string_value<R>(
        &mut self,
        cursor: &mut Cursor,
        parse: impl FnOnce(&[u8]) -> Option<R>,
    ) -> Step<R> {
        if cursor.peek() != Token::String {
            return Err(Fallback);
        }
        self.scratch.clear();
        cursor.parse_string_into(self.scratch)?;
        parse(self.scratch.as_bytes()).ok_or(Fallback)
    }

    /// A plain decimal number that fits `DECIMAL(precision, scale)` without rounding, as its
    /// unscaled value; an exponent, more fraction digits than the scale, or too many digits is
    /// Flink's to round or null.
    fn decimal(&mut self, text: &[u8], precision: u8, scale: u8) -> Step {
        let (negative, digits) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, text),
        };
        let (int_part, frac_part) = match digits.iter().position(|&b| b == b'.') {
            Some(dot) => (&digits[..dot], &digits[dot + 1..]),
            None => (digits, &digits[..0]),
        };
        if !int_part.iter().chain(frac_part).all(u8::is_ascii_digit)
            || frac_part.len() > scale as usize
        {
            return Err(Fallback);
        }
        let mut unscaled = String::with_capacity(int_part.len() + scale as usize + 1);
        let significant = int_part.iter().skip_while(|&&b| b == b'0');
        unscaled.extend(significant.map(|&b| b as char));
        unscaled.extend(frac_part.iter().map(|&b| b as char));
        unscaled.extend(std::iter::repeat_n('0', scale as usize - frac_part.len()));
        let unscaled = unscaled.trim_start_matches('0');
        // BigDecimal's precision counts the unscaled digits, at least 1.
        if unscaled.len().max(1) > precision as usize {
            return Err(Fallback);
        }
        self.sink.decimal(negative, unscaled, precision)
    }
}

/// A number token's text, if short enough for certain agreement with Jackson.
fn number_text<'a>(cursor: &mut Cursor<'a>) -> Step<&'a str> {
    if cursor.peek() != Token::Number {
        return Err(Fallback);
    }
    let text = cursor.parse_number("number")?.text;
    if text.len() > MAX_NUMBER_TEXT {
        return Err(Fallback);
    }
    std::str::from_utf8(text).map_err(|_| Fallback)
}

/// Which fields of a row were seen, for duplicates and `fail-on-missing-field`.
struct SeenFields {
    small: u64,
    large: Vec<bool>,
    count: usize,
}

impl SeenFields {
    fn new(arity: usize) -> Self {
        Self {
            small: 0,
            large: if arity > 64 {
                vec![false; arity]
            } else {
                Vec::new()
            },
            count: 0,
        }
    }

    /// False if `field` was seen before.
    #[inline]
    fn insert(&mut self, field: usize) -> bool {
        let fresh = if self.large.is_empty() {
            let bit = 1u64 << field;
            let fresh = self.small & bit == 0;
            self.small |= bit;
            fresh
        } else {
            !std::mem::replace(&mut self.large[field], true)
        };
        self.count += fresh as usize;
        fresh
    }
}

// ---- dates and times in the forms Flink's formatters read ----

fn digits(text: &[u8], at: usize, n: usize) -> Option<u32> {
    let part = text.get(at..at + n)?;
    part.iter().try_fold(0u32, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + (b - b'0') as u32)
    })
}

/// `yyyy-MM-dd` (four-digit year, a real date) as days since 1970-01-01.
fn parse_date(text: &[u8]) -> Option<i32> {
    if text.len() != 10 {
        return None;
    }
    date_at(text)
}

fn date_at(text: &[u8]) -> Option<i32> {
    if text.get(4) != Some(&b'-') || text.get(7) != Some(&b'-') {
        return None;
    }
    let (year, month, day) = (
        digits(text, 0, 4)? as i64,
        digits(text, 5, 2)?,
        digits(text, 8, 2)?,
    );
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day) as i32)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `HH:mm:ss` with an optional `.` and 1 to 9 fraction digits: (second of day, nano of second).
fn parse_time(text: &[u8]) -> Option<(i64, u32)> {
    if text.len() < 8 || text[2] != b':' || text[5] != b':' {
        return None;
    }
    let (h, m, s) = (
        digits(text, 0, 2)?,
        digits(text, 3, 2)?,
        digits(text, 6, 2)?,
    );
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    let nanos = match &text[8..] {
        [] => 0,
        [b'.', fraction @ ..] if (1..=9).contains(&fraction.len()) => {
            let value = digits(fraction, 0, fraction.len())?;
            value * 10u32.pow(9 - fraction.len() as u32)
        }
        _ => return None,
    };
    Some(((h * 3600 + m * 60 + s) as i64, nanos))
}

/// A date, `separator`, a time, and `Z` if `utc`: (epoch millis, nano of milli).
fn parse_timestamp(text: &[u8], separator: u8, utc: bool) -> Option<(i64, i32)> {
    let body = if utc { text.strip_suffix(b"Z")? } else { text };
    if body.len() < 19 || body[10] != separator {
        return None;
    }
    let days = date_at(&body[..10])? as i64;
    let (seconds, nanos) = parse_time(&body[11..])?;
    let millis = days * 86_400_000 + seconds * 1000 + (nanos / 1_000_000) as i64;
    Some((millis, (nanos % 1_000_000) as i32))
}

/// Canonical standard base64 (padded, no whitespace): what Jackson reads the same way.
fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

#[cfg(test)]
impl RowTapeDecoder {
    /// Field positions its binary-row rewriter holds between messages (tests: none).
    pub(super) fn binary_row_positions(&self) -> usize {
        self.binary.as_ref().map_or(0, BinaryRows::positions_held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoder(
        fields: Vec<Field>,
        standard: TimestampStandard,
        fail_on_missing: bool,
    ) -> RowTapeDecoder {
        RowTapeDecoder::new(&Schema::new(fields), standard, fail_on_missing).unwrap()
    }

    fn row(fields: Vec<Field>, json: &str) -> Option<Vec<u8>> {
        let mut d = decoder(fields, TimestampStandard::Sql, false);
        (d.decode(json.as_bytes()) == Outcome::Row).then(|| d.tape().to_vec())
    }

    #[test]
    fn fields_are_written_in_message_order_and_nulls_are_left_out() {
        let fields = vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ];
        let tape = row(fields, r#"{"b":"x\u00e9","a":7,"c":[1,{"d":2}],"z":null}"#).unwrap();
        let mut expected = vec![1, 0, 3, 0, 0, 0, b'x', 0xc3, 0xa9, 0, 0, 7, 0, 0, 0];
        expected.extend_from_slice(&END_OF_ROW.to_le_bytes());
        assert_eq!(expected, tape);
        let nulls = row(
            vec![Field::new("a", DataType::Int32, true)],
            r#"{"a":null}"#,
        )
        .unwrap();
        assert_eq!(END_OF_ROW.to_le_bytes().to_vec(), nulls);
    }

    #[test]
    fn what_flink_would_coerce_or_reject_goes_to_the_fallback() {
        let int = || vec![Field::new("a", DataType::Int32, true)];
        for json in [
            r#"{"a":"7"}"#,        // quoted number: Flink parses it
            r#"{"a":7.0}"#,        // float for an int: Flink truncates
            r#"{"a":3000000000}"#, // out of range: Flink's error
            r#"{"a":1,"a":2}"#,    // duplicate key
            r#"[{"a":1}]"#,        // an array of rows
            r#"{"a":1} x"#,        // trailing data
            r#"{"a":1"#,           // truncated
            r#"{"a":01}"#,         // leading zero
        ] {
            assert_eq!(None, row(int(), json), "{json}");
        }
        let b = vec![Field::new("b", DataType::Boolean, true)];
        assert_eq!(None, row(b, r#"{"b":"true"}"#));
        let s = vec![Field::new("s", DataType::Utf8, true)];
        assert_eq!(None, row(s.clone(), r#"{"s":12}"#));
        assert_eq!(None, row(s, r#"{"s":"\ud800"}"#));
        let mut strict = decoder(
            vec![
                Field::new("a", DataType::Int32, true),
                Field::new("b", DataType::Int32, true),
            ],
            TimestampStandard::Sql,
            true,
        );
        assert_eq!(Outcome::Fallback, strict.decode(br#"{"a":1}"#));
        assert_eq!(Outcome::Row, strict.decode(br#"{"a":1,"b":null}"#));
    }

    /// Jackson (Flink's parser) refuses names over 50,000 characters, numbers over 1,000 and
    /// string values over 20,000,000, also in fields the row does not have (strings there
    /// excepted): such messages are Flink's to decide, at the limits they are decoded here.
    #[test]
    fn tokens_longer_than_jackson_reads_go_to_the_fallback() {
        let fields = || {
            vec![
                Field::new("a", DataType::Int32, true),
                Field::new("s", DataType::Utf8, true),
            ]
        };
        let digits = |n: usize| "1".repeat(n);
        let key = |n: usize| "k".repeat(n);
        let x = |n: usize| "x".repeat(n);
        let at_limit = [
            format!(r#"{{"a":1,"u":{}}}"#, digits(1_000)),
            format!(r#"{{"a":1,"u":1.{}}}"#, digits(998)),
            format!(r#"{{"a":1,"{}":2}}"#, key(50_000)),
            format!(r#"{{"a":1,"m":{{"{}":2}}}}"#, key(50_000)),
            format!(r#"{{"a":1,"s":"{}"}}"#, x(20_000_000)),
            format!(r#"{{"a":1,"u":"{}"}}"#, x(20_000_001)), // skipped strings: not checked
        ];
        for json in &at_limit {
            assert!(row(fields(), json).is_some(), "{}", &json[..40]);
        }
        let beyond = [
            format!(r#"{{"a":1,"u":{}}}"#, digits(1_001)),
            format!(r#"{{"a":1,"u":1.{}}}"#, digits(1_000)),
            format!(r#"{{"a":1,"{}":2}}"#, key(50_001)),
            format!(r#"{{"a":1,"m":{{"{}":2}}}}"#, key(50_001)),
            format!(r#"{{"a":1,"s":"{}"}}"#, x(20_000_001)),
        ];
        for json in &beyond {
            assert_eq!(None, row(fields(), json), "{}", &json[..40]);
        }
    }

    #[test]
    fn decimals_that_fit_without_rounding_are_unscaled() {
        let d = |p, s| vec![Field::new("d", DataType::Decimal128(p, s), true)];
        let tape = row(d(5, 2), r#"{"d":-12.5}"#).unwrap();
        assert_eq!(
            &tape[2..11],
            &[&[0u8][..], &(-1250i64).to_le_bytes()].concat()[..]
        );
        let zero = row(d(3, 1), r#"{"d":0.0}"#).unwrap();
        assert_eq!(&zero[3..11], &0i64.to_le_bytes());
        assert_eq!(None, row(d(5, 2), r#"{"d":1.255}"#)); // rounds
        assert_eq!(None, row(d(3, 0), r#"{"d":1234}"#)); // overflows
        assert_eq!(None, row(d(5, 2), r#"{"d":1e2}"#)); // exponent
        let wide = row(d(38, 2), r#"{"d":-123456789012345678901234.5}"#).unwrap();
        let text = b"-12345678901234567890123450";
        assert_eq!(&wide[3..7], &(text.len() as u32).to_le_bytes());
        assert_eq!(&wide[7..7 + text.len()], text);
    }

    #[test]
    fn dates_and_timestamps_follow_the_standard() {
        assert_eq!(Some(0), parse_date(b"1970-01-01"));
        assert_eq!(Some(-719_528), parse_date(b"0000-01-01"));
        assert_eq!(Some(11_016), parse_date(b"2000-02-29"));
        assert_eq!(None, parse_date(b"2001-02-29"));
        assert_eq!(Some((3_723, 400_000_000)), parse_time(b"01:02:03.4"));
        assert_eq!(None, parse_time(b"24:00:00"));
        assert_eq!(None, parse_time(b"01:02:03."));
        assert_eq!(
            Some((1_500, 123_456)),
            parse_timestamp(b"1970-01-01 00:00:01.500123456", b' ', false)
        );
        assert_eq!(
            Some((-1, 0)),
            parse_timestamp(b"1969-12-31T23:59:59.999Z", b'T', true)
        );
        assert_eq!(None, parse_timestamp(b"1970-01-01T00:00:01", b' ', false));
        assert_eq!(None, parse_timestamp(b"1970-01-01 00:00:01", b' ', true));
    }
}
