//! Column decoders: one per Arrow field, appending each JSON value straight into
//! Arrow buffers. Every decoder can `truncate` back to a row count, which is how a
//! bad message is taken out again without touching its neighbours.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int32Type, Int64Type,
    Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{
    ArrayRef, BooleanArray, FixedSizeBinaryArray, GenericBinaryArray, GenericListArray, MapArray,
    OffsetSizeTrait, PrimitiveArray, StructArray,
};
use arrow_buffer::{
    BooleanBufferBuilder, Buffer, NullBuffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer,
};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, TimeUnit};
use base64::alphabet::STANDARD as BASE64_ALPHABET;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

/// Standard base64, read as `java.util.Base64.getDecoder()` reads it (Jackson's and Iceberg's
/// connector's): with its padding complete or without padding, a last symbol's unused bits
/// ignored.
fn decode_base64(text: &[u8], out: &mut Vec<u8>) -> Result<(), base64::DecodeError> {
    const PADDED: GeneralPurpose = GeneralPurpose::new(
        &BASE64_ALPHABET,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
            .with_decode_allow_trailing_bits(true),
    );
    const UNPADDED: GeneralPurpose = GeneralPurpose::new(
        &BASE64_ALPHABET,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::RequireNone)
            .with_decode_allow_trailing_bits(true),
    );
    let engine = if text.ends_with(b"=") {
        &PADDED
    } else {
        &UNPADDED
    };
    engine.decode_vec(text, out)
}

use super::cursor::{Cursor, Token};
use super::error::{excerpt, DecodeError, SchemaError, ValueError};
use super::numbers::{parse_decimal, parse_f32, parse_f64, parse_uuid, special_float};
use super::temporal::{parse_date, parse_time, parse_timestamp_after, LastDate, Unit};
use super::unchecked::string_array;
use super::unknown::{UnknownField, UnknownKeys, UnknownLog, WideningLog};

/// Arrow's extension-name metadata key and the canonical UUID extension.
const EXTENSION_NAME: &str = "ARROW:extension:name";
const UUID_EXTENSION: &str = "arrow.uuid";
/// Field metadata holding the JSON text of the value a missing field takes (an Iceberg v3
/// `write-default`, as the decoder reads that type from JSON); without it a missing field is null.
pub const WRITE_DEFAULT_KEY: &str = "floe.write-default";
/// Structs wider than this look fields up by hash instead of a linear scan.
const HASH_LOOKUP_MIN_FIELDS: usize = 12;

pub trait Column: Send {
    /// Decodes the (non-null) JSON value at the cursor into one more row.
    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError>;
    fn append_null(&mut self);
    /// `n` nulls at once (a run of null parent structs hands its children theirs in bulk).
    fn append_nulls(&mut self, n: usize) {
        for _ in 0..n {
            self.append_null();
        }
    }
    fn len(&self) -> usize;
    /// Drops rows from `len` on (used to take a bad message out again).
    fn truncate(&mut self, len: usize);
    /// The rows so far as an Arrow array; the column is empty afterwards.
    fn finish(&mut self) -> Result<ArrayRef, ArrowError>;
    /// Moves the unknown fields (and too-wide values) met so far (structs that report them, and those inside) into `out`.
    fn take_unknown(&mut self, _out: &mut Vec<UnknownField>) {}
}

/// Decodes a value that may be `null`, which only a nullable field accepts.
#[inline]
fn decode_nullable(
    column: &mut dyn Column,
    nullable: bool,
    cur: &mut Cursor,
) -> Result<(), DecodeError> {
    if cur.take_null()? {
        if !nullable {
            return Err(cur.error("null is not allowed: the field is required"));
        }
        column.append_null();
        Ok(())
    } else {
        column.decode(cur)
    }
}

/// Takes a column's buffer for Arrow and leaves an empty one with the same
/// capacity, so the next batch of similar size does not regrow it step by step.
fn take_reserving<T>(values: &mut Vec<T>) -> Vec<T> {
    let capacity = values.len();
    std::mem::replace(values, Vec::with_capacity(capacity))
}

