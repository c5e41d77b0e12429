//! The C ABI of libfloe: the only module with `extern "C"` and `unsafe`.
//!
//! Every entry point is a thin wrapper over safe Rust: it checks its pointers,
//! runs the body under `catch_unwind`, and returns a status code (0 = ok, else an
//! [`ErrorCode`]). On failure it stores a message in `*out_error` when that
//! pointer is non-null; the caller frees it with [`floe_string_free`].
//! Nothing unwinds across the boundary.
//!
//! Ownership rules are spelled out per function and collected in `docs/ffi.md`.

use std::ffi::{c_char, c_void, CStr, CString};
use std::io::{self, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, TryLockError};

use arrow_array::ffi::{from_ffi, from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, RecordBatchOptions, StructArray};
use arrow_schema::{DataType, Schema};

use crate::config::WriterConfig;
use crate::error::{ErrorCode, FloeError, Result};
use crate::json::{DecodedBatch, DecoderConfig, JsonDecoder};
use crate::partition::{PartitionSpec, PartitionedBatch, Partitioner};
use crate::writer::{check_same_schema, OutputSink, ParquetFileWriter};

/// Version of this C ABI. Java refuses to run against a library whose version differs.
pub const FLOE_ABI_VERSION: i32 = 3;

/// Opaque writer handle: created by `floe_writer_open_*`, freed by `floe_writer_free`.
pub struct FloeWriter {
    inner: ParquetFileWriter,
    /// Set when a panic escaped the writer; its state can no longer be trusted.
    poisoned: bool,
}

/// Output callback for stream sinks: consume `len` bytes at `data` (borrowed for
/// the duration of the call). Returns 0 on success, anything else fails the write.
pub type FloeWriteFn =
    Option<unsafe extern "C" fn(context: *mut c_void, data: *const u8, len: usize) -> i32>;

/// Returns [`FLOE_ABI_VERSION`]; checked by the Java loader.
#[no_mangle]
pub extern "C" fn floe_abi_version() -> i32 {
    FLOE_ABI_VERSION
}

/// Opens a writer onto a local file, created or truncated.
///
/// # Safety
/// - `path`: NUL-terminated UTF-8, borrowed for the call.
/// - `schema`: an Arrow C Data `ArrowSchema` of a struct (the batch schema), **borrowed**:
///   the caller still owns and releases it.
/// - `config`/`config_len`: the JSON writer config, borrowed; `config_len == 0` means defaults.
/// - `out_writer`: receives the new handle, owned by the caller until `floe_writer_free`.
/// - `out_error`: null, or receives an error message to free with `floe_string_free`.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_open_path(
    path: *const c_char,
    schema: *const FFI_ArrowSchema,
    config: *const u8,
    config_len: usize,
    out_writer: *mut *mut FloeWriter,
    out_error: *mut *mut c_char,
) -> i32 {
    guard(out_error, || {
        let path = c_str(path, "path")?;
        let sink = OutputSink::Path(PathBuf::from(path));
        open_writer(sink, schema, config, config_len, out_writer)
    })
}

/// Opens a writer whose bytes go to `write_fn(context, data, len)`.
///
/// # Safety
/// - `write_fn` must stay callable, and `context` valid, until `floe_writer_free`
///   returns. It is called on the thread that calls `floe_writer_write` / `_close`.
/// - `schema`, `config`, `out_writer`, `out_error`: as for `floe_writer_open_path`.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_open_stream(
    write_fn: FloeWriteFn,
    context: *mut c_void,
    schema: *const FFI_ArrowSchema,
    config: *const u8,
    config_len: usize,
    out_writer: *mut *mut FloeWriter,
    out_error: *mut *mut c_char,
) -> i32 {
    guard(out_error, || {
        let write_fn =
            write_fn.ok_or_else(|| FloeError::invalid_argument("write_fn must not be null"))?;
        let sink = OutputSink::Stream(Box::new(CallbackWrite { write_fn, context }));
        open_writer(sink, schema, config, config_len, out_writer)
    })
}

