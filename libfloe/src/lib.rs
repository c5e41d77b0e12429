//! libfloe: the native core of floe.
//!
//! Safe Rust everywhere except [`ffi`], the C ABI that the JVM calls through
//! FFM, and `json::unchecked`, two uses of `unsafe` behind safe functions in the
//! JSON decoder's hot path; `unsafe_code` is denied everywhere else.
//! [`writer::ParquetFileWriter`] encodes Arrow batches into one Parquet file
//! and returns its footer facts ([`summary::FileSummary`]); [`config::WriterConfig`]
//! is the versioned JSON configuration blob.

#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod config;
mod dictionary;
pub mod error;
#[allow(unsafe_code)]
pub mod ffi;
pub mod flink_rows;
pub mod json;
mod nan;
pub mod partition;
pub mod summary;
#[cfg(test)]
mod test_rng;
pub mod transforms;
pub mod writer;

pub use config::WriterConfig;
pub use error::{ErrorCode, FloeError};
pub use json::{DecoderConfig, JsonDecoder};
pub use summary::FileSummary;
pub use writer::{OutputSink, ParquetFileWriter};