/// Builds the decoder for a field, or explains why its type is not supported.
pub fn column_for(
    field: &Field,
    path: &str,
    unknown: UnknownKeys,
) -> Result<Box<dyn Column>, SchemaError> {
    let dt = field.data_type().clone();
    let is_uuid = field
        .metadata()
        .get(EXTENSION_NAME)
        .is_some_and(|n| n == UUID_EXTENSION);
    let describe = unknown == UnknownKeys::Describe;
    let widening = |kind| WideningLog::new(path, field_id(field), kind);
    Ok(match field.data_type() {
        DataType::Boolean => Box::new(BoolColumn::default()),
        DataType::Int32 if describe => Box::new(PrimitiveColumn::<Int32Type, _>::new(
            dt,
            Widening(Int32Parser, widening("integer")),
        )),
        DataType::Int32 => Box::new(PrimitiveColumn::<Int32Type, _>::new(dt, Int32Parser)),
        DataType::Int64 => Box::new(PrimitiveColumn::<Int64Type, _>::new(dt, Int64Parser)),
        DataType::Float32 if describe => Box::new(PrimitiveColumn::<Float32Type, _>::new(
            dt,
            Widening(Float32Parser, widening("float")),
        )),
        DataType::Float32 => Box::new(PrimitiveColumn::<Float32Type, _>::new(dt, Float32Parser)),
        DataType::Float64 => Box::new(PrimitiveColumn::<Float64Type, _>::new(dt, Float64Parser)),
        DataType::Decimal128(p, s) => {
            let parser = DecimalParser {
                precision: *p,
                scale: *s,
            };
            if describe {
                Box::new(PrimitiveColumn::<Decimal128Type, _>::new(
                    dt.clone(),
                    Widening(parser, widening("decimal")),
                ))
            } else {
                Box::new(PrimitiveColumn::<Decimal128Type, _>::new(
                    dt.clone(),
                    parser,
                ))
            }
        }
        DataType::Date32 => Box::new(PrimitiveColumn::<Date32Type, _>::new(dt, DateParser)),
        DataType::Time64(TimeUnit::Microsecond) => {
            Box::new(PrimitiveColumn::<Time64MicrosecondType, _>::new(
                dt,
                TimeParser(Unit::Micros),
            ))
        }
        DataType::Time64(TimeUnit::Nanosecond) => {
            Box::new(PrimitiveColumn::<Time64NanosecondType, _>::new(
                dt,
                TimeParser(Unit::Nanos),
            ))
        }
        DataType::Timestamp(unit, tz) => {
            let zoned = tz.is_some();
            match unit {
                TimeUnit::Millisecond => {
                    Box::new(PrimitiveColumn::<TimestampMillisecondType, _>::new(
                        dt.clone(),
                        TimestampParser::new(Unit::Millis, zoned),
                    ))
                }
                TimeUnit::Microsecond => {
                    Box::new(PrimitiveColumn::<TimestampMicrosecondType, _>::new(
                        dt.clone(),
                        TimestampParser::new(Unit::Micros, zoned),
                    ))
                }
                TimeUnit::Nanosecond => {
                    Box::new(PrimitiveColumn::<TimestampNanosecondType, _>::new(
                        dt.clone(),
                        TimestampParser::new(Unit::Nanos, zoned),
                    ))
                }
                TimeUnit::Second => return Err(unsupported(path, field)),
            }
        }
        DataType::Utf8 => Box::new(BytesColumn::<i32, String>::new()),
        DataType::LargeUtf8 => Box::new(BytesColumn::<i64, String>::new()),
        DataType::Binary => Box::new(BytesColumn::<i32, Vec<u8>>::new()),
        DataType::LargeBinary => Box::new(BytesColumn::<i64, Vec<u8>>::new()),
        DataType::FixedSizeBinary(width) => {
            if is_uuid && *width != 16 {
                return Err(SchemaError::UuidWidth {
                    path: path.to_string(),
                });
            }
            Box::new(FixedColumn::new(*width, is_uuid))
        }
        DataType::Struct(fields) => Box::new(StructColumn::new(
            fields.clone(),
            path,
            field_id(field),
            unknown,
        )?),
        DataType::List(element) => {
            Box::new(ListColumn::<i32>::new(element.clone(), path, unknown)?)
        }
        DataType::LargeList(element) => {
            Box::new(ListColumn::<i64>::new(element.clone(), path, unknown)?)
        }
        DataType::Map(entries, ordered) => {
            Box::new(MapColumn::new(entries.clone(), *ordered, path, unknown)?)
        }
        _ => return Err(unsupported(path, field)),
    })
}

/// A field's `PARQUET:field_id`, when the schema carries one.
fn field_id(field: &Field) -> Option<i32> {
    field
        .metadata()
        .get(parquet::arrow::PARQUET_FIELD_ID_META_KEY)
        .and_then(|id| id.parse().ok())
}

fn unsupported(path: &str, field: &Field) -> SchemaError {
    SchemaError::Unsupported {
        path: path.to_string(),
        data_type: field.data_type().clone(),
    }
}

