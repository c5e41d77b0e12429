//! Rows as Flink's `BinaryRowData`: the bytes Flink's own `RowDataSerializer` writes for the same
//! row (`toBinaryRow`), so the JVM wraps them in a `BinaryRowData` instead of building a
//! `GenericRowData` field by field.
//!
//! [`BinaryRowSink`] writes a row while its message is parsed (keys in field order, the usual
//! case); [`BinaryRowWriter`] rewrites a row tape, for messages whose keys come out of order and
//! for arrays (parsed onto a tape, since their length comes first).
//!
//! # The layout (Flink's `BinaryRowData`, `BinaryArrayData` and their writers)
//!
//! Native byte order (little-endian on every platform floe builds for); offsets are relative to
//! the start of the row or array that holds them.
//! - row: a null bit set of `((arity + 63 + 8) / 64) * 8` bytes (bit 0-7 the row kind, 0 for
//!   `INSERT`; field `i`'s null bit is bit `i + 8`), then an 8-byte slot per field, then the
//!   variable part. A null field has its bit set and a zero slot.
//! - fixed values in their slot, from its first byte: bool and i8 1 byte, i16 2, i32 / date /
//!   time / f32 4, i64 / f64 / a compact decimal's unscaled value (precision <= 18) / a compact
//!   timestamp's epoch millis (precision <= 3) 8.
//! - strings and binaries of at most 7 bytes sit in the slot itself: the bytes from its first
//!   byte, and `0x80 | length` in its last; longer ones go to the variable part and the slot is
//!   `offset << 32 | length`.
//! - a timestamp of precision > 3: its epoch millis (8 bytes) in the variable part, the slot
//!   `offset << 32 | nano of milli`. A decimal of precision > 18: 16 bytes in the variable part,
//!   the unscaled value's minimal two's-complement big-endian bytes (Java's
//!   `BigInteger.toByteArray`) at their start, the slot `offset << 32 | length`.
//! - nested rows and arrays: written whole in the variable part, the slot `offset << 32 | size`.
//! - array: i32 element count, a null bit set of `((count + 31) / 32) * 4` bytes, the elements
//!   at 1, 2, 4 or 8 bytes each as above (8 for everything that is not a fixed value), the fixed
//!   part rounded up to 8 bytes, then the variable part.
//! - every variable-part entry is zero-padded to a multiple of 8 bytes, and entries follow field
//!   (or element) order, as Flink's serializer writes them.
//!
//! Maps are not written: Flink's `json` format builds them over a `HashMap`, whose order a binary
//! map would not keep. A compact timestamp (precision <= 3) with a nano of milli other than 0
//! is not written either, since the binary row keeps only its millis and Flink's row keeps all
//! of it: [`NotBinary`], and the caller sends the tape instead.

use super::row_tape::{
    Fallback, Kind, RowShape, RowSink, Step, TapeSink, OUTPUT_BINARY_ROW, OUTPUT_ROW_TAPE,
};

const END_OF_ROW: u16 = 0xFFFF;
/// Bits before the field null bits: the row kind's byte.
const HEADER_BITS: usize = 8;
/// Positions of fields not on the tape (absent or null).
const ABSENT: usize = usize::MAX;

/// The row cannot be written as a binary row that is exactly Flink's row.
#[derive(Debug)]
pub(super) struct NotBinary;

/// Whether every row of `shape` can be a binary row: no maps, and every timestamp's precision
/// known.
pub(super) fn binary_capable(shape: &RowShape) -> Result<(), String> {
    shape.kinds.iter().try_for_each(kind_capable)
}

fn kind_capable(kind: &Kind) -> Result<(), String> {
    match kind {
        Kind::Map(_) => Err("a MAP (Flink's rows hold maps over a HashMap)".into()),
        Kind::Timestamp {
            precision: None, ..
        } => Err("a timestamp without its precision".into()),
        Kind::Row(shape) => binary_capable(shape),
        Kind::Array(element) => kind_capable(element),
        _ => Ok(()),
    }
}

