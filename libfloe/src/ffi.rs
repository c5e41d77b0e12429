//! The C ABI of libfloe: every `extern "C"` function, and all of the crate's `unsafe` but the
//! JSON decoder's two uses behind safe functions (`json::unchecked`).
//!
//! Every entry point is a thin wrapper over safe Rust: it turns its pointers into references
//! (each conversion an `unsafe` block citing the function's `# Safety` contract), runs the body
//! under `catch_unwind`, and returns a status code (0 = ok, else an [`ErrorCode`]). On failure
//! it stores a message in `*out_error` when that pointer is non-null; the caller frees it with
//! [`floe_string_free`]. Nothing unwinds across the boundary.
//!
//! Common to every fallible entry point: its last argument `out_error` is null or points to
//! memory writable for one `char *`, and every handle argument is null or a live handle of its
//! kind (not yet freed).
//!
//! A writer that fails part way through changing its file (an `Io` or `Encoding` error) or
//! panics is failed: it refuses every later call with `IllegalState` naming the first failure,
//! and only `floe_writer_free` is left to do. A decoder that panics is failed the same way.
//! `InvalidArgument` and `SchemaMismatch` refuse a call before it changes anything.
//!
//! Ownership rules are spelled out per function and collected in `docs/ffi.md`.

use std::ffi::{c_char, c_void, CStr, CString};
use std::io::{self, Write};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, TryLockError};

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, RecordBatchOptions, StructArray};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Schema};

use crate::config::WriterConfig;
use crate::error::{ErrorCode, FloeError, Result};
use crate::flink_rows::FlinkRowDecoder;
use crate::json::{
    DecodedBatch, DecoderConfig, JsonDecoder, Outcome, RowTapeConfig, RowTapeDecoder,
};
use crate::partition::{PartitionSpec, PartitionedBatch, Partitioner};
use crate::writer::{check_same_schema, OutputSink, ParquetFileWriter};

/// Version of this C ABI. Java refuses to run against a library whose version differs.
pub const FLOE_ABI_VERSION: i32 = 9;