fn child_path(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

// ---------------------------------------------------------------- primitives

/// Parses one JSON value into a primitive's native representation.
pub trait ValueParser<N>: Send {
    fn parse(&self, cur: &mut Cursor) -> Result<N, DecodeError>;
    /// Moves the count of values that needed a wider type into `out` (see [`Widening`]).
    fn take_widening(&self, _out: &mut Vec<UnknownField>) {}
}

pub struct PrimitiveColumn<T: ArrowPrimitiveType, P> {
    values: Vec<T::Native>,
    nulls: NullBufferBuilder,
    data_type: DataType,
    parser: P,
}

impl<T: ArrowPrimitiveType, P: ValueParser<T::Native>> PrimitiveColumn<T, P> {
    fn new(data_type: DataType, parser: P) -> Self {
        Self {
            values: Vec::new(),
            nulls: NullBufferBuilder::new(0),
            data_type,
            parser,
        }
    }
}

impl<T, P> Column for PrimitiveColumn<T, P>
where
    T: ArrowPrimitiveType,
    P: ValueParser<T::Native>,
{
    #[inline]
    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError> {
        let value = self.parser.parse(cur)?;
        self.values.push(value);
        self.nulls.append_non_null();
        Ok(())
    }

    fn append_null(&mut self) {
        self.values.push(T::Native::default());
        self.nulls.append_null();
    }

    fn append_nulls(&mut self, n: usize) {
        self.values
            .resize(self.values.len() + n, T::Native::default());
        self.nulls.append_n_nulls(n);
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.nulls.truncate(len);
    }

    fn take_unknown(&mut self, out: &mut Vec<UnknownField>) {
        self.parser.take_widening(out);
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let values = ScalarBuffer::from(take_reserving(&mut self.values));
        let array = PrimitiveArray::<T>::try_new(values, self.nulls.finish())?
            .with_data_type(self.data_type.clone());
        Ok(Arc::new(array))
    }
}

struct Int32Parser;
impl ValueParser<i32> for Int32Parser {
    #[inline]
    fn parse(&self, cur: &mut Cursor) -> Result<i32, DecodeError> {
        cur.parse_integer("int32", i32::MIN as i64, i32::MAX as i64)
            .map(|v| v as i32)
    }
}

struct Int64Parser;
impl ValueParser<i64> for Int64Parser {
    #[inline]
    fn parse(&self, cur: &mut Cursor) -> Result<i64, DecodeError> {
        cur.parse_integer("int64", i64::MIN, i64::MAX)
    }
}

/// Numbers, or the strings "NaN", "Infinity" and "-Infinity".
fn float_text<'a>(cur: &mut Cursor<'a>, type_name: &str) -> Result<FloatText<'a>, DecodeError> {
    if cur.peek() == Token::String {
        let pos = cur.pos();
        let text = cur.parse_str(type_name)?;
        return special_float(&text).map(FloatText::Special).ok_or_else(|| {
            DecodeError::new(
                format!(
                    "expected {type_name}, found string \"{}\"",
                    excerpt(&text, false)
                ),
                pos,
            )
        });
    }
    Ok(FloatText::Number(cur.parse_number(type_name)?.text))
}

enum FloatText<'a> {
    Number(&'a [u8]),
    Special(f64),
}

struct Float64Parser;
impl ValueParser<f64> for Float64Parser {
    #[inline]
    fn parse(&self, cur: &mut Cursor) -> Result<f64, DecodeError> {
        let pos = cur.pos();
        match float_text(cur, "float64")? {
            FloatText::Number(text) => parse_f64(text).map_err(|e| e.at(pos)),
            FloatText::Special(v) => Ok(v),
        }
    }
}

struct Float32Parser;
impl ValueParser<f32> for Float32Parser {
    #[inline]
    fn parse(&self, cur: &mut Cursor) -> Result<f32, DecodeError> {
        let pos = cur.pos();
        match float_text(cur, "float32")? {
            FloatText::Number(text) => parse_f32(text).map_err(|e| e.at(pos)),
            FloatText::Special(v) => Ok(v as f32),
        }
    }
}

/// Decimals from a number's text, or from a string holding one (as some producers write them).
struct DecimalParser {
    precision: u8,
    scale: i8,
}
impl ValueParser<i128> for DecimalParser {
    fn parse(&self, cur: &mut Cursor) -> Result<i128, DecodeError> {
        cur.skip_ws();
        let pos = cur.pos();
        let result = if cur.peek() == Token::String {
            let text = cur.parse_str("decimal")?;
            parse_decimal(&text, self.precision, self.scale)
        } else {
            let number = cur.parse_number("decimal")?;
            parse_decimal(number.text, self.precision, self.scale)
        };
        result.map_err(|e| e.at(pos))
    }
}

/// A parser that, when it rejects a value a wider type Iceberg allows would hold (int -> long,
/// float -> double, decimal precision up), counts it for schema evolution. The value is still
/// rejected: the caller widens the column and decodes the message again.
struct Widening<P>(P, WideningLog);

impl ValueParser<i32> for Widening<Int32Parser> {
    #[inline]
    fn parse(&self, cur: &mut Cursor) -> Result<i32, DecodeError> {
        let value = cur.parse_integer("int32", i64::MIN, i64::MAX)?;
        i32::try_from(value).map_err(|_| {
            self.1.record();
            DecodeError::new(
                format!("number {value} is out of range for int32"),
                cur.pos(),
            )
        })
    }

    fn take_widening(&self, out: &mut Vec<UnknownField>) {
        self.1.drain_into("long", None, out);
    }
}

impl ValueParser<f32> for Widening<Float32Parser> {
    #[inline]
    fn parse(&self, cur: &mut Cursor) -> Result<f32, DecodeError> {
        let pos = cur.pos();
        match float_text(cur, "float32")? {
            FloatText::Number(text) => parse_f32(text).map_err(|e| {
                if parse_f64(text).is_ok() {
                    self.1.record();
                }
                e.at(pos)
            }),
            FloatText::Special(v) => Ok(v as f32),
        }
    }

