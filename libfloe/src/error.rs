//! The error model shared by every entry point: a stable numeric code (mirrored by
//! the Java `NativeException` hierarchy) plus a human-readable message. Parts with
//! their own error types (the JSON decoder's `ValueError` and `SchemaError`) convert
//! into it in one place each; `ffi` turns it into a status and message in one place.

use std::fmt;

/// Stable error codes crossing the C ABI. Never renumber: Java maps them to
/// exception classes. `Ok` is only used as the success status.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    Ok = 0,
    /// A bad argument or configuration from the caller (null pointer, bad JSON blob).
    InvalidArgument = 1,
    /// A batch whose schema does not match the writer's schema.
    SchemaMismatch = 2,
    /// Reading or writing bytes failed (path not writable, output callback failed).
    Io = 3,
    /// Arrow or Parquet could not encode the data.
    Encoding = 4,
    /// The call is not allowed in the object's current state (write after close).
    IllegalState = 5,
    /// A Rust panic was caught at the boundary. A writer or decoder involved is failed: it
    /// refuses every later call (see [`ErrorCode::fails_writer`]).
    Panic = 6,
}

impl ErrorCode {
    /// Whether a writer call that fails with this code leaves the writer failed: `Io` and
    /// `Encoding` errors happen part way through changing the file, and a panic may have left
    /// anything half done. `InvalidArgument`, `SchemaMismatch` and `IllegalState` refuse the
    /// call before it changes anything. The Java facade applies the same rule.
    pub fn fails_writer(self) -> bool {
        matches!(self, ErrorCode::Io | ErrorCode::Encoding | ErrorCode::Panic)
    }
}

/// An error with its code; the message names what was wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FloeError {
    pub code: ErrorCode,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, FloeError>;

impl FloeError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }

    pub fn schema_mismatch(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SchemaMismatch, message)
    }

    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Io, message)
    }

    pub fn encoding(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Encoding, message)
    }

    pub fn illegal_state(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::IllegalState, message)
    }
}

impl fmt::Display for FloeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

impl std::error::Error for FloeError {}

impl From<parquet::errors::ParquetError> for FloeError {
    fn from(e: parquet::errors::ParquetError) -> Self {
        match e {
            // An io error inside parquet means the sink failed, not the encoder.
            parquet::errors::ParquetError::External(inner) => {
                FloeError::io(format!("writing parquet output failed: {inner}"))
            }
            other => FloeError::encoding(format!("parquet: {other}")),
        }
    }
}

impl From<arrow_schema::ArrowError> for FloeError {
    fn from(e: arrow_schema::ArrowError) -> Self {
        FloeError::encoding(format!("arrow: {e}"))
    }
}