/// Opaque writer handle: created by `floe_writer_open_*`, freed by `floe_writer_free`.
pub struct FloeWriter {
    /// Holds the failed state too (`ParquetFileWriter::fail`), set by its own failures and by
    /// this module after a panic.
    inner: ParquetFileWriter,
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    let result = run(|| {
        // SAFETY: `path` is NUL-terminated and readable for the call, per the contract.
        let path = unsafe { c_str(path, "path") }?;
        let sink = OutputSink::Path(PathBuf::from(path));
        // SAFETY: `schema`, `config` and `out_writer` as `open_writer` needs, per the contract.
        unsafe { open_writer(sink, schema, config, config_len, out_writer) }
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    let result = run(|| {
        let write_fn =
            write_fn.ok_or_else(|| FloeError::invalid_argument("write_fn must not be null"))?;
        let sink = OutputSink::Stream(Box::new(CallbackWrite { write_fn, context }));
        // SAFETY: `schema`, `config` and `out_writer` as `open_writer` needs, per the contract.
        unsafe { open_writer(sink, schema, config, config_len, out_writer) }
    });
    report(result, out_error)
}

/// Writes one batch: a struct array whose children are the columns.
///
/// # Safety
/// - `writer`: a live handle from `floe_writer_open_*`.
/// - `array`: an Arrow C Data `ArrowArray`, **moved**: on return (success or failure)
///   the struct is marked released (`release == NULL`) and the data belongs to
///   the library, which releases it when done. The caller frees only the struct memory.
///   A struct already released is refused (its buffers may be gone).
/// - `schema`: the array's `ArrowSchema`, **borrowed**; not null (checked against the
///   writer's).
#[no_mangle]
pub unsafe extern "C" fn floe_writer_write(
    writer: *mut FloeWriter,
    array: *mut FFI_ArrowArray,
    schema: *const FFI_ArrowSchema,
    out_error: *mut *mut c_char,
) -> i32 {
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // Take ownership first, so the array is released even when the call fails.
    // SAFETY: `array` is null or a valid ArrowArray the caller moves in, per the contract.
    let imported = unsafe { take_array(array) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    // SAFETY: `schema` is null or a valid ArrowSchema borrowed for the call, per the contract.
    let schema = unsafe { array_schema(schema) };
    let result = with_writer(writer, move |w| {
        let imported = imported?;
        // SAFETY: `schema` describes the array, per the contract.
        let batch = unsafe { import_batch(imported, schema?, w.schema()) }?;
        w.write(&batch)
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    let result = with_writer(writer, |w| {
        // SAFETY: `out_size` is writable, per the contract.
        let out = unsafe { out_param(out_size, "out_size") }?;
        out.write(w.estimated_size());
        Ok(())
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    let result = with_writer(writer, |w| {
        // SAFETY: `out_bytes` is writable, per the contract.
        let out = unsafe { out_param(out_bytes, "out_bytes") }?;
        out.write(w.buffered_bytes());
        Ok(())
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    report(with_writer(writer, |w| w.flush_row_group()), out_error)
}

/// Starts encoding the rows the writer still holds on the shared encode-ahead threads, without
/// waiting (the writer config's `encode_ahead`; otherwise a no-op): a caller about to close
/// several files calls this on each first, so that their last runs are encoded at the same
/// time. `floe_writer_close` waits for it and writes the file closing alone writes. More rows
/// may still be written: the held rows are then a run of their own, which may move where row
/// groups close (the same rows and values).
///
/// # Safety
/// `writer` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_encode_held(
    writer: *mut FloeWriter,
    out_error: *mut *mut c_char,
) -> i32 {
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    report(with_writer(writer, |w| w.encode_held()), out_error)
}

/// Waits until the rows `floe_writer_encode_held` sent away are encoded into the row group in
/// progress, which stays open unless they filled it: `floe_writer_buffered_bytes` then counts their encoded pages
/// instead of their Arrow batches. A caller short of memory calls `floe_writer_encode_held` on
/// every open file, then this on each, before it writes row groups out early. A no-op when
/// nothing is away.
///
/// # Safety
/// `writer` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_await_encoded(
    writer: *mut FloeWriter,
    out_error: *mut *mut c_char,
) -> i32 {
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    report(with_writer(writer, |w| w.await_encoded()), out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    let result = with_writer(writer, |w| {
        if out_summary.is_null() || out_summary_len.is_null() {
            return Err(FloeError::invalid_argument(
                "out_summary and out_summary_len must not be null",
            ));
        }
        // SAFETY: both are writable, per the contract (and checked non-null above).
        let (summary, summary_len) = unsafe {
            (
                out_param(out_summary, "out_summary")?,
                out_param(out_summary_len, "out_summary_len")?,
            )
        };
        let json = w.close()?.to_json().into_boxed_slice();
        summary_len.write(json.len());
        summary.write(Box::into_raw(json) as *mut u8);
        Ok(())
    });
    report(result, out_error)
}

/// Frees a writer. A writer that was not closed is aborted: buffered rows are
/// dropped and a partially written local file is deleted. Null is a no-op.
///
/// # Safety
/// `writer` is null or a handle not yet freed; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn floe_writer_free(writer: *mut FloeWriter) {
    // SAFETY: null or a handle from `Box::into_raw` not yet freed, per the contract.
    unsafe { free_boxed(writer) };
}

/// Frees an error message returned through `out_error`. Null is a no-op.
///
/// # Safety
/// `message` is null or a pointer this library returned and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn floe_string_free(message: *mut c_char) {
    if !message.is_null() {
        // SAFETY: made by `CString::into_raw` (`ErrorOut::set`) and not yet freed, per the
        // contract.
        drop(unsafe { CString::from_raw(message) });
    }
}

/// Frees bytes returned by this library (e.g. a file summary). Null is a no-op.
///
/// # Safety
/// `data`/`len` are exactly a pointer and length this library returned.
#[no_mangle]
pub unsafe extern "C" fn floe_bytes_free(data: *mut u8, len: usize) {
    if !data.is_null() {
        let bytes = std::ptr::slice_from_raw_parts_mut(data, len);
        // SAFETY: `data`/`len` are a boxed slice this library leaked with `Box::into_raw`
        // (summaries, reject lists) and not yet freed, per the contract.
        drop(unsafe { Box::from_raw(bytes) });
    }
}

/// Opaque decoder handle (JSON messages, or Flink binary rows): created by `floe_decoder_new`,
/// freed by `floe_decoder_free`.
pub struct FloeDecoder {
    /// Locked per call, so two threads using one decoder at once (a caller bug)
    /// get an error instead of a race. Uncontended, it costs nanoseconds per batch.
    inner: Mutex<DecoderSlot<MessageDecoder>>,
}

/// What a decoder handle decodes: JSON messages, or Flink binary rows (the decoder config's
/// `flink_rows`), into the same record batches.
enum MessageDecoder {
    Json(Box<JsonDecoder>),
    FlinkRows(FlinkRowDecoder),
}

impl MessageDecoder {
    fn new(schema: Schema, config: &[u8]) -> Result<Self> {
        let mut config = DecoderConfig::from_json(config)?;
        Ok(match config.flink_rows.take() {
            Some(rows) => Self::FlinkRows(FlinkRowDecoder::new(Arc::new(schema), &rows)?),
            None => Self::Json(Box::new(JsonDecoder::new(Arc::new(schema), config)?)),
        })
    }

    fn schema(&self) -> &arrow_schema::SchemaRef {
        match self {
            Self::Json(d) => d.schema(),
            Self::FlinkRows(d) => d.schema(),
        }
    }

    /// Messages `messages`, lying in `span` (see [`JsonDecoder::decode_packed`]).
    fn decode_packed(
        &mut self,
        span: &[u8],
        messages: &[&[u8]],
        stop_at_first_reject: bool,
    ) -> Result<DecodedBatch> {
        match self {
            Self::Json(d) => d.decode_packed(span, messages, stop_at_first_reject),
            Self::FlinkRows(d) => d.decode(messages.iter().copied(), stop_at_first_reject),
        }
    }

    /// The JSON decoder's unknown fields; binary rows have none.
    fn take_unknown_fields(&mut self) -> Vec<crate::json::UnknownField> {
        match self {
            Self::Json(d) => d.take_unknown_fields(),
            Self::FlinkRows(_) => Vec::new(),
        }
    }
}

struct DecoderSlot<D> {
    decoder: D,
    /// Set by a panic during a call: the decoder is failed and refuses later calls.
    failure: Option<String>,
}

impl<D> DecoderSlot<D> {
    /// A new decoder's slot, not failed.
    fn locked(decoder: D) -> Mutex<Self> {
        Mutex::new(Self {
            decoder,
            failure: None,
        })
    }
}

/// What every decoder constructor does: imports the schema, hands the config blob and the schema
/// to `build`, and writes the handle it makes to `*out`; reports the outcome as a status.
///
/// # Safety
/// As the constructors' contracts: `schema` a valid `ArrowSchema` borrowed for the call,
/// `config` readable for `config_len` bytes, `out` writable, `out_error` null or writable.
unsafe fn new_decoder_handle<H>(
    schema: *const FFI_ArrowSchema,
    config: *const u8,
    config_len: usize,
    out: *mut *mut H,
    out_error: *mut *mut c_char,
    build: impl FnOnce(Schema, &[u8]) -> Result<H>,
) -> i32 {
    // SAFETY: null or writable, per this function's contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    let result = run(|| {
        // SAFETY: `out` is writable, per this function's contract.
        let out = unsafe { out_param(out, "out_decoder") }?;
        // SAFETY: `schema` is a valid ArrowSchema borrowed for the call, per this function's contract.
        let schema = import_schema(unsafe { borrowed(schema, "schema") }?)?;
        // SAFETY: `config` is readable for `config_len` bytes, per this function's contract.
        let config = unsafe { bytes(config, config_len, "config") }?;
        out.write(Box::into_raw(Box::new(build(schema, config)?)));
        Ok(())
    });
    report(result, out_error)
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

/// Creates a JSON decoder for a target schema. With `flink_rows` in its config, the decoder
/// reads Flink binary rows of that type instead of JSON (each message one row's bytes).
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
    // SAFETY: the arguments are this function's, under the same contract.
    unsafe {
        new_decoder_handle(
            schema,
            config,
            config_len,
            out_decoder,
            out_error,
            |schema, config| {
                Ok(FloeDecoder {
                    inner: DecoderSlot::locked(MessageDecoder::new(schema, config)?),
                })
            },
        )
    }
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle, per the common contract (concurrent use is caught by
    // the decoder's lock).
    let decoder = unsafe { decoder.as_ref() };
    let result = with_decoder(decoder, |d| {
        if out_array.is_null() || out_schema.is_null() || out_result.is_null() {
            return Err(FloeError::invalid_argument(
                "out_array, out_schema and out_result must not be null",
            ));
        }
        // SAFETY: all three are writable, per the contract (and checked non-null above).
        let (out_array, out_schema, out_result) = unsafe {
            (
                out_param(out_array, "out_array")?,
                out_param(out_schema, "out_schema")?,
                out_param(out_result, "out_result")?,
            )
        };
        // SAFETY: `data`, `offsets` and `count` as `message_slices` needs, per the contract.
        let (span, messages) = unsafe { message_slices(data, data_len, offsets, count) }?;
        let decoded = d.decode_packed(span, &messages, stop_at_first_reject != 0)?;
        let columns = StructArray::from(decoded.batch.clone());
        let ffi_schema = FFI_ArrowSchema::try_from(d.schema().as_ref())
            .map_err(|e| FloeError::encoding(format!("cannot export arrow schema: {e}")))?;
        let ffi_array = FFI_ArrowArray::new(&columns.to_data());
        out_result.write(decode_result(&decoded));
        out_array.write(ffi_array);
        out_schema.write(ffi_schema);
        Ok(())
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle, per the common contract (concurrent use is caught by
    // the decoder's lock).
    let decoder = unsafe { decoder.as_ref() };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let mut writer = unsafe { writer.as_mut() };
    let result = with_decoder(decoder, |d| {
        // SAFETY: `out_result` is writable, per the contract.
        let out_result = unsafe { out_param(out_result, "out_result") }?;
        let w = live_writer(writer.as_deref_mut())?;
        check_same_schema(w.inner.schema(), d.schema())?;
        // SAFETY: `data`, `offsets` and `count` as `message_slices` needs, per the contract.
        let (span, messages) = unsafe { message_slices(data, data_len, offsets, count) }?;
        let decoded = d.decode_packed(span, &messages, stop_at_first_reject != 0)?;
        if !decoded.stopped {
            w.inner.write(&decoded.batch)?;
        }
        out_result.write(decode_result(&decoded));
        Ok(())
    });
    if let Err(e) = &result {
        fail_writer(writer, e);
    }
    report(result, out_error)
}

/// Takes the fields the decoder met since the last call that its schema lacks (counted only
/// with `report_unknown_fields` or `describe_unknown_fields` in its config): a JSON array of
/// `{"path", "kinds", "count"}` objects, or null and 0 when there were none. Described, an
/// unknown field also has `"shape"` and, below the top level, `"parent_id"`; a column whose
/// values needed a wider type is an entry with `"field_id"` and `"widen_to"` instead.
///
/// # Safety
/// - `decoder`: a live handle, used by one thread at a time.
/// - `out_json`/`out_len`: writable; on success they receive bytes **owned by the caller**,
///   freed with `floe_bytes_free(out_json, out_len)` (null and 0 when there is nothing).
#[no_mangle]
pub unsafe extern "C" fn floe_decoder_take_unknown_fields(
    decoder: *mut FloeDecoder,
    out_json: *mut *mut u8,
    out_len: *mut usize,
    out_error: *mut *mut c_char,
) -> i32 {
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle, per the common contract (concurrent use is caught by
    // the decoder's lock).
    let decoder = unsafe { decoder.as_ref() };
    let result = with_decoder(decoder, |d| {
        // SAFETY: both are writable, per the contract (`out_param` checks null).
        let (json_out, len_out) = unsafe {
            (
                out_param(out_json, "out_json")?,
                out_param(out_len, "out_len")?,
            )
        };
        let unknown = d.take_unknown_fields();
        if unknown.is_empty() {
            json_out.write(std::ptr::null_mut());
            len_out.write(0);
            return Ok(());
        }
        let bytes = serde_json::to_vec(&unknown)
            .expect("unknown fields serialize")
            .into_boxed_slice();
        len_out.write(bytes.len());
        json_out.write(Box::into_raw(bytes) as *mut u8);
        Ok(())
    });
    report(result, out_error)
}

/// Frees a decoder. Null is a no-op.
///
/// # Safety
/// `decoder` is null or a handle not yet freed; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn floe_decoder_free(decoder: *mut FloeDecoder) {
    // SAFETY: null or a handle from `Box::into_raw` not yet freed, per the contract.
    unsafe { free_boxed(decoder) };
}

/// Opaque handle of a row-tape decoder (the native half of the `floe-json` Flink format):
/// created by `floe_row_decoder_new`, freed by `floe_row_decoder_free`.
pub struct FloeRowDecoder {
    /// Locked per call, as [`FloeDecoder`]'s.
    inner: Mutex<DecoderSlot<RowTapeDecoder>>,
}

/// `floe_row_decoder_decode`'s status for a message left to Flink's own decoder.
pub const FLOE_ROW_FALLBACK: i64 = -1;

/// Creates a decoder of single messages into row tapes, or into Flink binary rows (see
/// `docs/ffi.md`, "Row tapes").
///
/// # Safety
/// - `schema`: an `ArrowSchema` of a struct (the row's fields), **borrowed**.
/// - `config`/`config_len`: the row decoder config JSON (`version`, `timestamp_format`,
///   `fail_on_missing_field`, optional `binary_rows`), borrowed.
/// - `out_decoder`: receives the new handle, owned by the caller until `floe_row_decoder_free`.
#[no_mangle]
pub unsafe extern "C" fn floe_row_decoder_new(
    schema: *const FFI_ArrowSchema,
    config: *const u8,
    config_len: usize,
    out_decoder: *mut *mut FloeRowDecoder,
    out_error: *mut *mut c_char,
) -> i32 {
    // SAFETY: the arguments are this function's, under the same contract.
    unsafe {
        new_decoder_handle(
            schema,
            config,
            config_len,
            out_decoder,
            out_error,
            |schema, config| {
                let decoder =
                    RowTapeDecoder::with_config(&schema, &RowTapeConfig::from_json(config)?)?;
                Ok(FloeRowDecoder {
                    inner: DecoderSlot::locked(decoder),
                })
            },
        )
    }
}

/// Decodes one message into a row tape (in binary-row mode: a tag byte, then a Flink binary row
/// or the tape), copied to `out_tape` if it fits.
///
/// `*out_status` is the output's length when the message decoded (the output is in `out_tape`
/// only if that length is at most `out_capacity`: otherwise call again with room), or
/// [`FLOE_ROW_FALLBACK`] when the message is left to Flink's own decoder (nothing written).
///
/// Java calls this as a critical downcall with heap access (the message and the tape are Java
/// arrays the GC holds still for the call), so it must stay short, never call back into Java
/// and never block.
///
/// # Safety
/// - `decoder`: a live handle, used by one thread at a time.
/// - `data`/`data_len`: the message, **borrowed** for the call.
/// - `out_tape`: writable for `out_capacity` bytes (may be null when `out_capacity` is 0).
/// - `out_status`: writable.
#[no_mangle]
pub unsafe extern "C" fn floe_row_decoder_decode(
    decoder: *mut FloeRowDecoder,
    data: *const u8,
    data_len: usize,
    out_tape: *mut u8,
    out_capacity: usize,
    out_status: *mut i64,
    out_error: *mut *mut c_char,
) -> i32 {
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle, per the common contract.
    let decoder = unsafe { decoder.as_ref() };
    let result = with_slot(decoder.map(|d| &d.inner), |d| {
        // SAFETY: `data` is readable for `data_len` bytes, per the contract.
        let message = unsafe { bytes(data, data_len, "data") }?;
        // SAFETY: `out_status` is writable, per the contract.
        let status = unsafe { out_param(out_status, "out_status") }?;
        if d.decode(message) == Outcome::Fallback {
            status.write(FLOE_ROW_FALLBACK);
            return Ok(());
        }
        let tape = d.output();
        if tape.len() <= out_capacity {
            // SAFETY: `out_tape` is writable for `out_capacity` bytes, per the contract.
            let out = unsafe { out_slice(out_tape, out_capacity, "out_tape") }?;
            let tape: &[MaybeUninit<u8>] = {
                // SAFETY: initialized bytes are valid `MaybeUninit<u8>`s, same size and alignment.
                unsafe { std::slice::from_raw_parts(tape.as_ptr().cast(), tape.len()) }
            };
            out[..tape.len()].copy_from_slice(tape);
        }
        status.write(tape.len() as i64);
        Ok(())
    });
    report(result, out_error)
}

/// Frees a row decoder. Null is a no-op.
///
/// # Safety
/// `decoder` is null or a handle not yet freed; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn floe_row_decoder_free(decoder: *mut FloeRowDecoder) {
    // SAFETY: null or a handle from `Box::into_raw` not yet freed, per the contract.
    unsafe { free_boxed(decoder) };
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    let result = run(|| {
        // SAFETY: `out_partitioner` is writable, per the contract.
        let out = unsafe { out_param(out_partitioner, "out_partitioner") }?;
        // SAFETY: `schema` is a valid ArrowSchema borrowed for the call, per the contract.
        let schema = Arc::new(import_schema(unsafe { borrowed(schema, "schema") }?)?);
        // SAFETY: `spec` is readable for `spec_len` bytes, per the contract.
        let spec = PartitionSpec::from_json(unsafe { bytes(spec, spec_len, "spec") }?)?;
        let inner = Partitioner::new(&schema, &spec)?;
        out.write(Box::into_raw(Box::new(FloePartitioner { inner, schema })));
        Ok(())
    });
    report(result, out_error)
}

/// Regroups one batch by partition.
///
/// # Safety
/// - `partitioner`: a live handle.
/// - `array`: the batch, **moved** (as for `floe_writer_write`); `schema`: borrowed, not
///   null (checked against the partitioner's).
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // Take ownership first, so the array is released even when the call fails.
    // SAFETY: `array` is null or a valid ArrowArray the caller moves in, per the contract.
    let imported = unsafe { take_array(array) };
    // SAFETY: null or a live handle (common contract); partitioners are immutable, so any
    // number of callers may share one.
    let partitioner = unsafe { partitioner.as_ref() };
    // SAFETY: `schema` is null or a valid ArrowSchema borrowed for the call, per the contract.
    let schema = unsafe { array_schema(schema) };
    let result = run(move || {
        let p = partitioner
            .ok_or_else(|| FloeError::invalid_argument("partitioner must not be null"))?;
        let imported = imported?;
        // SAFETY: `out_*` are writable, per the contract.
        let out = unsafe { SplitOut::new(out_partitions_array, out_partitions_schema, out_batch) }?;
        // SAFETY: `schema` describes the array, per the contract.
        let batch = unsafe { import_batch(imported, schema?, &p.schema) }?;
        out.export(p.inner.split(&batch)?)
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle, per the common contract (concurrent use is caught by
    // the decoder's lock).
    let decoder = unsafe { decoder.as_ref() };
    // SAFETY: null or a live handle (common contract); partitioners are immutable.
    let partitioner = unsafe { partitioner.as_ref() };
    let result = with_decoder(decoder, |d| {
        // SAFETY: `out_result` is writable, per the contract.
        let out_result = unsafe { out_param(out_result, "out_result") }?;
        let p = partitioner
            .ok_or_else(|| FloeError::invalid_argument("partitioner must not be null"))?;
        // SAFETY: `out_*` are writable, per the contract.
        let out = unsafe { SplitOut::new(out_partitions_array, out_partitions_schema, out_batch) }?;
        check_same_schema(&p.schema, d.schema())?;
        // SAFETY: `data`, `offsets` and `count` as `message_slices` needs, per the contract.
        let (span, messages) = unsafe { message_slices(data, data_len, offsets, count) }?;
        let decoded = d.decode_packed(span, &messages, stop_at_first_reject != 0)?;
        let rows = if decoded.stopped {
            decoded.batch.slice(0, 0)
        } else {
            decoded.batch.clone()
        };
        out.export(p.inner.split(&rows)?)?;
        out_result.write(decode_result(&decoded));
        Ok(())
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), used by one caller at a time.
    let writer = unsafe { writer.as_mut() };
    // SAFETY: null or a live handle (common contract), only read here.
    let batch = unsafe { batch.as_ref() };
    let result = with_writer(writer, |w| {
        let batch = batch.ok_or_else(|| FloeError::invalid_argument("batch must not be null"))?;
        let rows = batch.inner.group(group)?;
        if !Arc::ptr_eq(w.schema(), rows.schema_ref()) {
            check_same_schema(w.schema(), rows.schema_ref())?;
        }
        w.write(rows)
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), only read here.
    let batch = unsafe { batch.as_ref() };
    let result = run(|| {
        let batch = batch.ok_or_else(|| FloeError::invalid_argument("batch must not be null"))?;
        let groups = batch.inner.len();
        if capacity != groups {
            return Err(FloeError::invalid_argument(format!(
                "out_rows must hold exactly {groups} group counts (capacity {capacity})"
            )));
        }
        // SAFETY: `out_rows` is writable for `capacity` values, per the contract.
        let out = unsafe { out_slice(out_rows, capacity, "out_rows") }?;
        for (slot, (_, rows)) in out.iter_mut().zip(&batch.inner.ranges) {
            slot.write(*rows as i64);
        }
        Ok(())
    });
    report(result, out_error)
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
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    // SAFETY: null or a live handle (common contract), only read here.
    let batch = unsafe { batch.as_ref() };
    let result = run(|| {
        let batch = batch.ok_or_else(|| FloeError::invalid_argument("batch must not be null"))?;
        let rows = batch.inner.num_rows();
        if capacity != rows {
            return Err(FloeError::invalid_argument(format!(
                "out_order must hold exactly {rows} row indices (capacity {capacity})"
            )));
        }
        // SAFETY: `out_order` is writable for `capacity` values, per the contract.
        let out = unsafe { out_slice(out_order, capacity, "out_order") }?;
        for (row, slot) in out.iter_mut().enumerate() {
            let input = batch.inner.order.as_ref().map_or(row, |o| o[row] as usize);
            slot.write(input as i32);
        }
        Ok(())
    });
    report(result, out_error)
}

/// Frees a regrouped batch. Null is a no-op.
///
/// # Safety
/// `batch` is null or a handle not yet freed; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn floe_partitioned_batch_free(batch: *mut FloePartitionedBatch) {
    // SAFETY: null or a handle from `Box::into_raw` not yet freed, per the contract.
    unsafe { free_boxed(batch) };
}

/// Frees a partitioner. Null is a no-op.
///
/// # Safety
/// `partitioner` is null or a handle not yet freed, and no call on it is running.
#[no_mangle]
pub unsafe extern "C" fn floe_partitioner_free(partitioner: *mut FloePartitioner) {
    // SAFETY: null or a handle from `Box::into_raw` not yet freed, per the contract.
    unsafe { free_boxed(partitioner) };
}

/// Test hook, only in builds with the `test-hooks` feature (and this crate's own tests), never
/// in the released library, and not in `floe.h`: panics inside the boundary guard, to prove
/// a panic becomes an error status (code 6) and never unwinds into the caller.
///
/// # Safety
/// `message` is null or NUL-terminated UTF-8.
#[cfg(any(test, feature = "test-hooks"))]
#[no_mangle]
pub unsafe extern "C" fn floe_debug_panic(
    message: *const c_char,
    out_error: *mut *mut c_char,
) -> i32 {
    // SAFETY: null or writable, per the module's common contract.
    let out_error = unsafe { ErrorOut::new(out_error) };
    let result = run(|| {
        let text = if message.is_null() {
            "floe_debug_panic"
        } else {
            // SAFETY: NUL-terminated and readable for the call, per the contract.
            unsafe { c_str(message, "message") }?
        };
        panic!("{text}");
    });
    report(result, out_error)
}

// ---- guards: every entry point's body runs in one of these ----

/// Runs `body`, turning a panic into an error (`Panic`): nothing unwinds into the caller.
fn run(body: impl FnOnce() -> Result<()>) -> Result<()> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        Err(FloeError::new(
            ErrorCode::Panic,
            format!("internal panic in libfloe: {}", panic_message(&*payload)),
        ))
    })
}

/// The status for a result, with the error's message handed to the caller.
fn report(result: Result<()>, out_error: ErrorOut) -> i32 {
    match result {
        Ok(()) => ErrorCode::Ok as i32,
        Err(e) => {
            out_error.set(&e.message);
            e.code as i32
        }
    }
}

/// [`run`] for calls on a writer handle: refuses a null or failed writer, and fails the
/// writer when the call fails part way ([`fail_writer`]).
fn with_writer(
    mut writer: Option<&mut FloeWriter>,
    body: impl FnOnce(&mut ParquetFileWriter) -> Result<()>,
) -> Result<()> {
    let result = run(|| body(&mut live_writer(writer.as_deref_mut())?.inner));
    if let Err(e) = &result {
        fail_writer(writer, e);
    }
    result
}

/// The writer behind a handle, unless it is null or failed.
fn live_writer(writer: Option<&mut FloeWriter>) -> Result<&mut FloeWriter> {
    let handle = writer.ok_or_else(|| FloeError::invalid_argument("writer must not be null"))?;
    if let Some(reason) = handle.inner.failure() {
        return Err(FloeError::illegal_state(format!(
            "writer failed earlier: {reason}"
        )));
    }
    Ok(handle)
}

/// After a writer call failed with `error`: an error that fails writers (see
/// [`ErrorCode::fails_writer`]) moves the writer to its failed state, which drops its buffered
/// batches (their release callbacks run) and deletes an incomplete file -- inside a panic
/// guard of its own, as neither may unwind into the caller.
fn fail_writer(writer: Option<&mut FloeWriter>, error: &FloeError) {
    if let Some(handle) = writer.filter(|_| error.code.fails_writer()) {
        let _ = catch_unwind(AssertUnwindSafe(|| handle.inner.fail(&error.message)));
    }
}

/// [`run`] for calls on a decoder handle: null checks, concurrent-use detection, and the
/// failed state after a panic.
fn with_decoder(
    decoder: Option<&FloeDecoder>,
    body: impl FnOnce(&mut MessageDecoder) -> Result<()>,
) -> Result<()> {
    with_slot(decoder.map(|d| &d.inner), body)
}

/// Runs `body` on a decoder in its slot: one caller at a time, none after a panic failed it.
fn with_slot<D>(
    slot: Option<&Mutex<DecoderSlot<D>>>,
    body: impl FnOnce(&mut D) -> Result<()>,
) -> Result<()> {
    let decoder = slot;
    let result = run(|| {
        let handle =
            decoder.ok_or_else(|| FloeError::invalid_argument("decoder must not be null"))?;
        let mut slot = match handle.try_lock() {
            Ok(slot) => slot,
            Err(TryLockError::WouldBlock) => {
                return Err(FloeError::illegal_state(
                    "decoder is in use by another thread; use one decoder per thread",
                ))
            }
            // Only a panic poisons the lock, and a panic fails the decoder (below).
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
        };
        if let Some(reason) = &slot.failure {
            return Err(FloeError::illegal_state(format!(
                "decoder failed earlier: {reason}"
            )));
        }
        body(&mut slot.decoder)
    });
    if let (Err(e), Some(handle)) = (&result, decoder) {
        if e.code == ErrorCode::Panic {
            // A panic may have left the decoder's buffers anywhere: it refuses later calls.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                let mut slot = handle.lock().unwrap_or_else(PoisonError::into_inner);
                slot.failure.get_or_insert_with(|| e.message.clone());
            }));
        }
    }
    result
}

// ---- helpers: pointers in, values out ----

/// Where an entry point reports its error message: the caller's `out_error`, unless null.
struct ErrorOut<'a>(Option<&'a mut MaybeUninit<*mut c_char>>);

impl ErrorOut<'_> {
    /// # Safety
    /// `out_error` is null or writable for one `char *` until the entry point returns.
    unsafe fn new(out_error: *mut *mut c_char) -> Self {
        // SAFETY: null or writable, per this function's contract; `as_mut` checks null.
        Self(unsafe { out_error.cast::<MaybeUninit<*mut c_char>>().as_mut() })
    }

    /// Hands `message` to the caller (who frees it with `floe_string_free`). Never panics: a
    /// NUL inside the message is escaped.
    fn set(self, message: &str) {
        if let Some(slot) = self.0 {
            let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
            slot.write(text.into_raw());
        }
    }
}

fn null_argument(name: &str) -> FloeError {
    FloeError::invalid_argument(format!("{name} must not be null"))
}

/// `ptr` as a reference for the call; an `InvalidArgument` naming it when it is null.
///
/// # Safety
/// `ptr` is null or points to a valid `T` that nothing writes to while `'a` lasts.
unsafe fn borrowed<'a, T>(ptr: *const T, name: &str) -> Result<&'a T> {
    // SAFETY: null or valid, per this function's contract; `as_ref` checks null.
    unsafe { ptr.as_ref() }.ok_or_else(|| null_argument(name))
}

/// A caller-allocated out-parameter, written without reading or dropping what it held; an
/// `InvalidArgument` naming it when it is null.
///
/// # Safety
/// `ptr` is null or valid for writing one `T`, and nothing else accesses it while `'a` lasts.
unsafe fn out_param<'a, T>(ptr: *mut T, name: &str) -> Result<&'a mut MaybeUninit<T>> {
    // SAFETY: null or writable, per this function's contract; `as_mut` checks null, and a
    // `MaybeUninit` may refer to memory that holds no valid `T` yet.
    unsafe { ptr.cast::<MaybeUninit<T>>().as_mut() }.ok_or_else(|| null_argument(name))
}

/// [`out_param`] for `len` values; null is fine for none.
///
/// # Safety
/// `ptr` is null or valid for writing `len` values of `T`, and nothing else accesses them
/// while `'a` lasts.
unsafe fn out_slice<'a, T>(
    ptr: *mut T,
    len: usize,
    name: &str,
) -> Result<&'a mut [MaybeUninit<T>]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(null_argument(name));
    }
    // SAFETY: non-null and writable for `len` values, per this function's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<MaybeUninit<T>>(), len) })
}