/// A decoder's binary-row state, kept between messages: the output and the writers' scratch.
#[derive(Default)]
pub(super) struct BinaryRows {
    /// [`OUTPUT_BINARY_ROW`] and a binary row, or [`OUTPUT_ROW_TAPE`] and a tape.
    pub(super) output: Vec<u8>,
    pub(super) scratch: SinkScratch,
}

impl BinaryRows {
    /// Sets the output to `tape`'s row (of `shape`) as a binary row, or to the tape itself if the
    /// layout cannot hold it exactly.
    pub(super) fn rewrite(&mut self, shape: &RowShape, tape: &[u8]) {
        self.output.clear();
        self.output.push(OUTPUT_BINARY_ROW);
        if self
            .scratch
            .rewriter
            .write(shape, tape, &mut self.output)
            .is_err()
        {
            self.output.clear();
            self.output.push(OUTPUT_ROW_TAPE);
            self.output.extend_from_slice(tape);
        }
    }
}

#[cfg(test)]
impl BinaryRows {
    /// Field positions the rewriter holds between messages: none.
    pub(super) fn positions_held(&self) -> usize {
        self.scratch.rewriter.positions.len()
    }
}

/// What a [`BinaryRowSink`] keeps between messages.
#[derive(Default)]
pub(super) struct SinkScratch {
    /// The open rows, outermost first.
    rows: Vec<OpenRow>,
    /// An array's tape: arrays are parsed onto a tape (their length comes first in the binary
    /// layout) and rewritten when they end.
    array_tape: Vec<u8>,
    rewriter: BinaryRowWriter,
}

struct OpenRow {
    base: usize,
    slots: usize,
    /// Fields below this one are written: a field must come after them.
    next: usize,
    /// Where the row's offset and size go in its parent, and the parent's start.
    parent_slot: usize,
    parent_base: usize,
}

const NO_PARENT: usize = usize::MAX;

/// Writes a message's row as Flink's binary row while it is parsed: the common case, keys in
/// field order, without a tape in between. A key out of field order (the variable part must
/// follow field order) or a value the layout cannot hold makes it stop with
/// [`Self::unfused`] set; the caller then parses the message onto a tape and rewrites that.
pub(super) struct BinaryRowSink<'s> {
    out: &'s mut Vec<u8>,
    scratch: &'s mut SinkScratch,
    /// The current value's row (or array) start and slot.
    base: usize,
    slot: usize,
    /// Arrays open around the current value; inside one, everything goes to the array's tape.
    array_depth: usize,
    unfused: bool,
}

impl<'s> BinaryRowSink<'s> {
    /// Writes the row at the end of `out`.
    pub(super) fn new(out: &'s mut Vec<u8>, scratch: &'s mut SinkScratch) -> Self {
        scratch.rows.clear();
        Self {
            out,
            scratch,
            base: 0,
            slot: NO_PARENT,
            array_depth: 0,
            unfused: false,
        }
    }

    /// Whether parsing stopped for want of a tape, not for the fallback.
    pub(super) fn unfused(&self) -> bool {
        self.unfused
    }

    fn array_tape(&mut self) -> TapeSink<'_> {
        TapeSink {
            tape: &mut self.scratch.array_tape,
        }
    }

    fn unfuse(&mut self) -> Fallback {
        self.unfused = true;
        Fallback
    }
}

