//! Flink's `BinaryRowData` -> Arrow: the rows a Flink job hands floe's `RowData` sink, read into
//! the table's Arrow columns natively instead of copied value by value in Java.
//!
//! The JVM packs each row's bytes (null bits, slots and variable part, the layout `json/binary_row.rs`
//! describes) as one message of a batch; the decoder config's `flink_rows` names the rows' Flink
//! type. Columns are matched to the rows' fields by name, as the Java path (`RowDataToArrow`)
//! matches them, and values take the same Iceberg representation:
//! - narrower integers widened to int or long, `FLOAT` to double, `TIME` (millis of the day) in
//!   micros;
//! - timestamps (with or without local time zone) in micros or nanos, as the column holds them;
//! - decimals at the column's scale (the rows' scale must equal it, their precision not exceed it);
//! - a column the rows lack is null (it must be optional); a row field the table lacks is refused.
//!
//! What this reader does not take -- arrays, maps, fixed and uuid columns, other pairings of types --
//! is refused when the decoder is made, and the caller keeps the Java path for those rows.
//! A row that breaks the layout (an offset outside the row) or holds a null in a required column
//! is rejected alone, with its reason; the batch's other rows still decode.

use std::sync::Arc;

use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int32Type, Int64Type,
    Time64MicrosecondType, TimestampMicrosecondType, TimestampNanosecondType,
};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, StringArray, StructArray,
};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Fields, SchemaRef, TimeUnit};
use serde::Deserialize;

use crate::error::{FloeError, Result};
use crate::json::{bounded_reason, DecodedBatch, Reject};

/// A row type as Flink describes it: fields by name, each with its `LogicalTypeRoot`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlinkRowType {
    pub fields: Vec<FlinkField>,
}

/// One field of a [`FlinkRowType`].
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlinkField {
    pub name: String,
    /// Flink's `LogicalTypeRoot` name: `BIGINT`, `VARCHAR`, `TIMESTAMP_WITHOUT_TIME_ZONE`, `ROW`...
    #[serde(rename = "type")]
    pub type_root: String,
    /// Timestamps' and decimals' precision.
    #[serde(default)]
    pub precision: Option<u32>,
    /// Decimals' scale.
    #[serde(default)]
    pub scale: Option<i8>,
    /// A `ROW`'s fields.
    #[serde(default)]
    pub fields: Option<Vec<FlinkField>>,
}

/// Reads batches of binary rows of one row type into record batches of one schema. Keeps its
/// buffers between batches; not thread-safe.
pub struct FlinkRowDecoder {
    schema: SchemaRef,
    root: RowColumns,
}

impl FlinkRowDecoder {
    /// A reader of rows of `row_type` into columns of `schema`; refused (with what does not fit)
    /// when a pairing of column and field is not one this reader takes.
    pub fn new(schema: SchemaRef, row_type: &FlinkRowType) -> Result<Self> {
        let root = RowColumns::new(schema.fields(), &row_type.fields, "")
            .map_err(|e| FloeError::invalid_argument(format!("binary rows: {e}")))?;
        Ok(Self { schema, root })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Reads every row. With `stop_at_first_reject`, stops at the first bad one (the returned
    /// batch then holds the good rows before it).
    pub fn decode<'m>(
        &mut self,
        rows: impl IntoIterator<Item = &'m [u8]>,
        stop_at_first_reject: bool,
    ) -> Result<DecodedBatch> {
        // Leftovers of a batch interrupted by a panic must not leak into this one.
        self.root.truncate(0);
        let mut count = 0;
        let mut rejects = Vec::new();
        let mut stopped = false;
        for (index, bytes) in rows.into_iter().enumerate() {
            let read = Row::new(bytes, self.root.arity).and_then(|row| self.root.append(&row));
            match read {
                Ok(()) => count += 1,
                Err(reason) => {
                    self.root.truncate(count);
                    rejects.push(Reject {
                        index,
                        reason: bounded_reason(reason),
                    });
                    if stop_at_first_reject {
                        stopped = true;
                        break;
                    }
                }
            }
        }
        let columns = self.root.finish()?;
        let batch = RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(count)),
        )?;
        Ok(DecodedBatch {
            batch,
            rejects,
            stopped,
        })
    }
}

/// Bits before the fields' null bits: the row kind's byte.
const HEADER_BITS: usize = 8;

/// One binary row's bytes, its fixed part checked to be there.
struct Row<'a> {
    bytes: &'a [u8],
    /// Where the 8-byte slots start (after the null bits).
    slots: usize,
}

impl<'a> Row<'a> {
    fn new(bytes: &'a [u8], arity: usize) -> std::result::Result<Self, String> {
        let slots = (arity + 63 + HEADER_BITS) / 64 * 8;
        if bytes.len() < slots + 8 * arity {
            return Err(format!(
                "a binary row of {} bytes is shorter than the fixed part of {arity} fields",
                bytes.len()
            ));
        }
        Ok(Self { bytes, slots })
    }

    fn is_null(&self, field: usize) -> bool {
        let bit = field + HEADER_BITS;
        self.bytes[bit / 8] & (1 << (bit % 8)) != 0
    }

    fn slot(&self, field: usize) -> [u8; 8] {
        let at = self.slots + 8 * field;
        self.bytes[at..at + 8].try_into().expect("8 bytes")
    }

    fn word(&self, field: usize) -> u64 {
        u64::from_le_bytes(self.slot(field))
    }