/// # Safety
/// `ptr` is null or NUL-terminated and readable up to its NUL while `'a` lasts.
unsafe fn c_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(null_argument(name));
    }
    // SAFETY: non-null, NUL-terminated and readable, per this function's contract.
    unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| FloeError::invalid_argument(format!("{name} is not valid UTF-8")))
}

/// # Safety
/// `ptr` is null or readable for `len` bytes that nothing writes to while `'a` lasts.
unsafe fn bytes<'a>(ptr: *const u8, len: usize, name: &str) -> Result<&'a [u8]> {
    match (ptr.is_null(), len) {
        (_, 0) => Ok(&[]),
        (true, _) => Err(FloeError::invalid_argument(format!(
            "{name} is null but its length is {len}"
        ))),
        // SAFETY: non-null and readable for `len` bytes, per this function's contract.
        (false, _) => Ok(unsafe { std::slice::from_raw_parts(ptr, len) }),
    }
}

/// Takes over an `ArrowArray` the caller moves in; the caller's struct is marked released.
/// A null pointer, or a struct already released (its buffers may be freed: reading them would
/// crash the process), is an invalid argument.
///
/// # Safety
/// `array` is null or points to a C Data `ArrowArray` struct the caller hands over.
unsafe fn take_array(array: *mut FFI_ArrowArray) -> Result<FFI_ArrowArray> {
    // SAFETY: null or a readable ArrowArray struct, per this function's contract.
    match unsafe { array.as_ref() } {
        None => Err(FloeError::invalid_argument("array must not be null")),
        Some(a) if a.is_released() => Err(FloeError::invalid_argument(
            "array was already released (moved to an earlier call, or freed)",
        )),
        // SAFETY: non-null, not released: a valid array the caller moves in.
        Some(_) => Ok(unsafe { FFI_ArrowArray::from_raw(array) }),
    }
}