impl RowSink for BinaryRowSink<'_> {
    #[inline]
    fn begin_row(&mut self, arity: usize) {
        if self.array_depth > 0 {
            return self.array_tape().begin_row(arity);
        }
        let (base, slots) = open_row(self.out, arity);
        self.scratch.rows.push(OpenRow {
            base,
            slots,
            next: 0,
            parent_slot: self.slot,
            parent_base: self.base,
        });
    }

    #[inline]
    fn field(&mut self, field: usize) -> Step {
        if self.array_depth > 0 {
            return self.array_tape().field(field);
        }
        let row = self.scratch.rows.last_mut().expect("a row is open");
        if field < row.next {
            return Err(self.unfuse());
        }
        row.next = field + 1;
        let (base, slot) = (row.base, row.slots + 8 * field);
        clear_null_bit(self.out, base, field);
        self.base = base;
        self.slot = slot;
        Ok(())
    }

    #[inline]
    fn end_row(&mut self) {
        if self.array_depth > 0 {
            return self.array_tape().end_row();
        }
        let row = self.scratch.rows.pop().expect("a row is open");
        if row.parent_slot != NO_PARENT {
            let size = self.out.len() - row.base;
            put_offset(self.out, row.parent_slot, row.base - row.parent_base, size);
        }
    }

    #[inline]
    fn fixed<const N: usize>(&mut self, bytes: [u8; N]) {
        if self.array_depth > 0 {
            return self.array_tape().fixed(bytes);
        }
        put(self.out, self.slot, &bytes);
    }

    fn timestamp(&mut self, millis: i64, nano_of_milli: i32, precision: Option<u8>) -> Step {
        if self.array_depth > 0 {
            return self
                .array_tape()
                .timestamp(millis, nano_of_milli, precision);
        }
        let (base, slot) = (self.base, self.slot);
        write_timestamp(
            self.out,
            base,
            slot,
            millis,
            nano_of_milli as u32,
            precision,
        )
        .map_err(|NotBinary| self.unfuse())
    }

    fn decimal(&mut self, negative: bool, unscaled: &str, precision: u8) -> Step {
        if self.array_depth > 0 {
            return self.array_tape().decimal(negative, unscaled, precision);
        }
        // At most 38 digits: an i128 holds them.
        let magnitude = unscaled
            .bytes()
            .fold(0i128, |acc, d| acc * 10 + (d - b'0') as i128);
        let unscaled = if negative { -magnitude } else { magnitude };
        write_decimal(self.out, self.base, self.slot, unscaled, precision);
        Ok(())
    }

    #[inline]
    fn bytes(&mut self, bytes: &[u8]) {
        if self.array_depth > 0 {
            return self.array_tape().bytes(bytes);
        }
        write_bytes(self.out, self.base, self.slot, bytes);
    }

    fn begin_array(&mut self) -> usize {
        if self.array_depth == 0 {
            self.scratch.array_tape.clear();
        }
        self.array_depth += 1;
        self.array_tape().begin_array()
    }

    fn element(&mut self, present: bool) {
        self.array_tape().element(present);
    }

    fn end_array(&mut self, token: usize, count: u32, element: &Kind) -> Step {
        self.array_tape().end_array(token, count, element)?;
        self.array_depth -= 1;
        if self.array_depth > 0 {
            return Ok(());
        }
        let start = self.out.len();
        let scratch = &mut *self.scratch;
        let written = scratch
            .rewriter
            .array(element, &scratch.array_tape, &mut 0, self.out);
        if written.is_err() {
            return Err(self.unfuse());
        }
        let size = self.out.len() - start;
        put_offset(self.out, self.slot, start - self.base, size);
        Ok(())
    }

    fn begin_map(&mut self) -> usize {
        unreachable!("binary_capable refuses maps")
    }

    fn map_key(&mut self, _key: &[u8]) {
        unreachable!("binary_capable refuses maps")
    }

    fn end_map(&mut self, _token: usize, _count: u32) {
        unreachable!("binary_capable refuses maps")
    }
}

/// Rewrites row tapes as binary rows; keeps its scratch space between rows.
#[derive(Default)]
pub(super) struct BinaryRowWriter {
    /// Each open row's field positions on the tape, rows nested above their parents.
    positions: Vec<usize>,
}

impl BinaryRowWriter {
    /// Appends the binary row of `tape` (a whole row tape of `shape`) to `out`.
    pub(super) fn write(
        &mut self,
        shape: &RowShape,
        tape: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), NotBinary> {
        let mut at = 0;
        self.row(shape, tape, &mut at, out)
    }

    /// Writes the row at `tape[*at..]` at the end of `out`, and moves `at` past it.
    fn row(
        &mut self,
        shape: &RowShape,
        tape: &[u8],
        at: &mut usize,
        out: &mut Vec<u8>,
    ) -> Result<(), NotBinary> {
        // Flink writes the variable part in field order; the tape is in message order, which is
        // usually field order too: write as it comes, and start over if a field comes early.
        let start = *at;
        let (base, slots) = open_row(out, shape.kinds.len());
        let mut next = 0;
        while let Some(field) = next_field(tape, at) {
            if field < next {
                out.truncate(base);
                *at = start;
                return self.row_reordered(shape, tape, at, out);
            }
            next = field + 1;
            clear_null_bit(out, base, field);
            self.value(&shape.kinds[field], tape, at, out, base, slots + 8 * field)?;
        }
        Ok(())
    }