/// Writes one batch: a struct array whose children are the columns.
///
/// # Safety
/// - `writer`: a live handle from `floe_writer_open_*`.
/// - `array`: an Arrow C Data `ArrowArray`, **moved**: on return (success or failure)
///   the struct is marked released (`release == NULL`) and the data belongs to
///   the library, which releases it when done. The caller frees only the struct memory.
/// - `schema`: the array's `ArrowSchema`, **borrowed**; may be null to mean "the
///   writer's schema" (the caller vouches that the array matches it).
#[no_mangle]
pub unsafe extern "C" fn floe_writer_write(
    writer: *mut FloeWriter,
    array: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    out_error: *mut *mut c_char,
) -> i32 {
    // Take ownership first, so the array is released even when the call fails.
    let imported = if array.is_null() {
        None
    } else {
        Some(FFI_ArrowArray::from_raw(array))
    };
    guard_writer(writer, out_error, move |w| {
        let imported =
            imported.ok_or_else(|| FloeError::invalid_argument("array must not be null"))?;
        let batch = import_batch(imported, schema, w.schema())?;
        w.write(&batch)
    })
}

/// Estimated file size so far: bytes already written plus buffered rows.
///
/// # Safety
/// `writer` is a live handle; `out_size` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_estimated_size(
    writer: *mut FloeWriter,
    out_size: *mut u64,
    out_error: *mut *mut c_char,
) -> i32 {
    guard_writer(writer, out_error, |w| {
        let out = out_size
            .as_mut()
            .ok_or_else(|| FloeError::invalid_argument("out_size must not be null"))?;
        *out = w.estimated_size();
        Ok(())
    })
}

/// Memory the writer holds for rows not yet written out: held batches and the row group in
/// progress. Zero before the first row and after close.
///
/// # Safety
/// `writer` is a live handle; `out_bytes` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_buffered_bytes(
    writer: *mut FloeWriter,
    out_bytes: *mut u64,
    out_error: *mut *mut c_char,
) -> i32 {
    guard_writer(writer, out_error, |w| {
        let out = out_bytes
            .as_mut()
            .ok_or_else(|| FloeError::invalid_argument("out_bytes must not be null"))?;
        *out = w.buffered_bytes();
        Ok(())
    })
}

/// Writes the buffered rows out as a row group now (to free their memory); the file stays
/// open. A no-op before the first row.
///
/// # Safety
/// `writer` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_flush_row_group(
    writer: *mut FloeWriter,
    out_error: *mut *mut c_char,
) -> i32 {
    guard_writer(writer, out_error, |w| w.flush_row_group())
}

/// Finishes the file and returns its footer facts as a JSON document.
///
/// # Safety
/// - `writer`: a live handle; it stays allocated (closed) until `floe_writer_free`.
/// - `out_summary`/`out_summary_len`: receive bytes owned by the caller, freed with
///   `floe_bytes_free(ptr, len)`.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_close(
    writer: *mut FloeWriter,
    out_summary: *mut *mut u8,
    out_summary_len: *mut usize,
    out_error: *mut *mut c_char,
) -> i32 {
    guard_writer(writer, out_error, |w| {
        if out_summary.is_null() || out_summary_len.is_null() {
            return Err(FloeError::invalid_argument(
                "out_summary and out_summary_len must not be null",
            ));
        }
        let json = w.close()?.to_json().into_boxed_slice();
        *out_summary_len = json.len();
        *out_summary = Box::into_raw(json) as *mut u8;
        Ok(())
    })
}

/// Frees a writer. A writer that was not closed is aborted: buffered rows are
/// dropped and a partially written local file is deleted. Null is a no-op.
///
/// # Safety
/// `writer` is null or a handle not yet freed; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_free(writer: *mut FloeWriter) {
    free_boxed(writer);
}

/// Frees an error message returned through `out_error`. Null is a no-op.
///
/// # Safety
/// `message` is null or a pointer this library returned and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn floe_string_free(message: *mut c_char) {
    if !message.is_null() {
        drop(CString::from_raw(message));
    }
}

/// Frees bytes returned by this library (e.g. a file summary). Null is a no-op.
///
/// # Safety
/// `data`/`len` are exactly a pointer and length this library returned.
#[no_mangle]
pub unsafe extern "C" fn floe_bytes_free(data: *mut u8, len: usize) {
    if !data.is_null() {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(data, len)));
    }
}