    fn take_widening(&self, out: &mut Vec<UnknownField>) {
        self.1.drain_into("double", None, out);
    }
}

impl ValueParser<i128> for Widening<DecimalParser> {
    fn parse(&self, cur: &mut Cursor) -> Result<i128, DecodeError> {
        cur.skip_ws();
        let pos = cur.pos();
        let text = if cur.peek() == Token::String {
            cur.parse_str("decimal")?
        } else {
            std::borrow::Cow::Borrowed(cur.parse_number("decimal")?.text)
        };
        let DecimalParser { precision, scale } = self.0;
        parse_decimal(&text, precision, scale).map_err(|e| {
            if let ValueError::DecimalOutOfRange { .. } = e {
                // The precision the value needs at this scale, if any decimal holds it.
                if let Ok(wide) = parse_decimal(&text, 38, scale) {
                    let digits = wide.unsigned_abs().checked_ilog10().map_or(1, |d| d + 1);
                    self.1.record_precision(digits as u8);
                }
            }
            e.at(pos)
        })
    }

    fn take_widening(&self, out: &mut Vec<UnknownField>) {
        self.1.drain_into("", Some(self.0.scale), out);
    }
}

/// Runs a text parser over a JSON string value, mapping its error to the value's position.
fn with_string<T>(
    cur: &mut Cursor,
    expected: &'static str,
    parse: impl FnOnce(&[u8]) -> Result<T, ValueError>,
) -> Result<T, DecodeError> {
    cur.skip_ws();
    let pos = cur.pos();
    let text = cur.parse_str(expected)?;
    parse(&text).map_err(|reason| {
        ValueError::InvalidText {
            expected,
            text: excerpt(&text, false),
            reason: Box::new(reason),
        }
        .at(pos)
    })
}

struct DateParser;
impl ValueParser<i32> for DateParser {
    fn parse(&self, cur: &mut Cursor) -> Result<i32, DecodeError> {
        with_string(cur, "date", parse_date)
    }
}

struct TimeParser(Unit);
impl ValueParser<i64> for TimeParser {
    fn parse(&self, cur: &mut Cursor) -> Result<i64, DecodeError> {
        with_string(cur, "time", |t| parse_time(t, self.0))
    }
}

/// Timestamps from ISO-8601 / Flink SQL text, or from epoch milliseconds.
struct TimestampParser {
    unit: Unit,
    zoned: bool,
    last_date: LastDate,
}

impl TimestampParser {
    fn new(unit: Unit, zoned: bool) -> Self {
        Self {
            unit,
            zoned,
            last_date: LastDate::default(),
        }
    }
}
impl ValueParser<i64> for TimestampParser {
    #[inline]
    fn parse(&self, cur: &mut Cursor) -> Result<i64, DecodeError> {
        if cur.peek() == Token::Number {
            let pos = cur.pos();
            let millis = cur.parse_integer("epoch milliseconds", i64::MIN, i64::MAX)?;
            return millis
                .checked_mul(self.unit.per_second() / 1000)
                .ok_or_else(|| DecodeError::new("epoch milliseconds out of range", pos));
        }
        with_string(cur, "timestamp", |t| {
            parse_timestamp_after(t, self.unit, self.zoned, &self.last_date)
        })
    }
}

struct BoolColumn {
    values: Vec<bool>,
    nulls: NullBufferBuilder,
}

impl Default for BoolColumn {
    fn default() -> Self {
        Self {
            values: Vec::new(),
            nulls: NullBufferBuilder::new(0),
        }
    }
}

impl Column for BoolColumn {
    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError> {
        let value = cur.parse_bool()?;
        self.values.push(value);
        self.nulls.append_non_null();
        Ok(())
    }

    fn append_null(&mut self) {
        self.values.push(false);
        self.nulls.append_null();
    }

    fn append_nulls(&mut self, n: usize) {
        self.values.resize(self.values.len() + n, false);
        self.nulls.append_n_nulls(n);
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.nulls.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let mut bits = BooleanBufferBuilder::new(self.values.len());
        for &v in &self.values {
            bits.append(v);
        }
        self.values.clear();
        Ok(Arc::new(BooleanArray::new(
            bits.finish(),
            self.nulls.finish(),
        )))
    }
}

// ---------------------------------------------------------------- bytes

/// A utf8 or binary column: offsets into one value buffer, `V` -- a `String` for utf8, bytes
/// for binary (see [`ValueBytes`]).
struct BytesColumn<O: OffsetSizeTrait, V> {
    offsets: Vec<O>,
    values: V,
    nulls: NullBufferBuilder,
}