    /// The bytes an `offset << 32 | length` slot points at.
    fn variable(&self, field: usize) -> std::result::Result<&'a [u8], String> {
        let word = self.word(field);
        self.span((word >> 32) as usize, (word & 0xFFFF_FFFF) as usize)
    }

    fn span(&self, offset: usize, length: usize) -> std::result::Result<&'a [u8], String> {
        offset
            .checked_add(length)
            .and_then(|end| self.bytes.get(offset..end))
            .ok_or_else(|| {
                format!(
                    "a variable part at {offset} of {length} bytes lies outside the row's {} bytes",
                    self.bytes.len()
                )
            })
    }

    /// A string's or a binary's bytes: in the slot itself (at most 7, flagged by the top bit) or
    /// in the variable part.
    fn bytes_at(&self, field: usize) -> std::result::Result<&'a [u8], String> {
        let word = self.word(field);
        if word >> 63 == 0 {
            return self.variable(field);
        }
        let length = ((word >> 56) & 0x7F) as usize;
        if length > 7 {
            return Err(format!("an inline value of {length} bytes (at most 7 fit)"));
        }
        let at = self.slots + 8 * field;
        Ok(&self.bytes[at..at + length])
    }

    fn i32_at(&self, field: usize) -> i32 {
        let slot = self.slot(field);
        i32::from_le_bytes(slot[..4].try_into().expect("4 bytes"))
    }

    fn i64_at(&self, field: usize) -> i64 {
        i64::from_le_bytes(self.slot(field))
    }

    /// Epoch millis and nano of milli: compact (precision <= 3) in the slot, else the millis in
    /// the variable part and the nanos in the slot.
    fn timestamp_at(&self, field: usize, compact: bool) -> std::result::Result<(i64, i64), String> {
        if compact {
            return Ok((self.i64_at(field), 0));
        }
        let word = self.word(field);
        let millis = self.span((word >> 32) as usize, 8)?;
        let millis = i64::from_le_bytes(millis.try_into().expect("8 bytes"));
        Ok((millis, (word & 0xFFFF_FFFF) as i64))
    }

    /// A decimal's unscaled value: compact (precision <= 18) in the slot, else Java's
    /// `BigInteger.toByteArray()` (big-endian two's complement) in the variable part.
    fn decimal_at(&self, field: usize, compact: bool) -> std::result::Result<i128, String> {
        if compact {
            return Ok(self.i64_at(field) as i128);
        }
        let bytes = self.variable(field)?;
        if bytes.is_empty() || bytes.len() > 16 {
            return Err(format!("a decimal of {} bytes (1 to 16 fit)", bytes.len()));
        }
        let fill = if bytes[0] & 0x80 != 0 { 0xFF } else { 0x00 };
        let mut be = [fill; 16];
        be[16 - bytes.len()..].copy_from_slice(bytes);
        Ok(i128::from_be_bytes(be))
    }
}

/// The columns of one row type's fields in a batch (the table's columns, or a struct's).
struct RowColumns {
    /// The rows' field count.
    arity: usize,
    columns: Vec<FieldColumn>,
}

/// A table column (or struct field) and the row field it is read from.
struct FieldColumn {
    /// The row field's position; `None` when the rows lack the column (it stays null).
    position: Option<usize>,
    nullable: bool,
    path: String,
    values: Values,
}

impl RowColumns {
    fn new(
        targets: &Fields,
        fields: &[FlinkField],
        parent: &str,
    ) -> std::result::Result<Self, String> {
        for field in fields {
            if targets.find(&field.name).is_none() {
                return Err(format!(
                    "the rows have a field '{}' that the table lacks",
                    join(parent, &field.name)
                ));
            }
        }
        let mut columns = Vec::with_capacity(targets.len());
        for target in targets.iter() {
            let path = join(parent, target.name());
            let position = fields.iter().position(|f| f.name == *target.name());
            if position.is_none() && !target.is_nullable() {
                return Err(format!(
                    "the rows lack the table's required column '{path}'"
                ));
            }
            let values = match position {
                Some(p) => values_for(target, &fields[p], &path)?,
                None => Values::Absent(target.data_type().clone(), 0),
            };
            columns.push(FieldColumn {
                position,
                nullable: target.is_nullable(),
                path,
                values,
            });
        }
        Ok(Self {
            arity: fields.len(),
            columns,
        })
    }

    fn append(&mut self, row: &Row) -> std::result::Result<(), String> {
        for column in &mut self.columns {
            match column.position {
                Some(p) if !row.is_null(p) => {
                    column
                        .values
                        .append(row, p)
                        .map_err(|e| match column.values {
                            Values::Struct(_) => e,
                            _ => format!("column '{}': {e}", column.path),
                        })?
                }
                _ if !column.nullable => {
                    return Err(format!(
                        "null in the table's required column '{}'",
                        column.path
                    ))
                }
                _ => column.values.append_nulls(1),
            }
        }
        Ok(())
    }

    fn append_nulls(&mut self, n: usize) {
        for column in &mut self.columns {
            column.values.append_nulls(n);
        }
    }

    fn truncate(&mut self, len: usize) {
        for column in &mut self.columns {
            column.values.truncate(len);
        }
    }