/// Opaque JSON decoder handle: created by `floe_decoder_new`, freed by `floe_decoder_free`.
pub struct FloeDecoder {
    /// Locked per call, so two threads using one decoder at once (a caller bug)
    /// get an error instead of a race. Uncontended, it costs nanoseconds per batch.
    inner: Mutex<JsonDecoder>,
}

/// What one decode call did. `rejects_json` (may be null when `rejected == 0`) is a
/// JSON array of `{"index": i, "reason": "..."}`, owned by the caller and freed with
/// `floe_bytes_free(rejects_json, rejects_len)`.
#[repr(C)]
pub struct FloeDecodeResult {
    /// Messages decoded into the output batch.
    pub rows: i64,
    /// Messages rejected.
    pub rejected: i64,
    /// 1 if decoding stopped at the first reject (stop_at_first_reject was set).
    pub stopped: i32,
    pub rejects_json: *mut u8,
    pub rejects_len: usize,
}

/// Creates a JSON decoder for a target schema.
///
/// # Safety
/// - `schema`: an `ArrowSchema` of a struct (the target columns), **borrowed**.
/// - `config`/`config_len`: the JSON decoder config, borrowed; length 0 means defaults.
/// - `out_decoder`: receives the new handle, owned by the caller until `floe_decoder_free`.
#[no_mangle]
pub unsafe extern "C" fn floe_decoder_new(
    schema: *const FFI_ArrowSchema,
    config: *const u8,
    config_len: usize,
    out_decoder: *mut *mut FloeDecoder,
    out_error: *mut *mut c_char,
) -> i32 {
    guard(out_error, || {
        if out_decoder.is_null() {
            return Err(FloeError::invalid_argument("out_decoder must not be null"));
        }
        let schema = Arc::new(import_schema(schema)?);
        let config = DecoderConfig::from_json(bytes(config, config_len, "config")?)?;
        let inner = JsonDecoder::new(schema, config)?;
        *out_decoder = Box::into_raw(Box::new(FloeDecoder {
            inner: Mutex::new(inner),
        }));
        Ok(())
    })
}

/// Decodes `count` messages into one Arrow batch returned through C Data.
///
/// Message `i` is `data[offsets[i] .. offsets[i + 1]]`.
///
/// # Safety
/// - `decoder`: a live handle, used by one thread at a time (a second concurrent
///   caller gets an `IllegalState` error).
/// - `data`/`data_len` and `offsets` (`count + 1` entries, non-decreasing, within
///   `data_len`): **borrowed** for the call.
/// - `out_array`/`out_schema`: caller-allocated structs that are **overwritten**
///   (their old contents are not released) with a struct array of the decoded rows
///   and its schema. Ownership **moves to the caller**, who must call their
///   `release` callbacks. Written only on success.
/// - `out_result`: receives the counts and rejects (see [`FloeDecodeResult`]).
#[no_mangle]
pub unsafe extern "C" fn floe_decoder_decode(
    decoder: *mut FloeDecoder,
    data: *const u8,
    data_len: usize,
    offsets: *const i64,
    count: usize,
    stop_at_first_reject: i32,
    out_array: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    out_result: *mut FloeDecodeResult,
    out_error: *mut *mut c_char,
) -> i32 {
    guard_decoder(decoder, out_error, |d| {
        if out_array.is_null() || out_schema.is_null() || out_result.is_null() {
            return Err(FloeError::invalid_argument(
                "out_array, out_schema and out_result must not be null",
            ));
        }
        let (span, messages) = message_slices(data, data_len, offsets, count)?;
        let decoded = d.decode_packed(span, &messages, stop_at_first_reject != 0)?;
        let columns = StructArray::from(decoded.batch.clone());
        let ffi_schema = FFI_ArrowSchema::try_from(d.schema().as_ref())
            .map_err(|e| FloeError::encoding(format!("cannot export arrow schema: {e}")))?;
        let ffi_array = FFI_ArrowArray::new(&columns.to_data());
        *out_result = decode_result(&decoded);
        std::ptr::write(out_array, ffi_array);
        std::ptr::write(out_schema, ffi_schema);
        Ok(())
    })
}