/// What a utf8 or binary column's value buffer takes from JSON and finishes as.
trait ValueBytes: Default + Send {
    /// Appends the (non-null) JSON value at the cursor.
    fn decode(&mut self, cur: &mut Cursor, pos: usize) -> Result<(), DecodeError>;
    fn byte_len(&self) -> usize;
    /// Cuts back to `len` bytes, an offset of the column (so a value boundary).
    fn cut(&mut self, len: usize);
    /// Takes the bytes, leaving an empty buffer with the same capacity.
    fn take_reserving(&mut self) -> Self;
    fn into_array<O: OffsetSizeTrait>(
        self,
        offsets: OffsetBuffer<O>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, ArrowError>;
}

/// utf8: JSON strings, escapes decoded. Only whole `&str`s go in, so the values are valid UTF-8
/// by their type and every offset is a character boundary: the array skips Arrow's second UTF-8
/// pass ([`string_array`]).
impl ValueBytes for String {
    #[inline]
    fn decode(&mut self, cur: &mut Cursor, _pos: usize) -> Result<(), DecodeError> {
        cur.parse_string_into(self)
    }

    fn byte_len(&self) -> usize {
        self.len()
    }

    fn cut(&mut self, len: usize) {
        self.truncate(len);
    }

    fn take_reserving(&mut self) -> Self {
        let capacity = self.len();
        std::mem::replace(self, String::with_capacity(capacity))
    }

    fn into_array<O: OffsetSizeTrait>(
        self,
        offsets: OffsetBuffer<O>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, ArrowError> {
        Ok(Arc::new(string_array(offsets, self, nulls)?))
    }
}

/// binary: JSON strings holding standard base64.
impl ValueBytes for Vec<u8> {
    fn decode(&mut self, cur: &mut Cursor, pos: usize) -> Result<(), DecodeError> {
        let text = cur.parse_str("base64 string")?;
        decode_base64(&text, self)
            .map_err(|e| DecodeError::new(format!("invalid base64: {e}"), pos))
    }

    fn byte_len(&self) -> usize {
        self.len()
    }

    fn cut(&mut self, len: usize) {
        self.truncate(len);
    }

    fn take_reserving(&mut self) -> Self {
        take_reserving(self)
    }

    fn into_array<O: OffsetSizeTrait>(
        self,
        offsets: OffsetBuffer<O>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef, ArrowError> {
        let values = Buffer::from_vec(self);
        Ok(Arc::new(GenericBinaryArray::<O>::try_new(
            offsets, values, nulls,
        )?))
    }
}

impl<O: OffsetSizeTrait, V: ValueBytes> BytesColumn<O, V> {
    fn new() -> Self {
        Self {
            offsets: vec![O::zero()],
            values: V::default(),
            nulls: NullBufferBuilder::new(0),
        }
    }

    /// Ends the value appended to `values`.
    #[inline]
    fn end_value(&mut self, pos: usize) -> Result<(), DecodeError> {
        let end = O::from_usize(self.values.byte_len()).ok_or_else(|| {
            DecodeError::new(
                "this batch's column data exceeds 2 GiB; use a large_utf8/large_binary column or smaller batches",
                pos,
            )
        })?;
        self.offsets.push(end);
        self.nulls.append_non_null();
        Ok(())
    }
}

impl<O: OffsetSizeTrait> BytesColumn<O, String> {
    fn append_str(&mut self, value: &str, pos: usize) -> Result<(), DecodeError> {
        self.values.push_str(value);
        self.end_value(pos)
    }

    /// Value `i` (appended, not null).
    fn str_at(&self, i: usize) -> &str {
        &self.values[self.offsets[i].as_usize()..self.offsets[i + 1].as_usize()]
    }
}

impl<O: OffsetSizeTrait, V: ValueBytes> Column for BytesColumn<O, V> {
    #[inline]
    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError> {
        let pos = cur.pos();
        self.values.decode(cur, pos)?;
        self.end_value(pos)
    }

    fn append_null(&mut self) {
        let last = *self.offsets.last().expect("offsets start with 0");
        self.offsets.push(last);
        self.nulls.append_null();
    }

    fn append_nulls(&mut self, n: usize) {
        let last = *self.offsets.last().expect("offsets start with 0");
        self.offsets.resize(self.offsets.len() + n, last);
        self.nulls.append_n_nulls(n);
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        let end = self.offsets[len].as_usize();
        self.values.cut(end);
        self.nulls.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let offsets = take_reserving(&mut self.offsets);
        self.offsets.push(O::zero());
        let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
        let values = self.values.take_reserving();
        values.into_array(offsets, self.nulls.finish())
    }
}

/// fixed_size_binary: a UUID's canonical text, or base64 of exactly `width` bytes.
struct FixedColumn {
    width: i32,
    uuid: bool,
    values: Vec<u8>,
    nulls: NullBufferBuilder,
    len: usize,
}

impl FixedColumn {
    fn new(width: i32, uuid: bool) -> Self {
        Self {
            width,
            uuid,
            values: Vec::new(),
            nulls: NullBufferBuilder::new(0),
            len: 0,
        }
    }
}

impl Column for FixedColumn {
    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError> {
        cur.skip_ws();
        let pos = cur.pos();
        let start = self.values.len();
        if self.uuid {
            let text = cur.parse_str("uuid string")?;
            parse_uuid(&text, &mut self.values).map_err(|e| e.at(pos))?;
        } else {
            let text = cur.parse_str("base64 string")?;
            decode_base64(&text, &mut self.values)
                .map_err(|e| DecodeError::new(format!("invalid base64: {e}"), pos))?;
            let got = self.values.len() - start;
            if got != self.width as usize {
                self.values.truncate(start);
                return Err(DecodeError::new(
                    format!(
                        "expected {} bytes for fixed[{}], got {got}",
                        self.width, self.width
                    ),
                    pos,
                ));
            }
        }
        self.nulls.append_non_null();
        self.len += 1;
        Ok(())
    }