    fn finish(&mut self) -> std::result::Result<Vec<ArrayRef>, ArrowError> {
        self.columns.iter_mut().map(|c| c.values.finish()).collect()
    }
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

/// One column's values in the batch being read: a closed set of kinds, so that the per-value
/// dispatch is a `match` the compiler can inline.
enum Values {
    Bool(BoolValues),
    Tiny(Primitive<Int32Type>),
    Small(Primitive<Int32Type>),
    Int(Primitive<Int32Type>),
    Long(Primitive<Int64Type>),
    /// TINYINT, SMALLINT or INTEGER rows in a long column.
    WideLong(Primitive<Int64Type>, IntWidth),
    Float(Primitive<Float32Type>),
    Double(Primitive<Float64Type>),
    /// FLOAT rows in a double column.
    WideDouble(Primitive<Float64Type>),
    Date(Primitive<Date32Type>),
    /// Flink's millis of the day, as micros.
    Time(Primitive<Time64MicrosecondType>),
    Micros(Primitive<TimestampMicrosecondType>, Compact),
    Nanos(Primitive<TimestampNanosecondType>, Compact),
    Decimal(Primitive<Decimal128Type>, Compact),
    Utf8(Bytes),
    Binary(Bytes),
    Struct(Box<StructValues>),
    /// A column the rows lack: all null.
    Absent(DataType, usize),
}

/// Whether a timestamp (precision <= 3) or a decimal (precision <= 18) sits in its slot.
type Compact = bool;

/// The bytes of a narrower integer in its slot, widened to a long column's.
#[derive(Clone, Copy)]
enum IntWidth {
    One,
    Two,
    Four,
}

impl Values {
    /// Appends the value of field `field` of `row`, which is not null. An error names the
    /// column only for nested rows (the caller adds the path of the others).
    fn append(&mut self, row: &Row, field: usize) -> std::result::Result<(), String> {
        match self {
            Self::Bool(v) => v.push(row.slot(field)[0] != 0),
            Self::Tiny(v) => v.push(row.slot(field)[0] as i8 as i32),
            Self::Small(v) => {
                let slot = row.slot(field);
                v.push(i16::from_le_bytes([slot[0], slot[1]]) as i32)
            }
            Self::Int(v) => v.push(row.i32_at(field)),
            Self::Date(v) => v.push(row.i32_at(field)),
            Self::Long(v) => v.push(row.i64_at(field)),
            Self::WideLong(v, width) => {
                let slot = row.slot(field);
                v.push(match width {
                    IntWidth::One => slot[0] as i8 as i64,
                    IntWidth::Two => i16::from_le_bytes([slot[0], slot[1]]) as i64,
                    IntWidth::Four => row.i32_at(field) as i64,
                })
            }
            Self::Float(v) => v.push(f32::from_bits(row.i32_at(field) as u32)),
            Self::Double(v) => v.push(f64::from_bits(row.i64_at(field) as u64)),
            Self::WideDouble(v) => v.push(f32::from_bits(row.i32_at(field) as u32) as f64),
            Self::Time(v) => v.push(row.i32_at(field) as i64 * 1_000),
            Self::Micros(v, compact) => {
                let (millis, nanos) = row.timestamp_at(field, *compact)?;
                let micros = millis
                    .checked_mul(1_000)
                    .and_then(|micros| micros.checked_add(nanos / 1_000));
                v.push(micros.ok_or(TIMESTAMP_RANGE)?)
            }
            Self::Nanos(v, compact) => {
                let (millis, nanos) = row.timestamp_at(field, *compact)?;
                let value = millis
                    .checked_mul(1_000_000)
                    .and_then(|n| n.checked_add(nanos));
                v.push(value.ok_or(TIMESTAMP_RANGE)?)
            }
            Self::Decimal(v, compact) => v.push(row.decimal_at(field, *compact)?),
            Self::Utf8(v) | Self::Binary(v) => v.push(row.bytes_at(field)?)?,
            Self::Struct(v) => v.push(row, field)?,
            Self::Absent(..) => unreachable!("the rows lack this column"),
        }
        Ok(())
    }

    fn append_nulls(&mut self, n: usize) {
        match self {
            Self::Bool(v) => v.push_nulls(n),
            Self::Tiny(v) | Self::Small(v) | Self::Int(v) => v.push_nulls(n),
            Self::Date(v) => v.push_nulls(n),
            Self::Long(v) | Self::WideLong(v, _) => v.push_nulls(n),
            Self::Float(v) => v.push_nulls(n),
            Self::Double(v) | Self::WideDouble(v) => v.push_nulls(n),
            Self::Time(v) => v.push_nulls(n),
            Self::Micros(v, _) => v.push_nulls(n),
            Self::Nanos(v, _) => v.push_nulls(n),
            Self::Decimal(v, _) => v.push_nulls(n),
            Self::Utf8(v) | Self::Binary(v) => v.push_nulls(n),
            Self::Struct(v) => v.push_nulls(n),
            Self::Absent(_, len) => *len += n,
        }
    }

    /// Keeps the first `len` values (a rejected row's are dropped again).
    fn truncate(&mut self, len: usize) {
        match self {
            Self::Bool(v) => v.truncate(len),
            Self::Tiny(v) | Self::Small(v) | Self::Int(v) => v.truncate(len),
            Self::Date(v) => v.truncate(len),
            Self::Long(v) | Self::WideLong(v, _) => v.truncate(len),
            Self::Float(v) => v.truncate(len),
            Self::Double(v) | Self::WideDouble(v) => v.truncate(len),
            Self::Time(v) => v.truncate(len),
            Self::Micros(v, _) => v.truncate(len),
            Self::Nanos(v, _) => v.truncate(len),
            Self::Decimal(v, _) => v.truncate(len),
            Self::Utf8(v) | Self::Binary(v) => v.truncate(len),
            Self::Struct(v) => v.truncate(len),
            Self::Absent(_, count) => *count = (*count).min(len),
        }
    }