/// Decodes `count` messages and writes the good ones straight into a writer, without
/// the batch crossing the boundary. With `stop_at_first_reject`, a batch with a bad
/// message writes nothing.
///
/// # Safety
/// - `decoder` and `writer`: live handles, each used by one thread at a time. The
///   decoder's schema must equal the writer's (checked).
/// - `data`, `offsets`, `count`, `out_result`: as for `floe_decoder_decode`.
#[no_mangle]
pub unsafe extern "C" fn floe_decoder_decode_to_writer(
    decoder: *mut FloeDecoder,
    writer: *mut FloeWriter,
    data: *const u8,
    data_len: usize,
    offsets: *const i64,
    count: usize,
    stop_at_first_reject: i32,
    out_result: *mut FloeDecodeResult,
    out_error: *mut *mut c_char,
) -> i32 {
    let status = guard_decoder(decoder, out_error, |d| {
        if out_result.is_null() {
            return Err(FloeError::invalid_argument("out_result must not be null"));
        }
        let w = live_writer(writer)?;
        check_same_schema(w.inner.schema(), d.schema())?;
        let (span, messages) = message_slices(data, data_len, offsets, count)?;
        let decoded = d.decode_packed(span, &messages, stop_at_first_reject != 0)?;
        if !decoded.stopped {
            w.inner.write(&decoded.batch)?;
        }
        *out_result = decode_result(&decoded);
        Ok(())
    });
    poison_after_panic(writer, status);
    status
}

/// Frees a decoder. Null is a no-op.
///
/// # Safety
/// `decoder` is null or a handle not yet freed; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn floe_decoder_free(decoder: *mut FloeDecoder) {
    free_boxed(decoder);
}

/// Opaque partitioner handle: created by `floe_partitioner_new`, freed by
/// `floe_partitioner_free`. Immutable after creation, so one handle may be used by
/// several threads at once.
pub struct FloePartitioner {
    inner: Partitioner,
    schema: Arc<Schema>,
}

/// Opaque handle to a batch regrouped by partition (`floe_partitioner_split`):
/// the rows of every partition, written with `floe_writer_write_group`, freed by
/// `floe_partitioned_batch_free`.
pub struct FloePartitionedBatch {
    inner: PartitionedBatch,
}

/// Creates a partitioner for batches of `schema` and an Iceberg partition spec.
///
/// # Safety
/// - `schema`: the batches' `ArrowSchema` (a struct with `PARQUET:field_id`s), **borrowed**.
/// - `spec`/`spec_len`: the partition spec JSON (`{"version":1,"fields":[{"name",
///   "source_id","transform"}]}`), borrowed.
/// - `out_partitioner`: receives the handle, owned by the caller until `floe_partitioner_free`.
#[no_mangle]
pub unsafe extern "C" fn floe_partitioner_new(
    schema: *const FFI_ArrowSchema,
    spec: *const u8,
    spec_len: usize,
    out_partitioner: *mut *mut FloePartitioner,
    out_error: *mut *mut c_char,
) -> i32 {
    guard(out_error, || {
        if out_partitioner.is_null() {
            return Err(FloeError::invalid_argument(
                "out_partitioner must not be null",
            ));
        }
        let schema = Arc::new(import_schema(schema)?);
        let spec = PartitionSpec::from_json(bytes(spec, spec_len, "spec")?)?;
        let inner = Partitioner::new(&schema, &spec)?;
        *out_partitioner = Box::into_raw(Box::new(FloePartitioner { inner, schema }));
        Ok(())
    })
}

/// Regroups one batch by partition.
///
/// # Safety
/// - `partitioner`: a live handle.
/// - `array`: the batch, **moved** (as for `floe_writer_write`); `schema`: borrowed, or
///   null for "the partitioner's schema".
/// - `out_partitions_array`/`out_partitions_schema`: overwritten with a struct array
///   holding one row of partition values per group, in group order; ownership **moves
///   to the caller**. Written only on success.
/// - `out_batch`: receives the regrouped batch, owned by the caller until
///   `floe_partitioned_batch_free`. It keeps the batch's data alive on its own.
#[no_mangle]
pub unsafe extern "C" fn floe_partitioner_split(
    partitioner: *const FloePartitioner,
    array: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    out_partitions_array: *mut FFI_ArrowArray,
    out_partitions_schema: *mut FFI_ArrowSchema,
    out_batch: *mut *mut FloePartitionedBatch,
    out_error: *mut *mut c_char,
) -> i32 {
    let imported = if array.is_null() {
        None
    } else {
        Some(FFI_ArrowArray::from_raw(array))
    };
    guard(out_error, || {
        let p = partitioner
            .as_ref()
            .ok_or_else(|| FloeError::invalid_argument("partitioner must not be null"))?;
        let imported =
            imported.ok_or_else(|| FloeError::invalid_argument("array must not be null"))?;
        let batch = import_batch(imported, schema, &p.schema)?;
        let split = p.inner.split(&batch)?;
        export_split(
            split,
            out_partitions_array,
            out_partitions_schema,
            out_batch,
        )
    })
}