    /// [`Self::row`] for a tape whose fields are not in field order: finds each field's value
    /// first, then writes them in order.
    fn row_reordered(
        &mut self,
        shape: &RowShape,
        tape: &[u8],
        at: &mut usize,
        out: &mut Vec<u8>,
    ) -> Result<(), NotBinary> {
        let arity = shape.kinds.len();
        let first = self.positions.len();
        self.positions.resize(first + arity, ABSENT);
        while let Some(field) = next_field(tape, at) {
            self.positions[first + field] = *at;
            skip(&shape.kinds[field], tape, at);
        }
        let (base, slots) = open_row(out, arity);
        let mut written = Ok(());
        for field in 0..arity {
            let mut value_at = self.positions[first + field];
            if value_at != ABSENT {
                clear_null_bit(out, base, field);
                written = self.value(
                    &shape.kinds[field],
                    tape,
                    &mut value_at,
                    out,
                    base,
                    slots + 8 * field,
                );
                if written.is_err() {
                    break;
                }
            }
        }
        // this row's positions go whether it was written or left as a tape (NotBinary): kept, the
        // writer grew by a row's arity per such message for as long as its decoder lived (helper-82)
        self.positions.truncate(first);
        written
    }

    /// Writes one value into its slot at `out[slot..]` (and the variable part of the row or
    /// array starting at `out[base..]`).
    fn value(
        &mut self,
        kind: &Kind,
        tape: &[u8],
        at: &mut usize,
        out: &mut Vec<u8>,
        base: usize,
        slot: usize,
    ) -> Result<(), NotBinary> {
        match kind {
            Kind::Bool | Kind::I8 => put(out, slot, &take::<1>(tape, at)),
            Kind::I16 => put(out, slot, &take::<2>(tape, at)),
            Kind::I32 | Kind::Date | Kind::Time | Kind::F32 => put(out, slot, &take::<4>(tape, at)),
            Kind::I64 | Kind::F64 => put(out, slot, &take::<8>(tape, at)),
            Kind::Timestamp { precision, .. } => {
                let millis = i64::from_le_bytes(take::<8>(tape, at));
                let nano_of_milli = u32::from_le_bytes(take::<4>(tape, at));
                write_timestamp(out, base, slot, millis, nano_of_milli, *precision)?;
            }
            Kind::Decimal { precision, .. } => {
                let unscaled = read_decimal(tape, at);
                write_decimal(out, base, slot, unscaled, *precision);
            }
            Kind::Utf8 | Kind::Binary => {
                let length = read_u32(tape, at) as usize;
                write_bytes(out, base, slot, &tape[*at..*at + length]);
                *at += length;
            }
            Kind::Row(shape) => {
                let start = out.len();
                self.row(shape, tape, at, out)?;
                let size = out.len() - start;
                put_offset(out, slot, start - base, size);
            }
            Kind::Array(element) => {
                let start = out.len();
                self.array(element, tape, at, out)?;
                let size = out.len() - start;
                put_offset(out, slot, start - base, size);
            }
            Kind::Map(_) => unreachable!("binary_capable refuses maps"),
        }
        Ok(())
    }

    /// Writes the array at `tape[*at..]` (its count, then its elements) at the end of `out`.
    fn array(
        &mut self,
        element: &Kind,
        tape: &[u8],
        at: &mut usize,
        out: &mut Vec<u8>,
    ) -> Result<(), NotBinary> {
        let count = read_u32(tape, at) as usize;
        let base = out.len();
        let header = 4 + count.div_ceil(32) * 4;
        let width = element_width(element);
        out.resize(base + round_to_word(header + width * count), 0);
        put(out, base, &(count as i32).to_le_bytes());
        for i in 0..count {
            let present = take::<1>(tape, at)[0] != 0;
            if present {
                self.value(element, tape, at, out, base, base + header + width * i)?;
            } else {
                out[base + 4 + i / 8] |= 1 << (i % 8);
            }
        }
        Ok(())
    }
}