    /// The values since the last call, as an array; empties the column.
    fn finish(&mut self) -> std::result::Result<ArrayRef, ArrowError> {
        Ok(match self {
            Self::Bool(v) => v.finish(),
            Self::Tiny(v) | Self::Small(v) | Self::Int(v) => v.finish()?,
            Self::Date(v) => v.finish()?,
            Self::Long(v) | Self::WideLong(v, _) => v.finish()?,
            Self::Float(v) => v.finish()?,
            Self::Double(v) | Self::WideDouble(v) => v.finish()?,
            Self::Time(v) => v.finish()?,
            Self::Micros(v, _) => v.finish()?,
            Self::Nanos(v, _) => v.finish()?,
            Self::Decimal(v, _) => v.finish()?,
            Self::Utf8(v) => Arc::new(StringArray::try_new(
                v.take_offsets(),
                v.take_data(),
                v.take_nulls(),
            )?),
            Self::Binary(v) => Arc::new(BinaryArray::try_new(
                v.take_offsets(),
                v.take_data(),
                v.take_nulls(),
            )?),
            Self::Struct(v) => v.finish()?,
            Self::Absent(data_type, len) => {
                arrow_array::new_null_array(data_type, std::mem::take(len))
            }
        })
    }
}

const TIMESTAMP_RANGE: &str = "a timestamp beyond the column's range";

/// The column for `target` read from `field`, when this reader takes that pairing.
fn values_for(
    target: &Field,
    field: &FlinkField,
    path: &str,
) -> std::result::Result<Values, String> {
    let data_type = target.data_type().clone();
    let root = field.type_root.as_str();
    let compact_timestamp = || match field.precision {
        Some(p) => Ok(p <= 3),
        None => Err(format!(
            "column '{path}': a timestamp field needs its precision"
        )),
    };
    Ok(match (target.data_type(), root) {
        (DataType::Boolean, "BOOLEAN") => Values::Bool(BoolValues::default()),
        (DataType::Int32, "TINYINT") => Values::Tiny(Primitive::new(data_type)),
        (DataType::Int32, "SMALLINT") => Values::Small(Primitive::new(data_type)),
        (DataType::Int32, "INTEGER") => Values::Int(Primitive::new(data_type)),
        (DataType::Int64, "BIGINT") => Values::Long(Primitive::new(data_type)),
        (DataType::Int64, "TINYINT") => Values::WideLong(Primitive::new(data_type), IntWidth::One),
        (DataType::Int64, "SMALLINT") => Values::WideLong(Primitive::new(data_type), IntWidth::Two),
        (DataType::Int64, "INTEGER") => Values::WideLong(Primitive::new(data_type), IntWidth::Four),
        (DataType::Float32, "FLOAT") => Values::Float(Primitive::new(data_type)),
        (DataType::Float64, "DOUBLE") => Values::Double(Primitive::new(data_type)),
        (DataType::Float64, "FLOAT") => Values::WideDouble(Primitive::new(data_type)),
        (DataType::Date32, "DATE") => Values::Date(Primitive::new(data_type)),
        (DataType::Time64(TimeUnit::Microsecond), "TIME_WITHOUT_TIME_ZONE") => {
            Values::Time(Primitive::new(data_type))
        }
        (
            DataType::Timestamp(TimeUnit::Microsecond, _),
            "TIMESTAMP_WITHOUT_TIME_ZONE" | "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
        ) => Values::Micros(Primitive::new(data_type), compact_timestamp()?),
        (
            DataType::Timestamp(TimeUnit::Nanosecond, _),
            "TIMESTAMP_WITHOUT_TIME_ZONE" | "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
        ) => Values::Nanos(Primitive::new(data_type), compact_timestamp()?),
        (DataType::Decimal128(precision, scale), "DECIMAL")
            if field.scale == Some(*scale)
                && field.precision.is_some_and(|p| p <= u32::from(*precision)) =>
        {
            let compact = field.precision.is_some_and(|p| p <= 18);
            Values::Decimal(Primitive::new(data_type), compact)
        }
        (DataType::Utf8, "CHAR" | "VARCHAR") => Values::Utf8(Bytes::default()),
        (DataType::Binary, "BINARY" | "VARBINARY") => Values::Binary(Bytes::default()),
        (DataType::Struct(targets), "ROW") => {
            let fields = field.fields.as_deref().unwrap_or_default();
            Values::Struct(Box::new(StructValues {
                fields: targets.clone(),
                row: RowColumns::new(targets, fields, path)?,
                nulls: BooleanBufferBuilder::new(0),
                pending_nulls: 0,
            }))
        }
        (other, _) => {
            return Err(format!(
                "column '{path}' is {other} and the rows hold {}{}: not read natively",
                root,
                match (field.precision, field.scale) {
                    (Some(p), Some(s)) => format!("({p}, {s})"),
                    (Some(p), None) => format!("({p})"),
                    _ => String::new(),
                }
            ))
        }
    })
}

/// Fixed-width values and their validity.
struct Primitive<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    nulls: BooleanBufferBuilder,
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> Primitive<T> {
    fn new(data_type: DataType) -> Self {
        Self {
            values: Vec::new(),
            nulls: BooleanBufferBuilder::new(0),
            data_type,
        }
    }

    #[inline]
    fn push(&mut self, value: T::Native) {
        self.values.push(value);
        self.nulls.append(true);
    }

    fn push_nulls(&mut self, n: usize) {
        self.values
            .resize(self.values.len() + n, T::Native::default());
        self.nulls.append_n(n, false);
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.nulls.truncate(len);
    }

    fn finish(&mut self) -> std::result::Result<ArrayRef, ArrowError> {
        let capacity = self.values.len();
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(capacity));
        let nulls = finish_nulls(&mut self.nulls);
        let array = PrimitiveArray::<T>::try_new(ScalarBuffer::from(values), nulls)?
            .with_data_type(self.data_type.clone());
        Ok(Arc::new(array))
    }
}