    fn append_null(&mut self) {
        self.values
            .resize(self.values.len() + self.width as usize, 0);
        self.nulls.append_null();
        self.len += 1;
    }

    fn len(&self) -> usize {
        self.len
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len * self.width as usize);
        self.nulls.truncate(len);
        self.len = len;
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let values = Buffer::from_vec(take_reserving(&mut self.values));
        self.len = 0;
        Ok(Arc::new(FixedSizeBinaryArray::try_new(
            self.width,
            values,
            self.nulls.finish(),
        )?))
    }
}

// ---------------------------------------------------------------- nested

pub struct StructColumn {
    fields: Fields,
    names: Vec<Box<[u8]>>,
    /// Each key as compact JSON writes it after a value, `,"name":` (`None` if the name would
    /// need escapes); without the comma for an object's first key.
    compact_keys: Vec<Option<Box<[u8]>>>,
    nullable: Vec<bool>,
    /// Each field's write default (JSON text), if it has one: what a message without the field gets.
    defaults: Vec<Option<Box<str>>>,
    children: Vec<Box<dyn Column>>,
    by_name: Option<HashMap<Box<[u8]>, usize>>,
    /// `seen[i] == stamp` when field i appeared in the current object.
    seen: Vec<u32>,
    stamp: u32,
    nulls: NullBufferBuilder,
    len: usize,
    /// Trailing rows (all null structs) the children have not been given yet: a run of null
    /// structs reaches each child as one `append_nulls`, not one call per row and child.
    children_behind: usize,
    strict: bool,
    /// This struct's path, for naming its unknown fields.
    path: Box<str>,
    /// Counts of unknown fields, when they are reported.
    unknown: Option<UnknownLog>,
}

impl StructColumn {
    /// `id` is the struct's own field id (none for the root), naming it as the parent of the
    /// unknown fields it reports.
    pub fn new(
        fields: Fields,
        path: &str,
        id: Option<i32>,
        unknown: UnknownKeys,
    ) -> Result<Self, SchemaError> {
        let mut children = Vec::with_capacity(fields.len());
        let mut defaults = Vec::with_capacity(fields.len());
        for f in fields.iter() {
            let child_path = child_path(path, f.name());
            let mut child = column_for(f, &child_path, unknown)?;
            let default: Option<Box<str>> = f
                .metadata()
                .get(WRITE_DEFAULT_KEY)
                .map(|text| text.as_str().into());
            if let Some(text) = &default {
                // Checked once here, so that filling it in later cannot fail.
                decode_default(child.as_mut(), text).map_err(|e| SchemaError::BadWriteDefault {
                    path: child_path.clone(),
                    reason: e.to_string(),
                })?;
                child.truncate(0);
            }
            children.push(child);
            defaults.push(default);
        }
        let names: Vec<Box<[u8]>> = fields
            .iter()
            .map(|f| f.name().as_bytes().to_vec().into_boxed_slice())
            .collect();
        let compact_keys = names
            .iter()
            .map(|name| {
                let plain = name.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
                plain.then(|| [b",\"", &name[..], b"\":"].concat().into_boxed_slice())
            })
            .collect();
        let by_name = (fields.len() >= HASH_LOOKUP_MIN_FIELDS)
            .then(|| names.iter().cloned().zip(0..).collect());
        Ok(Self {
            nullable: fields.iter().map(|f| f.is_nullable()).collect(),
            defaults,
            seen: vec![0; fields.len()],
            fields,
            names,
            compact_keys,
            children,
            by_name,
            stamp: 0,
            nulls: NullBufferBuilder::new(0),
            len: 0,
            children_behind: 0,
            strict: unknown == UnknownKeys::Reject,
            path: path.into(),
            unknown: UnknownLog::for_mode(unknown, id),
        })
    }

    /// Keys usually arrive in schema order, so the expected one is tried first.
    #[inline]
    fn lookup(&self, key: &[u8], expected: usize) -> Option<usize> {
        if let Some(name) = self.names.get(expected) {
            if **name == *key {
                return Some(expected);
            }
        }
        match &self.by_name {
            Some(map) => map.get(key).copied(),
            None => self.names.iter().position(|n| **n == *key),
        }
    }

    /// Gives the children the null rows they are behind by.
    fn catch_up_children(&mut self) {
        if self.children_behind > 0 {
            for child in &mut self.children {
                child.append_nulls(self.children_behind);
            }
            self.children_behind = 0;
        }
    }

