//! Helpers shared by the integration tests.

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_schema::Field;
use parquet::arrow::PARQUET_FIELD_ID_META_KEY;

/// An in-memory sink the test keeps a handle to while the writer owns its clone.
#[derive(Clone, Default)]
pub struct SharedBuffer(pub Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The field with its Parquet field id.
pub fn with_id(field: Field, id: i32) -> Field {
    field.with_metadata([(PARQUET_FIELD_ID_META_KEY.to_string(), id.to_string())].into())
}