/// A validity bitmap as Arrow wants it: none when every value is valid.
fn finish_nulls(nulls: &mut BooleanBufferBuilder) -> Option<NullBuffer> {
    let nulls = NullBuffer::new(nulls.finish());
    (nulls.null_count() > 0).then_some(nulls)
}

struct BoolValues {
    values: BooleanBufferBuilder,
    nulls: BooleanBufferBuilder,
}

impl Default for BoolValues {
    fn default() -> Self {
        Self {
            values: BooleanBufferBuilder::new(0),
            nulls: BooleanBufferBuilder::new(0),
        }
    }
}

impl BoolValues {
    fn push(&mut self, value: bool) {
        self.values.append(value);
        self.nulls.append(true);
    }

    fn push_nulls(&mut self, n: usize) {
        self.values.append_n(n, false);
        self.nulls.append_n(n, false);
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.nulls.truncate(len);
    }

    fn finish(&mut self) -> ArrayRef {
        let nulls = finish_nulls(&mut self.nulls);
        Arc::new(BooleanArray::new(self.values.finish(), nulls))
    }
}

/// Strings or binaries: offsets, bytes and validity. Strings' UTF-8 is checked once per batch,
/// when it is finished: Flink's strings come from Java strings or checked JSON, so a bad one is a
/// broken row, not bad input to isolate.
struct Bytes {
    offsets: Vec<i32>,
    data: Vec<u8>,
    nulls: BooleanBufferBuilder,
}

impl Default for Bytes {
    fn default() -> Self {
        Self {
            offsets: vec![0],
            data: Vec::new(),
            nulls: BooleanBufferBuilder::new(0),
        }
    }
}

impl Bytes {
    #[inline]
    fn push(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        let end = i32::try_from(self.data.len() + bytes.len())
            .map_err(|_| "more than 2 GiB of values in one batch".to_string())?;
        self.data.extend_from_slice(bytes);
        self.offsets.push(end);
        self.nulls.append(true);
        Ok(())
    }

    fn push_nulls(&mut self, n: usize) {
        self.offsets
            .resize(self.offsets.len() + n, self.data.len() as i32);
        self.nulls.append_n(n, false);
    }

    fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        self.data.truncate(self.offsets[len] as usize);
        self.nulls.truncate(len);
    }

    fn take_offsets(&mut self) -> OffsetBuffer<i32> {
        let mut next = Vec::with_capacity(self.offsets.len());
        next.push(0);
        OffsetBuffer::new(ScalarBuffer::from(std::mem::replace(
            &mut self.offsets,
            next,
        )))
    }

    fn take_data(&mut self) -> arrow_buffer::Buffer {
        let capacity = self.data.len();
        std::mem::replace(&mut self.data, Vec::with_capacity(capacity)).into()
    }

    fn take_nulls(&mut self) -> Option<NullBuffer> {
        finish_nulls(&mut self.nulls)
    }
}

/// A nested row read into a struct column. The children's values under null structs are
/// appended in runs, when the next struct that is not null comes (or the batch ends): most of a
/// Nexmark event's nested rows are null, and a run costs each child one bulk append.
struct StructValues {
    fields: Fields,
    row: RowColumns,
    nulls: BooleanBufferBuilder,
    /// Null structs whose children's nulls are not appended yet (the last ones).
    pending_nulls: usize,
}

impl StructValues {
    fn push(&mut self, row: &Row, field: usize) -> std::result::Result<(), String> {
        let nested = Row::new(row.variable(field)?, self.row.arity)?;
        self.flush_nulls();
        self.row.append(&nested)?;
        self.nulls.append(true);
        Ok(())
    }

    fn push_nulls(&mut self, n: usize) {
        self.pending_nulls += n;
        self.nulls.append_n(n, false);
    }

    fn flush_nulls(&mut self) {
        if self.pending_nulls > 0 {
            self.row
                .append_nulls(std::mem::take(&mut self.pending_nulls));
        }
    }

    fn truncate(&mut self, len: usize) {
        self.flush_nulls();
        self.row.truncate(len);
        self.nulls.truncate(len);
    }