    /// The columns of the rows so far, without the struct wrapper (for a batch).
    pub fn finish_columns(&mut self) -> Result<Vec<ArrayRef>, ArrowError> {
        self.catch_up_children();
        self.len = 0;
        let _ = self.nulls.finish();
        self.children.iter_mut().map(|c| c.finish()).collect()
    }

    fn name(&self, i: usize) -> &str {
        self.fields[i].name()
    }
}

impl Column for StructColumn {
    fn take_unknown(&mut self, out: &mut Vec<UnknownField>) {
        if let Some(log) = self.unknown.as_mut() {
            log.drain_into(&self.path, out);
        }
        for child in &mut self.children {
            child.take_unknown(out);
        }
    }

    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError> {
        cur.begin_object()?;
        self.catch_up_children();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        let mut expected = 0;
        let mut matched = 0;
        let mut first = true;
        loop {
            let key_pos = cur.pos();
            // Both fast paths compare the key's bytes as written: only for a name that JSON
            // writes as it is (no quote, backslash or control character; `compact_keys` holds
            // those). Any other name needs the key decoded: `{"a\u0041":1}` is key "aA".
            let in_order = expected < self.names.len()
                && self.compact_keys[expected].as_deref().is_some_and(|key| {
                    cur.try_compact_key(if first { &key[1..] } else { key })
                        || cur.try_key(&self.names[expected], first)
                });
            let index = if in_order {
                Ok(expected)
            } else {
                match cur.next_key(first)? {
                    None => break,
                    Some(key) => self
                        .lookup(key.as_bytes(), expected)
                        .ok_or_else(|| key.to_string()),
                }
            };
            first = false;
            match index {
                Ok(i) => {
                    if self.seen[i] == self.stamp {
                        return Err(DecodeError::new(
                            format!("duplicate field '{}'", self.name(i)),
                            key_pos,
                        ));
                    }
                    self.seen[i] = self.stamp;
                    matched += 1;
                    let nullable = self.nullable[i];
                    decode_nullable(self.children[i].as_mut(), nullable, cur)
                        .map_err(|e| e.within(self.fields[i].name()))?;
                    expected = i + 1;
                }
                Err(unknown) if self.strict => {
                    return Err(DecodeError::new(
                        format!(
                            "unknown field '{}' (strict mode)",
                            excerpt(unknown.as_bytes(), false)
                        ),
                        key_pos,
                    ));
                }
                Err(unknown) => {
                    let skipped = match self.unknown.as_mut() {
                        Some(log) => log.skip_and_record(&unknown, cur),
                        None => cur.skip_value(),
                    };
                    // an unknown field's value must still be JSON (and not too deep): say which
                    skipped.map_err(|e| e.within(&excerpt(unknown.as_bytes(), false)))?
                }
            }
        }
        if matched < self.children.len() {
            for i in 0..self.children.len() {
                if self.seen[i] != self.stamp {
                    if let Some(default) = &self.defaults[i] {
                        decode_default(self.children[i].as_mut(), default)
                            .map_err(|e| e.within(self.fields[i].name()))?;
                        continue;
                    }
                    if !self.nullable[i] {
                        return Err(cur.error(format!("missing required field '{}'", self.name(i))));
                    }
                    self.children[i].append_null();
                }
            }
        }
        self.nulls.append_non_null();
        self.len += 1;
        Ok(())
    }

    fn append_null(&mut self) {
        self.append_nulls(1);
    }

    fn append_nulls(&mut self, n: usize) {
        self.children_behind += n;
        self.nulls.append_n_nulls(n);
        self.len += n;
    }

    fn len(&self) -> usize {
        self.len
    }

    fn truncate(&mut self, len: usize) {
        self.catch_up_children();
        for child in &mut self.children {
            child.truncate(len);
        }
        self.nulls.truncate(len);
        self.len = len;
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        self.catch_up_children();
        let nulls = self.nulls.finish();
        self.len = 0;
        let columns: Vec<ArrayRef> = self
            .children
            .iter_mut()
            .map(|c| c.finish())
            .collect::<Result<_, _>>()?;
        Ok(Arc::new(StructArray::try_new(
            self.fields.clone(),
            columns,
            nulls,
        )?))
    }
}

/// Decodes a write default's JSON text as one more row of `column`.
fn decode_default(column: &mut dyn Column, text: &str) -> Result<(), DecodeError> {
    let mut cur = Cursor::new(text, 64);
    column.decode(&mut cur)?;
    cur.finish()
}

struct ListColumn<O: OffsetSizeTrait> {
    element: FieldRef,
    element_nullable: bool,
    child: Box<dyn Column>,
    offsets: Vec<O>,
    nulls: NullBufferBuilder,
}

impl<O: OffsetSizeTrait> ListColumn<O> {
    fn new(element: FieldRef, path: &str, unknown: UnknownKeys) -> Result<Self, SchemaError> {
        let child = column_for(&element, &format!("{path}[]"), unknown)?;
        Ok(Self {
            element_nullable: element.is_nullable(),
            element,
            child,
            offsets: vec![O::zero()],
            nulls: NullBufferBuilder::new(0),
        })
    }
}

impl<O: OffsetSizeTrait> Column for ListColumn<O> {
    fn take_unknown(&mut self, out: &mut Vec<UnknownField>) {
        self.child.take_unknown(out);
    }

    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError> {
        cur.begin_array()?;
        let mut index = 0usize;
        while cur.next_element(index == 0)? {
            decode_nullable(self.child.as_mut(), self.element_nullable, cur)
                .map_err(|e| e.within(&format!("[{index}]")))?;
            index += 1;
        }
        let end = O::from_usize(self.child.len())
            .ok_or_else(|| cur.error("too many list elements in one batch"))?;
        self.offsets.push(end);
        self.nulls.append_non_null();
        Ok(())
    }