/// Decodes `count` JSON messages and regroups the decoded rows by partition: the
/// decoded batch never crosses the boundary. The decoder's schema must equal the
/// partitioner's.
///
/// # Safety
/// - `decoder`, `data`, `offsets`, `count`, `out_result`: as for `floe_decoder_decode`.
/// - `partitioner`, `out_partitions_*`, `out_batch`: as for `floe_partitioner_split`.
///   With `stop_at_first_reject` and a bad message, `out_batch` holds no groups.
#[no_mangle]
pub unsafe extern "C" fn floe_decoder_decode_partitioned(
    decoder: *mut FloeDecoder,
    partitioner: *const FloePartitioner,
    data: *const u8,
    data_len: usize,
    offsets: *const i64,
    count: usize,
    stop_at_first_reject: i32,
    out_partitions_array: *mut FFI_ArrowArray,
    out_partitions_schema: *mut FFI_ArrowSchema,
    out_batch: *mut *mut FloePartitionedBatch,
    out_result: *mut FloeDecodeResult,
    out_error: *mut *mut c_char,
) -> i32 {
    guard_decoder(decoder, out_error, |d| {
        if out_result.is_null() {
            return Err(FloeError::invalid_argument("out_result must not be null"));
        }
        let p = partitioner
            .as_ref()
            .ok_or_else(|| FloeError::invalid_argument("partitioner must not be null"))?;
        check_same_schema(&p.schema, d.schema())?;
        let (span, messages) = message_slices(data, data_len, offsets, count)?;
        let decoded = d.decode_packed(span, &messages, stop_at_first_reject != 0)?;
        let rows = if decoded.stopped {
            decoded.batch.slice(0, 0)
        } else {
            decoded.batch.clone()
        };
        let split = p.inner.split(&rows)?;
        export_split(
            split,
            out_partitions_array,
            out_partitions_schema,
            out_batch,
        )?;
        *out_result = decode_result(&decoded);
        Ok(())
    })
}

/// Writes the rows of group `group` of a regrouped batch.
///
/// # Safety
/// `writer` and `batch` are live handles; the batch's schema must equal the writer's
/// (checked). The batch is borrowed: it can be written to several writers, one group each.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_write_group(
    writer: *mut FloeWriter,
    batch: *const FloePartitionedBatch,
    group: usize,
    out_error: *mut *mut c_char,
) -> i32 {
    guard_writer(writer, out_error, |w| {
        let batch = batch
            .as_ref()
            .ok_or_else(|| FloeError::invalid_argument("batch must not be null"))?;
        let rows = batch.inner.group(group)?;
        if !Arc::ptr_eq(w.schema(), rows.schema_ref()) {
            check_same_schema(w.schema(), rows.schema_ref())?;
        }
        w.write(&rows)
    })
}

/// Copies the row count of every group of a regrouped batch into `out_rows`.
///
/// # Safety
/// `batch` is a live handle; `out_rows` points to `capacity` writable `int64_t`s, and
/// `capacity` equals the number of groups (the length of the partition values array).
#[no_mangle]
pub unsafe extern "C" fn floe_partitioned_batch_group_rows(
    batch: *const FloePartitionedBatch,
    out_rows: *mut i64,
    capacity: usize,
    out_error: *mut *mut c_char,
) -> i32 {
    guard(out_error, || {
        let batch = batch
            .as_ref()
            .ok_or_else(|| FloeError::invalid_argument("batch must not be null"))?;
        if capacity != batch.inner.len() || (capacity > 0 && out_rows.is_null()) {
            return Err(FloeError::invalid_argument(format!(
                "out_rows must hold exactly {} group counts (capacity {capacity})",
                batch.inner.len()
            )));
        }
        for (i, (_, rows)) in batch.inner.ranges.iter().enumerate() {
            *out_rows.add(i) = *rows as i64;
        }
        Ok(())
    })
}