    fn finish(&mut self) -> std::result::Result<ArrayRef, ArrowError> {
        self.flush_nulls();
        let len = self.nulls.len();
        let children = self.row.finish()?;
        let nulls = finish_nulls(&mut self.nulls);
        if self.fields.is_empty() {
            return Ok(Arc::new(StructArray::new_empty_fields(len, nulls)));
        }
        Ok(Arc::new(StructArray::try_new(
            self.fields.clone(),
            children,
            nulls,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use arrow_schema::Schema;

    /// Writes binary rows the way Flink's `BinaryRowWriter` lays them out, independently of
    /// `json/binary_row.rs`.
    struct RowBytes {
        bytes: Vec<u8>,
        slots: usize,
    }

    impl RowBytes {
        fn new(arity: usize) -> Self {
            let slots = (arity + 63 + HEADER_BITS) / 64 * 8;
            Self {
                bytes: vec![0; slots + 8 * arity],
                slots,
            }
        }

        fn null(mut self, field: usize) -> Self {
            let bit = field + HEADER_BITS;
            self.bytes[bit / 8] |= 1 << (bit % 8);
            self
        }

        fn slot(mut self, field: usize, value: &[u8]) -> Self {
            let at = self.slots + 8 * field;
            self.bytes[at..at + value.len()].copy_from_slice(value);
            self
        }

        fn i64(self, field: usize, value: i64) -> Self {
            self.slot(field, &value.to_le_bytes())
        }

        /// `bytes` in the variable part, the slot `offset << 32 | low`.
        fn variable(mut self, field: usize, bytes: &[u8], low: u64) -> Self {
            let offset = self.bytes.len() as u64;
            self.bytes.extend_from_slice(bytes);
            self.bytes.resize(self.bytes.len().div_ceil(8) * 8, 0);
            self.slot(field, &((offset << 32) | low).to_le_bytes())
        }

        fn bytes(self, field: usize, value: &[u8]) -> Self {
            if value.len() <= 7 {
                let mut slot = [0u8; 8];
                slot[..value.len()].copy_from_slice(value);
                slot[7] = 0x80 | value.len() as u8;
                self.slot(field, &slot)
            } else {
                self.variable(field, value, value.len() as u64)
            }
        }
    }

    fn flink(name: &str, type_root: &str) -> FlinkField {
        FlinkField {
            name: name.into(),
            type_root: type_root.into(),
            precision: None,
            scale: None,
            fields: None,
        }
    }

    fn with_precision(mut field: FlinkField, precision: u32, scale: Option<i8>) -> FlinkField {
        field.precision = Some(precision);
        field.scale = scale;
        field
    }

    fn decoder(columns: Vec<Field>, fields: Vec<FlinkField>) -> Result<FlinkRowDecoder> {
        FlinkRowDecoder::new(Arc::new(Schema::new(columns)), &FlinkRowType { fields })
    }

    fn nested_fields() -> Fields {
        Fields::from(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ])
    }

    #[test]
    fn every_kind_reads_as_the_java_path_writes_it() {
        let utc: Option<Arc<str>> = Some("+00:00".into());
        let columns = vec![
            Field::new("flag", DataType::Boolean, true),
            Field::new("tiny", DataType::Int32, true),
            Field::new("small", DataType::Int32, true),
            Field::new("int", DataType::Int32, true),
            Field::new("long", DataType::Int64, false),
            Field::new("float", DataType::Float32, true),
            Field::new("double", DataType::Float64, true),
            Field::new("date", DataType::Date32, true),
            Field::new("time", DataType::Time64(TimeUnit::Microsecond), true),
            Field::new(
                "ts3",
                DataType::Timestamp(TimeUnit::Microsecond, None),
                true,
            ),
            Field::new("ts6", DataType::Timestamp(TimeUnit::Microsecond, utc), true),
            Field::new("ts9", DataType::Timestamp(TimeUnit::Nanosecond, None), true),
            Field::new("small_decimal", DataType::Decimal128(12, 2), true),
            Field::new("big_decimal", DataType::Decimal128(30, 4), true),
            Field::new("short_text", DataType::Utf8, true),
            Field::new("long_text", DataType::Utf8, true),
            Field::new("blob", DataType::Binary, true),
            Field::new("nested", DataType::Struct(nested_fields()), true),
            Field::new("not_in_rows", DataType::Int64, true),
        ];
        let fields = vec![
            flink("flag", "BOOLEAN"),
            flink("tiny", "TINYINT"),
            flink("small", "SMALLINT"),
            flink("int", "INTEGER"),
            flink("long", "BIGINT"),
            flink("float", "FLOAT"),
            flink("double", "DOUBLE"),
            flink("date", "DATE"),
            flink("time", "TIME_WITHOUT_TIME_ZONE"),
            with_precision(flink("ts3", "TIMESTAMP_WITHOUT_TIME_ZONE"), 3, None),
            with_precision(flink("ts6", "TIMESTAMP_WITH_LOCAL_TIME_ZONE"), 6, None),
            with_precision(flink("ts9", "TIMESTAMP_WITHOUT_TIME_ZONE"), 9, None),
            with_precision(flink("small_decimal", "DECIMAL"), 10, Some(2)),
            with_precision(flink("big_decimal", "DECIMAL"), 30, Some(4)),
            flink("short_text", "VARCHAR"),
            flink("long_text", "CHAR"),
            flink("blob", "VARBINARY"),
            FlinkField {
                fields: Some(vec![flink("name", "VARCHAR"), flink("id", "BIGINT")]),
                ..flink("nested", "ROW")
            },
        ];
        let mut decoder = decoder(columns, fields).unwrap();
        let nested = RowBytes::new(2)
            .bytes(0, "néstéd name".as_bytes())
            .i64(1, 77);
        let big = -123_456_789_012_345_678_901_234_567i128;
        let big_bytes = big.to_be_bytes();
        let full = RowBytes::new(18)
            .slot(0, &[1])
            .slot(1, &(-5i8).to_le_bytes())
            .slot(2, &(-300i16).to_le_bytes())
            .slot(3, &(-70_000i32).to_le_bytes())
            .i64(4, i64::MIN)
            .slot(5, &1.5f32.to_le_bytes())
            .slot(6, &(-2.25f64).to_le_bytes())
            .slot(7, &19_000i32.to_le_bytes())
            .slot(8, &(3_600_123i32).to_le_bytes())
            .i64(9, 1_700_000_000_123)
            .variable(10, &(-1_700_000_000_123i64).to_le_bytes(), 456_000)
            .variable(11, &1_700_000_000_123i64.to_le_bytes(), 456_789)
            .i64(12, -12_345)
            .variable(13, &big_bytes[4..], 12)
            .bytes(14, b"abc")
            .bytes(15, "a longer text, é".as_bytes())
            .bytes(16, &[0, 255, 7])
            .variable(17, &nested.bytes, nested.bytes.len() as u64);
        let mut nulls = RowBytes::new(18).i64(4, 9).null(17);
        for field in (0..18).filter(|&f| f != 4) {
            nulls = nulls.null(field);
        }
        let decoded = decoder
            .decode([&full.bytes[..], &nulls.bytes[..]], false)
            .unwrap();
        assert!(decoded.rejects.is_empty(), "{:?}", decoded.rejects);
        let batch = decoded.batch;
        assert_eq!(batch.num_rows(), 2);
        let column = |name: &str| batch.column_by_name(name).unwrap().clone();
        assert!(column("flag").as_boolean().value(0));
        let ints = |name: &str| column(name).as_primitive::<Int32Type>().value(0);
        assert_eq!(
            (ints("tiny"), ints("small"), ints("int")),
            (-5, -300, -70_000)
        );
        assert_eq!(
            column("long").as_primitive::<Int64Type>().values(),
            &[i64::MIN, 9]
        );
        assert_eq!(column("float").as_primitive::<Float32Type>().value(0), 1.5);
        assert_eq!(
            column("double").as_primitive::<Float64Type>().value(0),
            -2.25
        );
        assert_eq!(column("date").as_primitive::<Date32Type>().value(0), 19_000);
        let time = column("time");
        assert_eq!(
            time.as_primitive::<Time64MicrosecondType>().value(0),
            3_600_123_000
        );
        let micros = |name: &str| {
            column(name)
                .as_primitive::<TimestampMicrosecondType>()
                .value(0)
        };
        assert_eq!(micros("ts3"), 1_700_000_000_123_000);
        assert_eq!(micros("ts6"), -1_700_000_000_123_000 + 456);
        assert_eq!(
            column("ts6").data_type(),
            batch.schema().field(10).data_type()
        );
        let ts9 = column("ts9");
        let nanos = ts9.as_primitive::<TimestampNanosecondType>().value(0);
        assert_eq!(nanos, 1_700_000_000_123_000_000 + 456_789);
        let decimals = |name: &str| column(name).as_primitive::<Decimal128Type>().value(0);
        assert_eq!(
            (decimals("small_decimal"), decimals("big_decimal")),
            (-12_345, big)
        );
        assert_eq!(column("short_text").as_string::<i32>().value(0), "abc");
        assert_eq!(
            column("long_text").as_string::<i32>().value(0),
            "a longer text, é"
        );
        assert_eq!(column("blob").as_binary::<i32>().value(0), &[0, 255, 7]);
        let nested = column("nested");
        let nested = nested.as_struct();
        assert_eq!(nested.column(0).as_primitive::<Int64Type>().value(0), 77);
        assert_eq!(nested.column(1).as_string::<i32>().value(0), "néstéd name");
        assert!(nested.is_null(1));
        assert_eq!(column("not_in_rows").null_count(), 2);
        for (index, field) in batch.schema().fields().iter().enumerate() {
            let expected_nulls = if field.name() == "long" { 0 } else { 1 };
            let nulls = if field.name() == "not_in_rows" {
                2
            } else {
                expected_nulls
            };
            assert_eq!(batch.column(index).null_count(), nulls, "{}", field.name());
        }
    }

    #[test]
    fn a_bad_row_is_rejected_alone_and_named() {
        let columns = vec![
            Field::new("id", DataType::Int64, false),
            Field::new("nested", DataType::Struct(nested_fields()), true),
            Field::new("text", DataType::Utf8, true),
        ];
        let fields = vec![
            flink("id", "BIGINT"),
            FlinkField {
                fields: Some(vec![flink("id", "BIGINT"), flink("name", "VARCHAR")]),
                ..flink("nested", "ROW")
            },
            flink("text", "VARCHAR"),
        ];
        let mut decoder = decoder(columns, fields).unwrap();
        let good = |id: i64| {
            RowBytes::new(3)
                .i64(0, id)
                .null(1)
                .bytes(2, b"a text of some length")
        };
        let required_null = RowBytes::new(3).null(0).null(1).null(2);
        let nested_required_null = RowBytes::new(2).null(0).null(1);
        let nested_bytes = &nested_required_null.bytes;
        let nested_null =
            RowBytes::new(3)
                .i64(0, 3)
                .variable(1, nested_bytes, nested_bytes.len() as u64);
        let outside = RowBytes::new(3)
            .i64(0, 4)
            .null(1)
            .slot(2, &((4096u64 << 32) | 20).to_le_bytes());
        let rows = [
            good(1).bytes,
            required_null.bytes,
            nested_null.bytes,
            outside.bytes,
            vec![0u8; 7],
            good(2).bytes,
        ];
        let decoded = decoder
            .decode(rows.iter().map(Vec::as_slice), false)
            .unwrap();
        let reasons: Vec<_> = decoded
            .rejects
            .iter()
            .map(|r| (r.index, r.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                (1, "null in the table's required column 'id'"),
                (2, "null in the table's required column 'nested.id'"),
                (3, "column 'text': a variable part at 4096 of 20 bytes lies outside the row's 32 bytes"),
                (4, "a binary row of 7 bytes is shorter than the fixed part of 3 fields"),
            ]
        );
        let ids = decoded
            .batch
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec();
        assert_eq!(ids, [1, 2]);
        let text = decoded.batch.column(2);
        assert_eq!(text.as_string::<i32>().value(1), "a text of some length");

        let stopped = decoder
            .decode(rows.iter().map(Vec::as_slice), true)
            .unwrap();
        assert!(stopped.stopped);
        assert_eq!(stopped.batch.num_rows(), 1);
    }

    #[test]
    fn runs_of_null_structs_reach_the_children_in_order() {
        let columns = vec![
            Field::new("id", DataType::Int64, false),
            Field::new("nested", DataType::Struct(nested_fields()), true),
        ];
        let nested_type = FlinkField {
            fields: Some(vec![flink("id", "BIGINT"), flink("name", "VARCHAR")]),
            ..flink("nested", "ROW")
        };
        let mut decoder = decoder(columns, vec![flink("id", "BIGINT"), nested_type]).unwrap();
        let null_struct = |id: i64| RowBytes::new(2).i64(0, id).null(1).bytes;
        let with_struct = |id: i64, inner: Option<i64>| {
            let nested = match inner {
                Some(v) => RowBytes::new(2).i64(0, v).bytes(1, b"x"),
                None => RowBytes::new(2).null(0).null(1), // a null in the required nested.id
            };
            let len = nested.bytes.len() as u64;
            RowBytes::new(2)
                .i64(0, id)
                .variable(1, &nested.bytes, len)
                .bytes
        };
        let rows = [
            null_struct(1),
            null_struct(2),
            with_struct(3, None), // rejected after two pending null structs
            null_struct(4),
            with_struct(5, Some(50)),
            null_struct(6),
        ];
        let decoded = decoder
            .decode(rows.iter().map(Vec::as_slice), false)
            .unwrap();
        assert_eq!(decoded.rejects.len(), 1);
        assert_eq!(decoded.rejects[0].index, 2);
        let batch = decoded.batch;
        let ids = batch
            .column(0)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec();
        assert_eq!(ids, [1, 2, 4, 5, 6]);
        let nested = batch.column(1).as_struct();
        let valid: Vec<bool> = (0..5).map(|i| nested.is_valid(i)).collect();
        assert_eq!(valid, [false, false, false, true, false]);
        let inner = nested.column(0).as_primitive::<Int64Type>();
        assert_eq!((inner.len(), inner.value(3)), (5, 50));
        assert_eq!(nested.column(1).as_string::<i32>().value(3), "x");
        assert_eq!(nested.column(1).len(), 5);
    }

    #[test]
    fn narrower_values_widen_with_their_sign() {
        let columns = vec![
            Field::new("tiny", DataType::Int64, true),
            Field::new("small", DataType::Int64, true),
            Field::new("int", DataType::Int64, true),
            Field::new("float", DataType::Float64, true),
        ];
        let fields = vec![
            flink("tiny", "TINYINT"),
            flink("small", "SMALLINT"),
            flink("int", "INTEGER"),
            flink("float", "FLOAT"),
        ];
        let mut decoder = decoder(columns, fields).unwrap();
        // The slots' upper bytes are zero, as Flink's writer leaves them: widening must not read them.
        let row = RowBytes::new(4)
            .slot(0, &(-7i8).to_le_bytes())
            .slot(1, &(-300i16).to_le_bytes())
            .slot(2, &(-70_000i32).to_le_bytes())
            .slot(3, &(-1.5f32).to_le_bytes());
        let batch = decoder.decode([&row.bytes[..]], false).unwrap().batch;
        let long = |c: usize| batch.column(c).as_primitive::<Int64Type>().value(0);
        assert_eq!((long(0), long(1), long(2)), (-7, -300, -70_000));
        assert_eq!(batch.column(3).as_primitive::<Float64Type>().value(0), -1.5);
    }

    #[test]
    fn pairings_it_does_not_read_are_refused_when_made() {
        let refused = |columns: Vec<Field>, fields: Vec<FlinkField>| {
            decoder(columns, fields).err().expect("refused").message
        };
        let long = || Field::new("n", DataType::Int64, true);
        assert_eq!(
            refused(vec![long()], vec![flink("n", "DOUBLE")]),
            "binary rows: column 'n' is Int64 and the rows hold DOUBLE: not read natively"
        );
        assert_eq!(
            refused(
                vec![long()],
                vec![flink("n", "BIGINT"), flink("extra", "BIGINT")]
            ),
            "binary rows: the rows have a field 'extra' that the table lacks"
        );
        assert_eq!(
            refused(
                vec![long(), Field::new("id", DataType::Int64, false)],
                vec![flink("n", "BIGINT")]
            ),
            "binary rows: the rows lack the table's required column 'id'"
        );
        let decimal = Field::new("d", DataType::Decimal128(10, 2), true);
        let wider = with_precision(flink("d", "DECIMAL"), 10, Some(3));
        assert_eq!(
            refused(vec![decimal], vec![wider]),
            "binary rows: column 'd' is Decimal128(10, 2) and the rows hold DECIMAL(10, 3): not read natively"
        );
        let list = Field::new_list("l", Field::new_list_field(DataType::Int64, true), true);
        assert!(refused(vec![list], vec![flink("l", "ARRAY")]).contains("column 'l' is List"));
        let timestamp = Field::new("t", DataType::Timestamp(TimeUnit::Microsecond, None), true);
        assert_eq!(
            refused(
                vec![timestamp],
                vec![flink("t", "TIMESTAMP_WITHOUT_TIME_ZONE")]
            ),
            "binary rows: column 't': a timestamp field needs its precision"
        );
    }
}
