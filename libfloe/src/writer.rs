//! The physical Parquet file writer: Arrow batches in, one Parquet file out,
//! footer facts back. It knows nothing about Iceberg or the C ABI.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::file::properties::EnabledStatistics;
use parquet::schema::types::ColumnPath;

use crate::config::WriterConfig;
use crate::error::{FloeError, Result};
use crate::nan::NanCounter;
use crate::summary::FileSummary;

mod runs;

use runs::RunEncoder;
pub(crate) use runs::RunLimits;

/// Where the bytes of a file go.
pub enum OutputSink {
    /// A local file, created (or truncated) at open; removed if the writer is aborted.
    Path(PathBuf),
    /// Any byte consumer, e.g. a Java `OutputStream` behind an FFI callback.
    Stream(Box<dyn Write + Send>),
}

/// Buffers the bytes for the sink (fewer, larger writes and upcalls), counts them, so the file
/// size is known without a stat, and can keep a copy of the last bytes written (the footer), see
/// [`Self::capture`].
struct CountingWrite {
    inner: BufWriter<Box<dyn Write + Send>>,
    written: u64,
    captured: Option<Vec<u8>>,
}

impl CountingWrite {
    fn new(sink: Box<dyn Write + Send>) -> Self {
        Self {
            inner: BufWriter::with_capacity(SINK_BUFFER_BYTES, sink),
            written: 0,
            captured: None,
        }
    }

    /// Drops what is buffered without sending it: a `BufWriter` flushes when dropped, and an
    /// aborted file must not reach the sink (a caller's stream would get the head of a file that
    /// was given up, from inside `free`).
    fn discard_buffered(&mut self) {
        let buffered = std::mem::replace(
            &mut self.inner,
            BufWriter::with_capacity(0, Box::new(io::sink())),
        );
        drop(buffered.into_parts());
    }

    /// From now on, also keep a copy of everything written.
    fn capture(&mut self) {
        self.captured = Some(Vec::new());
    }

    /// The Thrift `FileMetaData` at the end of the captured bytes
    /// (`... footer | footer length (u32 LE) | "PAR1"`).
    fn footer(&self) -> Result<Vec<u8>> {
        let bytes = self.captured.as_deref().unwrap_or_default();
        let bad = || FloeError::encoding("parquet footer was not captured");
        if bytes.len() < 8 || &bytes[bytes.len() - 4..] != b"PAR1" {
            return Err(bad());
        }
        let len_at = bytes.len() - 8;
        let len =
            u32::from_le_bytes(bytes[len_at..len_at + 4].try_into().expect("4 bytes")) as usize;
        let start = len_at.checked_sub(len).ok_or_else(bad)?;
        Ok(bytes[start..len_at].to_vec())
    }
}

impl Write for CountingWrite {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        if let Some(copy) = &mut self.captured {
            copy.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes Arrow record batches of one fixed schema into one Parquet file.
///
/// A call that fails part way through changing the file (an encoding or sink error) leaves the
/// writer failed: the incomplete file is discarded at once and every later call is refused with
/// the first failure's message. A call refused up front (a batch of another schema, a call
/// after close) changes nothing.
pub struct ParquetFileWriter {
    schema: SchemaRef,
    nans: NanCounter,
    config: WriterConfig,
    state: State,
    /// The local file while it is incomplete (path sinks only): removed if the writer fails or
    /// is aborted, so nothing incomplete stays behind looking finished. Cleared by `close`.
    path: Option<PathBuf>,
}

/// The encoder is created with the first batch, once its columns have been
/// sampled for dictionary encoding (see [`crate::dictionary`]).
enum State {
    Pending(CountingWrite),
    Open(Box<RunEncoder<CountingWrite>>),
    Closed,
    /// Why the writer failed (the first failure).
    Failed(String),
}

/// Buffer between the encoder and the sink: fewer, larger writes (and upcalls).
const SINK_BUFFER_BYTES: usize = 1024 * 1024;

impl ParquetFileWriter {
    pub fn open(sink: OutputSink, schema: SchemaRef, config: &WriterConfig) -> Result<Self> {
        // Validate the settings now, not at the first batch.
        config.writer_properties()?;
        config.run_limits()?;
        let (out, path): (Box<dyn Write + Send>, Option<PathBuf>) = match sink {
            OutputSink::Path(path) => (Box::new(create_file(&path)?), Some(path)),
            OutputSink::Stream(stream) => (stream, None),
        };
        let counting = CountingWrite::new(out);
        let mut writer = Self {
            nans: NanCounter::new(&schema),
            schema,
            config: config.clone(),
            state: State::Pending(counting),
            path,
        };
        // Fail at open, not at the first batch, when the schema cannot be written.
        writer.check_schema_encodable()?;
        Ok(writer)
    }