/// The schema a moved-in array is described by: required, since libfloe sizes the array's
/// buffers by its types, and an array whose types differ would be read past its end.
///
/// # Safety
/// `schema` is null or a valid `ArrowSchema` borrowed for the call.
unsafe fn array_schema<'a>(schema: *const FFI_ArrowSchema) -> Result<&'a FFI_ArrowSchema> {
    // SAFETY: null or a valid ArrowSchema, per this function's contract.
    unsafe { schema.as_ref() }.ok_or_else(|| FloeError::invalid_argument("schema must not be null"))
}

/// Drops a handle made by `Box::into_raw`; null is a no-op. A panic in a destructor is
/// swallowed: freeing must never unwind into the caller.
///
/// # Safety
/// `handle` is null or came from `Box::into_raw` and is not yet freed; it is invalid afterwards.
unsafe fn free_boxed<T>(handle: *mut T) {
    if !handle.is_null() {
        // SAFETY: from `Box::into_raw` and freed only now, per this function's contract.
        let boxed = unsafe { Box::from_raw(handle) };
        let _ = catch_unwind(AssertUnwindSafe(|| drop(boxed)));
    }
}

/// The messages of a packed batch, checked against the buffer's bounds, and the part of the
/// buffer they cover (back to back: message `i` ends where `i + 1` starts).
///
/// # Safety
/// `data` is null or readable for `data_len` bytes and `offsets` null or readable for
/// `count + 1` values, neither written to while `'a` lasts.
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
    // SAFETY: readable for `data_len` bytes, per this function's contract.
    let data = unsafe { bytes(data, data_len, "data") }?;
    // SAFETY: non-null and readable for `count + 1` values, per this function's contract.
    let offsets = unsafe { std::slice::from_raw_parts(offsets, count + 1) };
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