/// The bytes of a row's null bit set (with the row kind's byte).
fn null_bits(arity: usize) -> usize {
    ((arity + 63 + HEADER_BITS) / 64) * 8
}

/// Appends a row's fixed part, every field null: `(base, slots)`, where the row and its slots
/// start in `out`.
fn open_row(out: &mut Vec<u8>, arity: usize) -> (usize, usize) {
    let base = out.len();
    let slots = base + null_bits(arity);
    out.resize(slots + 8 * arity, 0);
    // The fields' null bits, a byte at a time.
    let end = HEADER_BITS + arity;
    let bits = &mut out[base + HEADER_BITS / 8..base + end.div_ceil(8)];
    bits.fill(0xFF);
    if !end.is_multiple_of(8) {
        bits[bits.len() - 1] = (1u8 << (end % 8)) - 1;
    }
    (base, slots)
}

fn clear_null_bit(out: &mut [u8], base: usize, field: usize) {
    let bit = field + HEADER_BITS;
    out[base + bit / 8] &= !(1 << (bit % 8));
}

/// A timestamp: its millis in the slot (precision <= 3, which cannot hold a finer fraction), or
/// in the variable part with the nano of milli in the slot.
fn write_timestamp(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    millis: i64,
    nano_of_milli: u32,
    precision: Option<u8>,
) -> Result<(), NotBinary> {
    if precision.is_some_and(|p| p <= 3) {
        if nano_of_milli != 0 {
            return Err(NotBinary);
        }
        put(out, slot, &millis.to_le_bytes());
    } else {
        let offset = out.len() - base;
        out.extend_from_slice(&millis.to_le_bytes());
        put_offset(out, slot, offset, nano_of_milli as usize);
    }
    Ok(())
}

/// A decimal's unscaled value (at most `precision` digits): in the slot if compact, else as
/// `BigInteger.toByteArray()` in 16 bytes of the variable part.
fn write_decimal(out: &mut Vec<u8>, base: usize, slot: usize, unscaled: i128, precision: u8) {
    if precision <= 18 {
        put(out, slot, &(unscaled as i64).to_le_bytes());
    } else {
        let bytes = twos_complement(unscaled);
        let offset = out.len() - base;
        out.extend_from_slice(&[0; 16]);
        out[base + offset..base + offset + bytes.len()].copy_from_slice(&bytes);
        put_offset(out, slot, offset, bytes.len());
    }
}

/// A string's or a binary's bytes: in its slot if at most 7, else in the variable part.
fn write_bytes(out: &mut Vec<u8>, base: usize, slot: usize, bytes: &[u8]) {
    let length = bytes.len();
    if length <= 7 {
        put(out, slot, bytes);
        out[slot + 7] = 0x80 | length as u8;
    } else {
        let offset = out.len() - base;
        out.extend_from_slice(bytes);
        out.resize(out.len() + round_to_word(length) - length, 0);
        put_offset(out, slot, offset, length);
    }
}

/// An array element's bytes in its fixed part (`BinaryArrayData.calculateFixLengthPartSize`).
fn element_width(kind: &Kind) -> usize {
    match kind {
        Kind::Bool | Kind::I8 => 1,
        Kind::I16 => 2,
        Kind::I32 | Kind::Date | Kind::Time | Kind::F32 => 4,
        _ => 8,
    }
}

/// Moves `at` past one value of `kind` on a tape.
fn skip(kind: &Kind, tape: &[u8], at: &mut usize) {
    match kind {
        Kind::Bool | Kind::I8 => *at += 1,
        Kind::I16 => *at += 2,
        Kind::I32 | Kind::Date | Kind::Time | Kind::F32 => *at += 4,
        Kind::I64 | Kind::F64 => *at += 8,
        Kind::Timestamp { .. } => *at += 12,
        Kind::Decimal { .. } => {
            let _ = read_decimal(tape, at);
        }
        Kind::Utf8 | Kind::Binary => {
            let length = read_u32(tape, at) as usize;
            *at += length;
        }
        Kind::Row(shape) => {
            while let Some(field) = next_field(tape, at) {
                skip(&shape.kinds[field], tape, at);
            }
        }
        Kind::Array(element) => {
            for _ in 0..read_u32(tape, at) {
                if take::<1>(tape, at)[0] != 0 {
                    skip(element, tape, at);
                }
            }
        }
        Kind::Map(value) => {
            for _ in 0..read_u32(tape, at) {
                let length = read_u32(tape, at) as usize;
                *at += length;
                if take::<1>(tape, at)[0] != 0 {
                    skip(value, tape, at);
                }
            }
        }
    }
}