/// Copies, for every row of a regrouped batch in group order, the index of that row in
/// the input batch into `out_order` (so callers can match regrouped rows to their own).
///
/// # Safety
/// `batch` is a live handle; `out_order` points to `capacity` writable `int32_t`s, and
/// `capacity` equals the batch's total row count.
#[no_mangle]
pub unsafe extern "C" fn floe_partitioned_batch_row_order(
    batch: *const FloePartitionedBatch,
    out_order: *mut i32,
    capacity: usize,
    out_error: *mut *mut c_char,
) -> i32 {
    guard(out_error, || {
        let batch = batch
            .as_ref()
            .ok_or_else(|| FloeError::invalid_argument("batch must not be null"))?;
        let rows = batch.inner.batch.num_rows();
        if capacity != rows || (capacity > 0 && out_order.is_null()) {
            return Err(FloeError::invalid_argument(format!(
                "out_order must hold exactly {rows} row indices (capacity {capacity})"
            )));
        }
        for row in 0..rows {
            let input = batch.inner.order.as_ref().map_or(row, |o| o[row] as usize);
            *out_order.add(row) = input as i32;
        }
        Ok(())
    })
}

/// Frees a regrouped batch. Null is a no-op.
///
/// # Safety
/// `batch` is null or a handle not yet freed; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn floe_partitioned_batch_free(batch: *mut FloePartitionedBatch) {
    free_boxed(batch);
}

/// Frees a partitioner. Null is a no-op.
///
/// # Safety
/// `partitioner` is null or a handle not yet freed, and no call on it is running.
#[no_mangle]
pub unsafe extern "C" fn floe_partitioner_free(partitioner: *mut FloePartitioner) {
    free_boxed(partitioner);
}

/// Test-only: panics inside the boundary guard, to prove a panic becomes an error
/// status (code 6) and never unwinds into the caller.
///
/// # Safety
/// `message` is null or NUL-terminated UTF-8.
#[no_mangle]
pub unsafe extern "C" fn floe_debug_panic(
    message: *const c_char,
    out_error: *mut *mut c_char,
) -> i32 {
    guard(out_error, || {
        let text = if message.is_null() {
            "floe_debug_panic".to_string()
        } else {
            c_str(message, "message")?.to_string()
        };
        panic!("{text}");
    })
}

// ---- helpers (all of the module's unsafe stays below, next to its reason) ----

fn decode_result(decoded: &DecodedBatch) -> FloeDecodeResult {
    let (json, len) = if decoded.rejects.is_empty() {
        (std::ptr::null_mut(), 0)
    } else {
        let bytes = serde_json::to_vec(&decoded.rejects)
            .expect("rejects serialize")
            .into_boxed_slice();
        let len = bytes.len();
        (Box::into_raw(bytes) as *mut u8, len)
    };
    FloeDecodeResult {
        rows: decoded.batch.num_rows() as i64,
        rejected: decoded.rejects.len() as i64,
        stopped: decoded.stopped as i32,
        rejects_json: json,
        rejects_len: len,
    }
}

/// Hands a split batch to the caller: partition values through C Data, the rows as a handle.
unsafe fn export_split(
    split: PartitionedBatch,
    out_partitions_array: *mut FFI_ArrowArray,
    out_partitions_schema: *mut FFI_ArrowSchema,
    out_batch: *mut *mut FloePartitionedBatch,
) -> Result<()> {
    if out_partitions_array.is_null() || out_partitions_schema.is_null() || out_batch.is_null() {
        return Err(FloeError::invalid_argument(
            "out_partitions_array, out_partitions_schema and out_batch must not be null",
        ));
    }
    let ffi_schema = FFI_ArrowSchema::try_from(split.partitions.data_type())
        .map_err(|e| FloeError::encoding(format!("cannot export partition schema: {e}")))?;
    let ffi_array = FFI_ArrowArray::new(&split.partitions.to_data());
    std::ptr::write(out_partitions_array, ffi_array);
    std::ptr::write(out_partitions_schema, ffi_schema);
    *out_batch = Box::into_raw(Box::new(FloePartitionedBatch { inner: split }));
    Ok(())
}