/// The out-parameters of a split: the partition values through C Data, the rows as a handle.
struct SplitOut<'a> {
    partitions_array: &'a mut MaybeUninit<FFI_ArrowArray>,
    partitions_schema: &'a mut MaybeUninit<FFI_ArrowSchema>,
    batch: &'a mut MaybeUninit<*mut FloePartitionedBatch>,
}

impl SplitOut<'_> {
    /// # Safety
    /// Each pointer is null or writable for one value of its type, as for [`out_param`].
    unsafe fn new(
        partitions_array: *mut FFI_ArrowArray,
        partitions_schema: *mut FFI_ArrowSchema,
        batch: *mut *mut FloePartitionedBatch,
    ) -> Result<Self> {
        if partitions_array.is_null() || partitions_schema.is_null() || batch.is_null() {
            return Err(FloeError::invalid_argument(
                "out_partitions_array, out_partitions_schema and out_batch must not be null",
            ));
        }
        // SAFETY: each is writable, per this function's contract (and non-null, checked above).
        unsafe {
            Ok(Self {
                partitions_array: out_param(partitions_array, "out_partitions_array")?,
                partitions_schema: out_param(partitions_schema, "out_partitions_schema")?,
                batch: out_param(batch, "out_batch")?,
            })
        }
    }

    /// Hands a split batch to the caller.
    fn export(self, split: PartitionedBatch) -> Result<()> {
        let ffi_schema = FFI_ArrowSchema::try_from(split.partitions.data_type())
            .map_err(|e| FloeError::encoding(format!("cannot export partition schema: {e}")))?;
        let ffi_array = FFI_ArrowArray::new(&split.partitions.to_data());
        self.partitions_array.write(ffi_array);
        self.partitions_schema.write(ffi_schema);
        self.batch
            .write(Box::into_raw(Box::new(FloePartitionedBatch {
                inner: split,
            })));
        Ok(())
    }
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