/// A tape decimal's unscaled value: `u8 0` and an i64, or `u8 1` and its ASCII digits (at most
/// 38 of them, which an i128 holds).
fn read_decimal(tape: &[u8], at: &mut usize) -> i128 {
    if take::<1>(tape, at)[0] == 0 {
        return i64::from_le_bytes(take::<8>(tape, at)) as i128;
    }
    let length = read_u32(tape, at) as usize;
    let text = &tape[*at..*at + length];
    *at += length;
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let magnitude = digits
        .iter()
        .fold(0i128, |acc, d| acc * 10 + (d - b'0') as i128);
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// Java's `BigInteger.toByteArray()`: the fewest big-endian two's-complement bytes, at least one.
fn twos_complement(value: i128) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    let sign = if value < 0 { 0xFF } else { 0x00 };
    let mut start = 0;
    // Drop a leading sign byte while the next byte's top bit still carries the sign.
    while start < 15 && bytes[start] == sign && (bytes[start + 1] & 0x80) == (sign & 0x80) {
        start += 1;
    }
    bytes[start..].to_vec()
}

fn round_to_word(n: usize) -> usize {
    n.div_ceil(8) * 8
}

fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
    out[at..at + bytes.len()].copy_from_slice(bytes);
}

fn put_offset(out: &mut [u8], slot: usize, offset: usize, size: usize) {
    put(
        out,
        slot,
        &(((offset as u64) << 32) | size as u64).to_le_bytes(),
    );
}

fn take<const N: usize>(tape: &[u8], at: &mut usize) -> [u8; N] {
    let bytes: [u8; N] = tape[*at..*at + N].try_into().expect("N bytes");
    *at += N;
    bytes
}

/// The next field of a row on the tape, or `None` past its end.
fn next_field(tape: &[u8], at: &mut usize) -> Option<usize> {
    let field = u16::from_le_bytes(take::<2>(tape, at));
    (field != END_OF_ROW).then_some(field as usize)
}