/// The messages of a packed batch, checked against the buffer's bounds, and the part of the
/// buffer they cover (back to back: message `i` ends where `i + 1` starts).
unsafe fn message_slices<'a>(
    data: *const u8,
    data_len: usize,
    offsets: *const i64,
    count: usize,
) -> Result<(&'a [u8], Vec<&'a [u8]>)> {
    if count == 0 {
        return Ok((&[], Vec::new()));
    }
    if offsets.is_null() {
        return Err(FloeError::invalid_argument("offsets must not be null"));
    }
    let data = bytes(data, data_len, "data")?;
    let offsets = std::slice::from_raw_parts(offsets, count + 1);
    let mut messages = Vec::with_capacity(count);
    for (i, pair) in offsets.windows(2).enumerate() {
        let (start, end) = (pair[0], pair[1]);
        if start < 0 || end < start || end as usize > data.len() {
            return Err(FloeError::invalid_argument(format!(
                "offsets[{i}..{}] = {start}..{end} is outside the {}-byte buffer or decreasing",
                i + 1,
                data.len()
            )));
        }
        messages.push(&data[start as usize..end as usize]);
    }
    let span = &data[offsets[0] as usize..offsets[count] as usize];
    Ok((span, messages))
}

/// `guard` for calls on a decoder handle: null checks and concurrent-use detection.
unsafe fn guard_decoder(
    decoder: *mut FloeDecoder,
    out_error: *mut *mut c_char,
    body: impl FnOnce(&mut JsonDecoder) -> Result<()>,
) -> i32 {
    guard(out_error, || {
        let handle = decoder
            .as_ref()
            .ok_or_else(|| FloeError::invalid_argument("decoder must not be null"))?;
        let mut inner = match handle.inner.try_lock() {
            Ok(inner) => inner,
            Err(TryLockError::WouldBlock) => {
                return Err(FloeError::illegal_state(
                    "decoder is in use by another thread; use one decoder per thread",
                ))
            }
            // A panic during an earlier call: the decoder's buffers may be half-filled,
            // but `decode` starts every batch from its own row count, so it stays usable.
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
        };
        body(&mut inner)
    })
}

/// Sends bytes to the caller's callback.
struct CallbackWrite {
    write_fn: unsafe extern "C" fn(*mut c_void, *const u8, usize) -> i32,
    context: *mut c_void,
}

// SAFETY: the caller of `floe_writer_open_stream` promises the callback and its
// context may be used from the thread that drives the writer; the writer is
// never shared between threads concurrently (one handle, one caller at a time).
unsafe impl Send for CallbackWrite {}

impl Write for CallbackWrite {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: valid per `floe_writer_open_stream`'s contract; `buf` outlives the call.
        let status = unsafe { (self.write_fn)(self.context, buf.as_ptr(), buf.len()) };
        if status == 0 {
            Ok(buf.len())
        } else {
            Err(io::Error::other(format!(
                "output callback failed with status {status}"
            )))
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

unsafe fn open_writer(
    sink: OutputSink,
    schema: *const FFI_ArrowSchema,
    config: *const u8,
    config_len: usize,
    out_writer: *mut *mut FloeWriter,
) -> Result<()> {
    if out_writer.is_null() {
        return Err(FloeError::invalid_argument("out_writer must not be null"));
    }
    let schema = import_schema(schema)?;
    let config = WriterConfig::from_json(bytes(config, config_len, "config")?)?;
    let inner = ParquetFileWriter::open(sink, Arc::new(schema), &config)?;
    let handle = Box::new(FloeWriter {
        inner,
        poisoned: false,
    });
    *out_writer = Box::into_raw(handle);
    Ok(())
}

unsafe fn import_schema(schema: *const FFI_ArrowSchema) -> Result<Schema> {
    let schema = schema
        .as_ref()
        .ok_or_else(|| FloeError::invalid_argument("schema must not be null"))?;
    Schema::try_from(schema)
        .map_err(|e| FloeError::invalid_argument(format!("cannot import arrow schema: {e}")))
}

/// Builds a record batch from a moved struct array, checking it against the writer's schema.
unsafe fn import_batch(
    array: FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    writer_schema: &Arc<Schema>,
) -> Result<RecordBatch> {
    let data = match schema.as_ref() {
        Some(ffi_schema) => {
            check_same_schema(writer_schema, &import_schema(ffi_schema)?)?;
            from_ffi(array, ffi_schema)
        }
        None => from_ffi_and_data_type(array, DataType::Struct(writer_schema.fields().clone())),
    }
    .map_err(|e| FloeError::invalid_argument(format!("cannot import arrow array: {e}")))?;
    if !matches!(data.data_type(), DataType::Struct(_)) {
        return Err(FloeError::invalid_argument(format!(
            "a batch must be a struct array of columns, got {}",
            data.data_type()
        )));
    }
    data.validate()
        .map_err(|e| FloeError::invalid_argument(format!("invalid arrow array: {e}")))?;
    let columns = StructArray::from(data);
    if columns.null_count() > 0 {
        return Err(FloeError::invalid_argument(
            "a batch's top-level struct array must not contain nulls",
        ));
    }
    let num_rows = columns.len();
    let (_, arrays, _) = columns.into_parts();
    // The writer's schema carries the field ids; the batch only supplies the data.
    RecordBatch::try_new_with_options(
        writer_schema.clone(),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(num_rows)),
    )
    .map_err(|e| FloeError::schema_mismatch(format!("batch does not fit the writer schema: {e}")))
}

unsafe fn c_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(FloeError::invalid_argument(format!(
            "{name} must not be null"
        )));
    }
    CStr::from_ptr(ptr)
        .to_str()
        .map_err(|_| FloeError::invalid_argument(format!("{name} is not valid UTF-8")))
}