/// # Safety
/// `schema` is null or a valid ArrowSchema borrowed for the call, `config` null or readable
/// for `config_len` bytes, `out_writer` null or writable for one pointer.
unsafe fn open_writer(
    sink: OutputSink,
    schema: *const FFI_ArrowSchema,
    config: *const u8,
    config_len: usize,
    out_writer: *mut *mut FloeWriter,
) -> Result<()> {
    // SAFETY: all three as this function's contract says.
    let (out, schema, config) = unsafe {
        (
            out_param(out_writer, "out_writer")?,
            borrowed(schema, "schema")?,
            bytes(config, config_len, "config")?,
        )
    };
    let schema = import_schema(schema)?;
    let config = WriterConfig::from_json(config)?;
    let inner = ParquetFileWriter::open(sink, Arc::new(schema), &config)?;
    out.write(Box::into_raw(Box::new(FloeWriter { inner })));
    Ok(())
}

fn import_schema(schema: &FFI_ArrowSchema) -> Result<Schema> {
    Schema::try_from(schema)
        .map_err(|e| FloeError::invalid_argument(format!("cannot import arrow schema: {e}")))
}

/// Checks that `array` has as many children as `schema` at every level, and a dictionary
/// where the schema has one: arrow-rs's import asserts these (a panic, which fails the writer)
/// where the caller's mistake should be an invalid argument.
fn check_children(array: &FFI_ArrowArray, schema: &FFI_ArrowSchema, path: &str) -> Result<()> {
    let expected = schema.children().count();
    if array.num_children() != expected {
        return Err(FloeError::invalid_argument(format!(
            "{path} has {} child arrays where its schema has {expected}",
            array.num_children()
        )));
    }
    for (i, child_schema) in schema.children().enumerate() {
        let name = child_schema.name().unwrap_or("");
        check_children(array.child(i), child_schema, &format!("{path}.{name}"))?;
    }
    match (array.dictionary(), schema.dictionary()) {
        (Some(values), Some(values_schema)) => {
            check_children(values, values_schema, &format!("{path} (dictionary)"))
        }
        (None, None) => Ok(()),
        _ => Err(FloeError::invalid_argument(format!(
            "{path}: its array and its schema disagree on a dictionary"
        ))),
    }
}