    fn check_schema_encodable(&mut self) -> Result<()> {
        parquet::arrow::ArrowSchemaConverter::new()
            .convert(&self.schema)
            .map(|_| ())
            .map_err(|e| {
                FloeError::invalid_argument(format!("schema cannot be written to Parquet: {e}"))
            })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The paths of the leaf columns by their field ids, for the config's per-column settings
    /// (empty when it has none).
    fn leaves_by_field_id(&self) -> Result<HashMap<i32, Vec<ColumnPath>>> {
        let mut leaves: HashMap<i32, Vec<ColumnPath>> = HashMap::new();
        if self.config.statistics_off_field_ids.is_empty()
            && self.config.bloom_filter_columns.is_empty()
        {
            return Ok(leaves);
        }
        let parquet = parquet::arrow::ArrowSchemaConverter::new()
            .convert(&self.schema)
            .map_err(|e| {
                FloeError::invalid_argument(format!("schema cannot be written to Parquet: {e}"))
            })?;
        for column in parquet.columns() {
            let info = column.self_type().get_basic_info();
            if info.has_id() {
                leaves
                    .entry(info.id())
                    .or_default()
                    .push(column.path().clone());
            }
        }
        Ok(leaves)
    }

    /// Starts the encoder, with dictionary encoding off for the columns of `first`
    /// where it would not pay (when dictionaries are on at all).
    fn start(&mut self, first: Option<&RecordBatch>) -> Result<()> {
        let State::Pending(_) = self.state else {
            return Ok(());
        };
        let State::Pending(out) = std::mem::replace(&mut self.state, State::Closed) else {
            unreachable!("checked above")
        };
        let mut props = self.config.writer_properties_builder()?;
        let leaves = self.leaves_by_field_id()?;
        for id in &self.config.statistics_off_field_ids {
            for column in leaves.get(id).into_iter().flatten() {
                props =
                    props.set_column_statistics_enabled(column.clone(), EnabledStatistics::None);
            }
        }
        for bloom in &self.config.bloom_filter_columns {
            if !(bloom.fpp > 0.0 && bloom.fpp < 1.0) {
                return Err(FloeError::invalid_argument(format!(
                    "writer config: the bloom filter fpp of field {} must be in (0, 1), got {}",
                    bloom.field_id, bloom.fpp
                )));
            }
            for column in leaves.get(&bloom.field_id).into_iter().flatten() {
                props = props
                    .set_column_bloom_filter_enabled(column.clone(), true)
                    .set_column_bloom_filter_fpp(column.clone(), bloom.fpp);
                if let Some(ndv) = bloom.ndv {
                    props = props.set_column_bloom_filter_max_ndv(column.clone(), ndv);
                }
            }
        }
        if self.config.dictionary {
            for column in first
                .map(crate::dictionary::plain_columns)
                .unwrap_or_default()
            {
                props = props.set_column_dictionary_enabled(column, false);
            }
        }
        // Iceberg files carry no embedded Arrow schema (no ARROW:schema key is written);
        // field ids live in the Parquet schema.
        let writer = RunEncoder::try_new(
            out,
            self.schema.clone(),
            props.build(),
            self.config.run_limits()?,
        )?;
        self.state = State::Open(Box::new(writer));
        Ok(())
    }

    /// Takes one batch. Its rows are encoded in runs (see [`runs`]: the batch's arrays are
    /// held, not copied, until then) and written out per row group.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.check_usable()?;
        check_same_schema(&self.schema, batch.schema_ref())?;
        if matches!(self.state, State::Pending(_)) && batch.num_rows() == 0 {
            return Ok(());
        }
        self.failing(|w| {
            w.start(Some(batch))?;
            let State::Open(writer) = &mut w.state else {
                unreachable!("started above")
            };
            writer.write(batch.clone())?;
            w.nans.count(batch);
            Ok(())
        })
    }