fn read_u32(tape: &[u8], at: &mut usize) -> u32 {
    u32::from_le_bytes(take::<4>(tape, at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::row_tape::parse;
    use crate::json::{
        Outcome, RowTapeDecoder, TimestampStandard, OUTPUT_BINARY_ROW, OUTPUT_ROW_TAPE,
        TIMESTAMP_PRECISION,
    };
    use arrow_schema::{DataType, Field, Schema, TimeUnit};
    use std::collections::HashMap;
    use std::sync::Arc;

    fn timestamp(name: &str, precision: u8) -> Field {
        Field::new(name, DataType::Timestamp(TimeUnit::Nanosecond, None), true).with_metadata(
            HashMap::from([(TIMESTAMP_PRECISION.to_string(), precision.to_string())]),
        )
    }

    fn binary_row(fields: Vec<Field>, json: &str) -> Vec<u8> {
        let mut decoder = RowTapeDecoder::new(&Schema::new(fields), TimestampStandard::Sql, false)
            .unwrap()
            .with_binary_rows()
            .unwrap();
        assert_eq!(Outcome::Row, decoder.decode(json.as_bytes()));
        decoder.output().to_vec()
    }

    fn word(value: u64) -> [u8; 8] {
        value.to_le_bytes()
    }

    #[test]
    fn a_row_is_null_bits_slots_then_the_variable_part_in_field_order() {
        let fields = vec![
            Field::new("n", DataType::Int32, true),
            Field::new("long_text", DataType::Utf8, true),
            Field::new("short_text", DataType::Utf8, true),
            Field::new("absent", DataType::Int64, true),
            timestamp("at", 6),
        ];
        // Keys out of field order: the variable part still follows field order.
        let out = binary_row(
            fields,
            r#"{"at":"1970-01-01 00:00:00.001002","short_text":"abc","long_text":"eight ch","n":-2}"#,
        );
        let mut expected = vec![OUTPUT_BINARY_ROW];
        expected.extend_from_slice(&word(1 << (3 + 8))); // kind INSERT, field 3 null
        expected.extend_from_slice(&word((-2i32) as u32 as u64));
        expected.extend_from_slice(&word((48 << 32) | 8)); // 8 + 5 * 8 = 48: after the slots
        expected.extend_from_slice(&word(0x83 << 56 | 0x63_62_61)); // "abc" in the slot
        expected.extend_from_slice(&word(0));
        expected.extend_from_slice(&word((56 << 32) | 2_000)); // millis at 56, nano of milli
        expected.extend_from_slice(b"eight ch");
        expected.extend_from_slice(&word(1));
        assert_eq!(expected, out);
    }

    #[test]
    fn a_reordered_row_left_as_a_tape_keeps_no_positions() {
        // keys out of field order (found at "at"), and a fraction TIMESTAMP(3) cannot hold: the
        // row is rewritten in field order, then left as a tape
        let fields = vec![timestamp("at", 3), Field::new("n", DataType::Int32, true)];
        let shape_schema = Schema::new(fields);
        let mut decoder = RowTapeDecoder::new(&shape_schema, TimestampStandard::Sql, false)
            .unwrap()
            .with_binary_rows()
            .unwrap();
        for _ in 0..3 {
            let json = r#"{"n":1,"at":"1970-01-01 00:00:00.0010001"}"#;
            assert_eq!(Outcome::Row, decoder.decode(json.as_bytes()));
            assert_eq!(OUTPUT_ROW_TAPE, decoder.output()[0]);
        }
        assert_eq!(
            0,
            decoder.binary_row_positions(),
            "nothing held after the rows"
        );
    }

    #[test]
    fn what_the_layout_cannot_hold_exactly_is_sent_as_a_tape() {
        let fields = || vec![timestamp("at", 3)];
        let whole = binary_row(fields(), r#"{"at":"1970-01-01 00:00:00.001"}"#);
        assert_eq!(OUTPUT_BINARY_ROW, whole[0]);
        assert_eq!(&word(1)[..], &whole[1 + 8..]); // the millis in the slot
        let finer = binary_row(fields(), r#"{"at":"1970-01-01 00:00:00.0010001"}"#);
        assert_eq!(OUTPUT_ROW_TAPE, finer[0]);
        let refused = RowTapeDecoder::new(
            &Schema::new(vec![Field::new(
                "at",
                DataType::Timestamp(TimeUnit::Nanosecond, None),
                true,
            )]),
            TimestampStandard::Sql,
            false,
        )
        .unwrap()
        .with_binary_rows();
        assert!(refused.is_err(), "a timestamp without its precision");
    }

    /// The same row through the tape and the rewrite: what the fused writer must equal.
    fn rewritten(fields: Vec<Field>, json: &str) -> Vec<u8> {
        let schema = Schema::new(fields);
        let mut tape = RowTapeDecoder::new(&schema, TimestampStandard::Sql, false).unwrap();
        assert_eq!(Outcome::Row, tape.decode(json.as_bytes()));
        let shape = RowShape::new(schema.fields()).unwrap();
        let mut rows = BinaryRows::default();
        rows.rewrite(&shape, tape.tape());
        rows.output
    }

    /// The row as [`BinaryRowSink`] alone writes it, or `None` if it needed a tape.
    fn written_while_parsed(fields: Vec<Field>, json: &str) -> Option<Vec<u8>> {
        let shape = RowShape::new(Schema::new(fields).fields()).unwrap();
        let mut out = vec![OUTPUT_BINARY_ROW];
        let mut scratch = SinkScratch::default();
        let sink = BinaryRowSink::new(&mut out, &mut scratch);
        let settings = (TimestampStandard::Sql, false);
        let (outcome, sink) = parse(json, &shape, sink, &mut String::new(), settings);
        let unfused = sink.unfused();
        assert!(outcome == Outcome::Row || unfused, "{json}");
        (!unfused).then_some(out)
    }

    #[test]
    fn rows_written_while_parsed_equal_rows_rewritten_from_tapes() {
        let inner = || {
            DataType::Struct(
                vec![
                    Field::new("id", DataType::Int64, true),
                    Field::new("name", DataType::Utf8, true),
                    timestamp("at", 3),
                ]
                .into(),
            )
        };
        let fields = || {
            vec![
                Field::new("flag", DataType::Boolean, true),
                Field::new("tiny", DataType::Int8, true),
                Field::new("small", DataType::Int16, true),
                Field::new("f", DataType::Float32, true),
                Field::new("d", DataType::Float64, true),
                Field::new("day", DataType::Date32, true),
                Field::new("time", DataType::Time32(TimeUnit::Millisecond), true),
                Field::new("price", DataType::Decimal128(10, 2), true),
                Field::new("big", DataType::Decimal128(30, 4), true),
                Field::new("bytes", DataType::Binary, true),
                timestamp("fine", 9),
                Field::new("person", inner(), true),
                Field::new(
                    "people",
                    DataType::List(Arc::new(Field::new("item", inner(), true))),
                    true,
                ),
                Field::new(
                    "words",
                    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
                    true,
                ),
                Field::new("after", DataType::Utf8, true),
            ]
        };
        let messages = [
            // In field order (written while parsed), every kind, arrays of rows and strings.
            r#"{"flag":true,"tiny":-3,"small":300,"f":1.5,"d":-2.25,"day":"2024-02-29","time":"12:34:56","price":-12.5,"big":-123456789012345678901.5,"bytes":"AAEC","fine":"2024-01-01 00:00:00.123456789","person":{"id":7,"name":"a name longer than seven","at":"2024-01-01 00:00:00.001"},"people":[{"id":1,"name":"x","at":null},null,{"name":"later than id","id":2}],"words":["short","a longer word",null],"after":"escaped \"quotes\" and \u00e9"}"#,
            // Nested keys out of order: the nested row is rewritten from a tape.
            r#"{"flag":false,"person":{"name":"reordered inside","id":9},"after":"tail text here"}"#,
            // Top-level keys out of order.
            r#"{"after":"first but last","tiny":1,"person":{"id":1}}"#,
            // Nulls, empty arrays, short strings in their slots, zero decimals.
            r#"{"flag":null,"price":0,"big":0.0000,"person":null,"people":[],"words":[null],"after":"abc"}"#,
            // A compact timestamp with a finer fraction: not a binary row, sent as a tape.
            r#"{"person":{"at":"2024-01-01 00:00:00.0015"},"after":"x"}"#,
            r#"{"people":[{"at":"2024-01-01 00:00:00.0015"}]}"#,
        ];
        for json in messages {
            assert_eq!(
                rewritten(fields(), json),
                binary_row(fields(), json),
                "{json}"
            );
        }
        // Which of them the fused writer wrote itself (the rest went through a tape).
        let fused: Vec<bool> = messages
            .iter()
            .map(|json| written_while_parsed(fields(), json).is_some())
            .collect();
        assert_eq!(vec![true, false, false, true, false, false], fused);
        let row = written_while_parsed(fields(), messages[0]).unwrap();
        assert_eq!(rewritten(fields(), messages[0]), row);
        let unescaped = "escaped \"quotes\" and \u{e9}".as_bytes();
        assert!(row.windows(unescaped.len()).any(|w| w == unescaped));
        assert_eq!(OUTPUT_ROW_TAPE, binary_row(fields(), messages[4])[0]);
        assert_eq!(OUTPUT_ROW_TAPE, binary_row(fields(), messages[5])[0]);
    }

    #[test]
    fn twos_complement_is_javas_big_integer_bytes() {
        assert_eq!(vec![0x00], twos_complement(0));
        assert_eq!(vec![0x7F], twos_complement(127));
        assert_eq!(vec![0x00, 0x80], twos_complement(128));
        assert_eq!(vec![0xFF], twos_complement(-1));
        assert_eq!(vec![0x80], twos_complement(-128));
        assert_eq!(vec![0xFF, 0x7F], twos_complement(-129));
        assert_eq!(16, twos_complement(-(10i128.pow(38) - 1)).len());
    }
}