/// Builds a record batch from a moved struct array, checking it against `target`, the
/// writer's (or partitioner's) schema, which the batch takes (its field ids).
///
/// # Safety
/// `array` is a valid C Data array described by `schema`.
unsafe fn import_batch(
    array: FFI_ArrowArray,
    schema: &FFI_ArrowSchema,
    target: &Arc<Schema>,
) -> Result<RecordBatch> {
    check_same_schema(target, &import_schema(schema)?)?;
    check_children(&array, schema, "the batch")?;
    // SAFETY: `schema` describes `array`, per this function's contract.
    let data = unsafe { from_ffi(array, schema) }
        .map_err(|e| FloeError::invalid_argument(format!("cannot import arrow array: {e}")))?;
    if !matches!(data.data_type(), DataType::Struct(_)) {
        return Err(FloeError::invalid_argument(format!(
            "a batch must be a struct array of columns, got {}",
            data.data_type()
        )));
    }
    data.validate()
        .map_err(|e| FloeError::invalid_argument(format!("invalid arrow array: {e}")))?;
    validate_columns(&data, target)?;
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
        target.clone(),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(num_rows)),
    )
    .map_err(|e| FloeError::schema_mismatch(format!("batch does not fit the writer schema: {e}")))
}

/// Checks every column's values the way [`ArrayData::validate_full`] does: offsets in bounds and
/// never going backwards, strings UTF-8. `validate` checks only buffer sizes and first and last
/// offsets, and arrays from Java carry whatever bytes their caller put there (Arrow Java's
/// `VarCharVector` takes any bytes), which libfloe must not read as strings.
fn validate_columns(data: &ArrayData, target: &Schema) -> Result<()> {
    for (field, column) in target.fields().iter().zip(data.child_data()) {
        column.validate_full().map_err(|e| {
            FloeError::invalid_argument(format!(
                "invalid arrow array in column '{}': {e}",
                field.name()
            ))
        })?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use std::ptr;

    use arrow_array::{Int64Array, RecordBatch};
    use arrow_schema::Field;

    use super::*;

    fn take_error(err: *mut c_char) -> String {
        assert!(!err.is_null(), "an error message was set");
        // SAFETY: a message this library just returned, freed right after.
        let text = unsafe { CStr::from_ptr(err) }.to_str().unwrap().to_string();
        // SAFETY: as above, freed once.
        unsafe { floe_string_free(err) };
        text
    }

    fn schema() -> Arc<Schema> {
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]))
    }

    fn batch() -> RecordBatch {
        RecordBatch::try_new(schema(), vec![Arc::new(Int64Array::from(vec![1, 2, 3]))]).unwrap()
    }

    #[test]
    fn a_panic_is_an_error_status() {
        let msg = CString::new("kaboom").unwrap();
        let mut err = ptr::null_mut();
        // SAFETY: a NUL-terminated message and a writable error slot.
        let status = unsafe { floe_debug_panic(msg.as_ptr(), &mut err) };
        assert_eq!(status, ErrorCode::Panic as i32);
        assert_eq!(take_error(err), "internal panic in libfloe: kaboom");
    }

    #[test]
    fn a_panic_fails_the_writer_and_removes_its_file() {
        let dir = std::env::temp_dir().join(format!("floe-ffi-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("panicked.parquet");
        let inner = ParquetFileWriter::open(
            OutputSink::Path(path.clone()),
            schema(),
            &WriterConfig::default(),
        )
        .unwrap();
        let mut handle = FloeWriter { inner };
        with_writer(Some(&mut handle), |w| w.write(&batch())).unwrap();
        assert!(path.exists());

        let panicked = with_writer(Some(&mut handle), |_| panic!("kaboom")).unwrap_err();
        assert_eq!(panicked.code, ErrorCode::Panic);
        assert!(!path.exists(), "the incomplete file is gone at once");
        for refused in [
            with_writer(Some(&mut handle), |w| w.write(&batch())),
            with_writer(Some(&mut handle), |w| w.close().map(|_| ())),
            with_writer(Some(&mut handle), |w| w.flush_row_group()),
        ] {
            let refused = refused.unwrap_err();
            assert_eq!(refused.code, ErrorCode::IllegalState);
            assert_eq!(
                refused.message,
                "writer failed earlier: internal panic in libfloe: kaboom"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_refused_call_leaves_the_writer_usable() {
        let inner = ParquetFileWriter::open(
            OutputSink::Stream(Box::new(io::sink())),
            schema(),
            &WriterConfig::default(),
        )
        .unwrap();
        let mut handle = FloeWriter { inner };
        for code in [ErrorCode::InvalidArgument, ErrorCode::SchemaMismatch] {
            let error = with_writer(Some(&mut handle), |_| Err(FloeError::new(code, "no")));
            assert_eq!(error.unwrap_err().code, code);
        }
        with_writer(Some(&mut handle), |w| w.write(&batch())).unwrap();
        let failed = with_writer(Some(&mut handle), |_| Err(FloeError::encoding("broke")));
        assert_eq!(failed.unwrap_err().message, "broke");
        let refused = with_writer(Some(&mut handle), |w| w.write(&batch())).unwrap_err();
        assert_eq!(refused.message, "writer failed earlier: broke");
    }

    #[test]
    fn a_panic_fails_the_decoder() {
        let decoder = FloeDecoder {
            inner: Mutex::new(DecoderSlot {
                decoder: MessageDecoder::Json(Box::new(
                    JsonDecoder::new(schema(), DecoderConfig::default()).unwrap(),
                )),
                failure: None,
            }),
        };
        let message = &b"{\"id\": 1}"[..];
        let decode =
            |d: &mut MessageDecoder| d.decode_packed(message, &[message], false).map(|_| ());
        with_decoder(Some(&decoder), decode).unwrap();
        let panicked = with_decoder(Some(&decoder), |_| panic!("kaboom")).unwrap_err();
        assert_eq!(panicked.code, ErrorCode::Panic);
        let refused = with_decoder(Some(&decoder), decode).unwrap_err();
        assert_eq!(refused.code, ErrorCode::IllegalState);
        assert_eq!(
            refused.message,
            "decoder failed earlier: internal panic in libfloe: kaboom"
        );
    }
}
