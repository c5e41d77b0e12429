//! libfloe: the native core of floe.
//!
//! Safe Rust everywhere except [`ffi`], the C ABI that the JVM calls through
//! FFM. [`writer::ParquetFileWriter`] encodes Arrow batches into one Parquet file
//! and returns its footer facts ([`summary::FileSummary`]); [`config::WriterConfig`]
//! is the versioned JSON configuration blob.

pub mod config;
mod dictionary;
pub mod error;
pub mod ffi;
pub mod json;
mod nan;
pub mod partition;
pub mod summary;
pub mod transforms;
pub mod writer;

pub use config::WriterConfig;
pub use error::{ErrorCode, FloeError};
pub use json::{DecoderConfig, JsonDecoder};
pub use summary::FileSummary;
pub use writer::{OutputSink, ParquetFileWriter};
