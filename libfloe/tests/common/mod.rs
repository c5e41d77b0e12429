//! Helpers shared by the integration tests.

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::{Field, SchemaRef};
use bytes::Bytes;
use floe::{FileSummary, OutputSink, ParquetFileWriter, WriterConfig};
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

/// The Parquet file floe's writer makes of `batches`, in memory, with its footer facts.
#[allow(dead_code)] // not every test binary writes files
pub fn write_in_memory(
    schema: SchemaRef,
    config: &WriterConfig,
    batches: &[RecordBatch],
) -> (Bytes, FileSummary) {
    let buffer = SharedBuffer::default();
    let mut writer =
        ParquetFileWriter::open(OutputSink::Stream(Box::new(buffer.clone())), schema, config)
            .unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    let summary = writer.close().unwrap();
    let bytes = Bytes::from(buffer.0.lock().unwrap().clone());
    (bytes, summary)
}