unsafe fn bytes<'a>(ptr: *const u8, len: usize, name: &str) -> Result<&'a [u8]> {
    match (ptr.is_null(), len) {
        (_, 0) => Ok(&[]),
        (true, _) => Err(FloeError::invalid_argument(format!(
            "{name} is null but its length is {len}"
        ))),
        (false, _) => Ok(std::slice::from_raw_parts(ptr, len)),
    }
}

/// Drops a handle made by `Box::into_raw`; null is a no-op. A panic in a destructor is
/// swallowed: freeing must never unwind into the caller.
unsafe fn free_boxed<T>(handle: *mut T) {
    if !handle.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(handle))));
    }
}

/// Runs `body`, turning errors and panics into a status code and message.
fn guard(out_error: *mut *mut c_char, body: impl FnOnce() -> Result<()>) -> i32 {
    let result = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        Err(FloeError::new(
            ErrorCode::Panic,
            format!("internal panic in libfloe: {}", panic_message(&*payload)),
        ))
    });
    match result {
        Ok(()) => ErrorCode::Ok as i32,
        Err(e) => {
            set_error(out_error, &e.message);
            e.code as i32
        }
    }
}

/// `guard` for calls on a writer handle: null checks, and poisoning after a panic.
unsafe fn guard_writer(
    writer: *mut FloeWriter,
    out_error: *mut *mut c_char,
    body: impl FnOnce(&mut ParquetFileWriter) -> Result<()>,
) -> i32 {
    let status = guard(out_error, || body(&mut live_writer(writer)?.inner));
    poison_after_panic(writer, status);
    status
}

/// The writer behind a handle, unless it is null or poisoned by an earlier panic.
unsafe fn live_writer<'a>(writer: *mut FloeWriter) -> Result<&'a mut FloeWriter> {
    let handle = writer
        .as_mut()
        .ok_or_else(|| FloeError::invalid_argument("writer must not be null"))?;
    if handle.poisoned {
        return Err(FloeError::illegal_state(
            "writer is unusable after an internal panic",
        ));
    }
    Ok(handle)
}

/// A panic may have left the writer half-updated: refuse further use and drop its data.
unsafe fn poison_after_panic(writer: *mut FloeWriter, status: i32) {
    if status == ErrorCode::Panic as i32 {
        if let Some(handle) = writer.as_mut() {
            handle.poisoned = true;
            handle.inner.abort();
        }
    }
}

fn set_error(out_error: *mut *mut c_char, message: &str) {
    if out_error.is_null() {
        return;
    }
    let text = CString::new(message.replace('\0', "\\0")).expect("NULs were replaced");
    // SAFETY: out_error is non-null and, per every entry point's contract, writable.
    unsafe { *out_error = text.into_raw() };
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}