    /// Refuses calls on a closed or failed writer.
    fn check_usable(&self) -> Result<()> {
        match &self.state {
            State::Closed => Err(FloeError::illegal_state("writer is already closed")),
            State::Failed(reason) => Err(FloeError::illegal_state(format!(
                "writer failed earlier: {reason}"
            ))),
            State::Pending(_) | State::Open(_) => Ok(()),
        }
    }

    /// Runs a step that changes the file; if it fails, so does the writer.
    fn failing<T>(&mut self, step: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let result = step(self);
        if let Err(e) = &result {
            self.fail(&e.message);
        }
        result
    }

    /// Moves the writer to the failed state, unless it failed before (the first reason stays):
    /// buffered rows are dropped and an incomplete local file is removed. Also for the FFI
    /// layer, after a panic left the writer in an unknown state.
    pub fn fail(&mut self, reason: &str) {
        if !matches!(self.state, State::Failed(_)) {
            self.discard_buffered();
            self.state = State::Failed(reason.to_string());
            self.remove_incomplete_file();
        }
    }

    /// Why the writer failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        match &self.state {
            State::Failed(reason) => Some(reason),
            _ => None,
        }
    }

    /// Bytes flushed to the sink so far plus the estimated encoded size of buffered rows.
    pub fn estimated_size(&self) -> u64 {
        match &self.state {
            State::Open(w) => w.estimated_size() as u64,
            _ => 0,
        }
    }

    /// Memory held for rows not yet written out (see [`RunEncoder::buffered_bytes`]).
    pub fn buffered_bytes(&self) -> u64 {
        match &self.state {
            State::Open(w) => w.buffered_bytes() as u64,
            _ => 0,
        }
    }

    /// Writes everything buffered out as a row group now, freeing its memory; the file stays
    /// open for more rows. Row groups close earlier than the byte limit, nothing else changes.
    pub fn flush_row_group(&mut self) -> Result<()> {
        self.check_usable()?;
        self.failing(|w| match &mut w.state {
            State::Open(encoder) => Ok(encoder.flush()?),
            _ => Ok(()),
        })
    }

    /// Starts encoding the held rows on the encode-ahead threads without waiting for them (a
    /// no-op unless the config's `encode_ahead` applies): before closing several files, so
    /// that their last runs are encoded at the same time; closing then writes the same file. The
    /// file stays open: rows written after this make the held rows a run of their own, which
    /// may move where row groups close.
    pub fn encode_held(&mut self) -> Result<()> {
        self.check_usable()?;
        self.failing(|w| match &mut w.state {
            State::Open(encoder) => Ok(encoder.encode_held_ahead()?),
            _ => Ok(()),
        })
    }

    /// Waits until the rows [`Self::encode_held`] sent away are encoded into the row group in
    /// progress, which stays open unless they filled it: the memory they held as Arrow batches
    /// is then their encoded pages. A caller short of memory sends every file's held rows first, then waits for each,
    /// which is cheaper than writing row groups out early. A no-op when nothing is away.
    pub fn await_encoded(&mut self) -> Result<()> {
        self.check_usable()?;
        self.failing(|w| match &mut w.state {
            State::Open(encoder) => Ok(encoder.await_encoded()?),
            _ => Ok(()),
        })
    }

    /// Finishes the file (last row group, footer), flushes the sink, returns the facts.
    pub fn close(&mut self) -> Result<FileSummary> {
        self.check_usable()?;
        self.failing(Self::finish_file)
    }