    fn append_null(&mut self) {
        let last = *self.offsets.last().expect("offsets start with 0");
        self.offsets.push(last);
        self.nulls.append_null();
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        self.child.truncate(self.offsets[len].as_usize());
        self.nulls.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let offsets = take_reserving(&mut self.offsets);
        self.offsets.push(O::zero());
        let values = self.child.finish()?;
        Ok(Arc::new(GenericListArray::<O>::try_new(
            self.element.clone(),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            values,
            self.nulls.finish(),
        )?))
    }
}

/// map<string, V> from a JSON object: keys become the map's key column.
struct MapColumn {
    entries: FieldRef,
    ordered: bool,
    keys: BytesColumn<i32, String>,
    values: Box<dyn Column>,
    value_nullable: bool,
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
    /// Hashes of the keys of the map being decoded: Iceberg's maps hold each key once, so a key
    /// given twice is refused (as Jackson's strict duplicate detection refuses it), not written
    /// twice. Cleared per map, so it allocates only while it grows.
    key_hashes: std::collections::HashSet<u64>,
}

/// FNV-1a: a map key's hash for [`MapColumn::key_hashes`] (equal hashes are compared by text).
fn key_hash(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl MapColumn {
    fn new(
        entries: FieldRef,
        ordered: bool,
        path: &str,
        unknown: UnknownKeys,
    ) -> Result<Self, SchemaError> {
        let DataType::Struct(kv) = entries.data_type() else {
            return Err(SchemaError::MapEntriesNotStruct {
                path: path.to_string(),
            });
        };
        if kv.len() != 2 || kv[0].data_type() != &DataType::Utf8 {
            return Err(SchemaError::MapKeysNotUtf8 {
                path: path.to_string(),
            });
        }
        let values = column_for(&kv[1], &format!("{path}{{}}"), unknown)?;
        Ok(Self {
            value_nullable: kv[1].is_nullable(),
            entries,
            ordered,
            keys: BytesColumn::new(),
            values,
            offsets: vec![0],
            nulls: NullBufferBuilder::new(0),
            key_hashes: std::collections::HashSet::new(),
        })
    }
}

impl Column for MapColumn {
    fn take_unknown(&mut self, out: &mut Vec<UnknownField>) {
        self.values.take_unknown(out);
    }

    fn decode(&mut self, cur: &mut Cursor) -> Result<(), DecodeError> {
        cur.begin_object()?;
        self.key_hashes.clear();
        let first_key = self.keys.len();
        let mut first = true;
        loop {
            let pos = cur.pos();
            match cur.next_key(first)? {
                None => break,
                Some(key) => {
                    let seen = !self.key_hashes.insert(key_hash(key))
                        && (first_key..self.keys.len()).any(|i| self.keys.str_at(i) == key);
                    if seen {
                        return Err(DecodeError::new(
                            format!("duplicate map key '{}'", excerpt(key.as_bytes(), false)),
                            pos,
                        ));
                    }
                    self.keys.append_str(key, pos)?
                }
            }
            first = false;
            decode_nullable(self.values.as_mut(), self.value_nullable, cur).map_err(|e| {
                let key = self.keys.str_at(self.keys.len() - 1);
                e.within(&format!("{{\"{}\"}}", excerpt(key.as_bytes(), false)))
            })?;
        }
        let end = i32::try_from(self.keys.len())
            .map_err(|_| cur.error("too many map entries in one batch"))?;
        self.offsets.push(end);
        self.nulls.append_non_null();
        Ok(())
    }

    fn append_null(&mut self) {
        let last = *self.offsets.last().expect("offsets start with 0");
        self.offsets.push(last);
        self.nulls.append_null();
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        let entries = self.offsets[len] as usize;
        self.keys.truncate(entries);
        self.values.truncate(entries);
        self.nulls.truncate(len);
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let DataType::Struct(kv) = self.entries.data_type() else {
            unreachable!("checked in new")
        };
        let entries = StructArray::try_new(
            kv.clone(),
            vec![self.keys.finish()?, self.values.finish()?],
            None,
        )?;
        let offsets = take_reserving(&mut self.offsets);
        self.offsets.push(0);
        Ok(Arc::new(MapArray::try_new(
            self.entries.clone(),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            entries,
            self.nulls.finish(),
            self.ordered,
        )?))
    }
}
