//! JSON -> Arrow decoding of Kafka message payloads, with per-message error
//! isolation. See [`JsonDecoder`].

mod binary_row;
mod columns;
mod cursor;
mod decoder;
mod error;
mod numbers;
mod row_tape;
mod temporal;
mod unknown;
// The decoder's only unsafe code, behind safe functions (see the module).
#[allow(unsafe_code)]
mod unchecked;

pub use decoder::{DecodedBatch, DecoderConfig, JsonDecoder, Reject, MAX_DEPTH_LIMIT};
pub use error::{bounded_reason, DecodeError};
pub use row_tape::{
    Outcome, RowTapeConfig, RowTapeDecoder, TimestampStandard, OUTPUT_BINARY_ROW, OUTPUT_ROW_TAPE,
    TIMESTAMP_PRECISION,
};
pub use unknown::{Shape, ShapeField, UnknownField};