    fn finish_file(&mut self) -> Result<FileSummary> {
        self.start(None)?;
        let State::Open(writer) = &mut self.state else {
            unreachable!("started above")
        };
        // Everything finish() writes (page indexes, footer) is captured, so the exact footer
        // bytes can go back to the caller (Iceberg metrics are computed from them).
        writer.flush()?;
        writer.inner_mut().capture();
        // finish() writes the footer and flushes every layer down to the sink.
        let metadata = writer.finish()?;
        let out = writer.inner();
        let summary = FileSummary::from_metadata(&metadata, out.written, out.footer()?)
            .with_nan_counts(self.nans.counts());
        self.state = State::Closed;
        self.path = None; // complete: it stays
        Ok(summary)
    }

    /// Drops buffered data; an incomplete local file is removed. A closed or failed writer
    /// stays as it is.
    pub fn abort(&mut self) {
        if matches!(self.state, State::Pending(_) | State::Open(_)) {
            self.discard_buffered();
            self.state = State::Closed;
        }
        self.remove_incomplete_file();
    }

    /// Bytes an abandoned file still buffers are dropped, never sent on (see
    /// [`CountingWrite::discard_buffered`]).
    fn discard_buffered(&mut self) {
        match &mut self.state {
            State::Pending(out) => out.discard_buffered(),
            State::Open(encoder) => encoder.inner_mut().discard_buffered(),
            State::Closed | State::Failed(_) => {}
        }
    }

    fn remove_incomplete_file(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }

    pub fn is_closed(&self) -> bool {
        matches!(self.state, State::Closed)
    }
}

impl Drop for ParquetFileWriter {
    fn drop(&mut self) {
        self.abort();
    }
}

fn create_file(path: &Path) -> Result<File> {
    let file = File::create(path).map_err(|e| {
        FloeError::io(format!(
            "cannot create parquet file '{}': {e}",
            path.display()
        ))
    })?;
    Ok(file)
}

/// Checks that a batch has the writer's columns, in order, with the same types and
/// nullability. Metadata (field ids) is taken from the writer's schema, so it is not compared.
pub fn check_same_schema(expected: &Schema, actual: &Schema) -> Result<()> {
    check_fields("", expected.fields(), actual.fields())
}

fn check_fields(parent: &str, expected: &Fields, actual: &Fields) -> Result<()> {
    if expected.len() != actual.len() {
        return Err(FloeError::schema_mismatch(format!(
            "batch schema differs from the writer's: {} has {} fields, writer expects {} ({})",
            if parent.is_empty() {
                "the batch"
            } else {
                parent
            },
            actual.len(),
            expected.len(),
            field_names(expected)
        )));
    }
    for (e, a) in expected.iter().zip(actual.iter()) {
        check_field(parent, e, a)?;
    }
    Ok(())
}

fn check_field(parent: &str, expected: &Field, actual: &Field) -> Result<()> {
    let path = if parent.is_empty() {
        expected.name().clone()
    } else {
        format!("{parent}.{}", expected.name())
    };
    let mismatch = |what: String| {
        Err(FloeError::schema_mismatch(format!(
            "batch schema differs from the writer's at field '{path}': {what}"
        )))
    };
    if expected.name() != actual.name() {
        return mismatch(format!(
            "batch has field '{}', writer expects '{}'",
            actual.name(),
            expected.name()
        ));
    }
    if expected.is_nullable() != actual.is_nullable() {
        return mismatch(format!(
            "batch field is {}, writer expects {}",
            nullability(actual),
            nullability(expected)
        ));
    }
    match (expected.data_type(), actual.data_type()) {
        (DataType::Struct(e), DataType::Struct(a)) => check_fields(&path, e, a),
        (DataType::List(e), DataType::List(a))
        | (DataType::LargeList(e), DataType::LargeList(a))
        | (DataType::Map(e, _), DataType::Map(a, _)) => check_field(&path, e, a),
        (e, a) if e == a => Ok(()),
        (e, a) if same_type_ignoring_metadata(e, a) => Ok(()),
        (e, a) => mismatch(format!("batch type is {a}, writer expects {e}")),
    }
}

fn same_type_ignoring_metadata(expected: &DataType, actual: &DataType) -> bool {
    expected.equals_datatype(actual)
}

fn nullability(f: &Field) -> &'static str {
    if f.is_nullable() {
        "nullable"
    } else {
        "required"
    }
}

fn field_names(fields: &Fields) -> String {
    fields
        .iter()
        .map(|f| f.name().as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
