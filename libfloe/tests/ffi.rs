//! The C ABI guards: null pointers, schema mismatches, failed writers and use after
//! close come back as status codes with messages, never as crashes or unwinding.

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;
use std::sync::Arc;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, Int64Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Schema};
use floe::ffi::*;
use floe::ErrorCode;

fn take_error(err: *mut c_char) -> String {
    assert!(!err.is_null(), "an error message was set");
    let text = unsafe { CStr::from_ptr(err) }.to_str().unwrap().to_string();
    unsafe { floe_string_free(err) };
    text
}

fn schema(name: &str) -> Schema {
    Schema::new(vec![Field::new(name, DataType::Int64, true)])
}

fn struct_array(name: &str, values: Vec<i64>) -> (FFI_ArrowArray, FFI_ArrowSchema) {
    let batch = RecordBatch::try_new(
        Arc::new(schema(name)),
        vec![Arc::new(Int64Array::from(values))],
    )
    .unwrap();
    let array = StructArray::from(batch);
    let data = array.to_data();
    (
        FFI_ArrowArray::new(&data),
        FFI_ArrowSchema::try_from(data.data_type()).unwrap(),
    )
}

/// A struct array of two columns, "price" and "extra", and its schema.
fn two_columns() -> (FFI_ArrowArray, FFI_ArrowSchema) {
    let columns = Schema::new(vec![
        Field::new("price", DataType::Int64, true),
        Field::new("extra", DataType::Int64, true),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(columns),
        vec![
            Arc::new(Int64Array::from(vec![7])),
            Arc::new(Int64Array::from(vec![8])),
        ],
    )
    .unwrap();
    let data = StructArray::from(batch).to_data();
    (
        FFI_ArrowArray::new(&data),
        FFI_ArrowSchema::try_from(data.data_type()).unwrap(),
    )
}

fn open(path: &std::path::Path) -> *mut FloeWriter {
    let ffi_schema = FFI_ArrowSchema::try_from(schema("price")).unwrap();
    let c_path = CString::new(path.to_str().unwrap()).unwrap();
    let mut writer = ptr::null_mut();
    let mut err = ptr::null_mut();
    let status = unsafe {
        floe_writer_open_path(
            c_path.as_ptr(),
            &ffi_schema,
            ptr::null(),
            0,
            &mut writer,
            &mut err,
        )
    };
    assert_eq!(status, 0);
    assert!(err.is_null());
    writer
}

#[test]
fn abi_version_is_exported() {
    assert_eq!(floe_abi_version(), FLOE_ABI_VERSION);
}

// A panic at the boundary (`floe_debug_panic`, a test hook) is tested in `src/ffi.rs`: the hook
// is compiled into this crate's own tests and the `test-hooks` build, not into the library
// these tests link.

#[test]
fn null_pointers_are_invalid_arguments() {
    let mut err = ptr::null_mut();
    let mut writer = ptr::null_mut();
    let status = unsafe {
        floe_writer_open_path(
            ptr::null(),
            ptr::null(),
            ptr::null(),
            0,
            &mut writer,
            &mut err,
        )
    };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    assert!(take_error(err).contains("path"));
    assert!(writer.is_null());

    let status =
        unsafe { floe_writer_write(ptr::null_mut(), ptr::null_mut(), ptr::null(), &mut err) };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    take_error(err);
    // A null out_error is allowed: the status alone reports the failure.
    let status = unsafe {
        floe_writer_write(
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    let mut bytes = 0u64;
    let status = unsafe { floe_writer_buffered_bytes(ptr::null_mut(), &mut bytes, &mut err) };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    assert!(take_error(err).contains("writer"));
    let status = unsafe { floe_writer_flush_row_group(ptr::null_mut(), &mut err) };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    assert!(take_error(err).contains("writer"));
    unsafe { floe_writer_free(ptr::null_mut()) };
}

#[test]
fn write_moves_the_array_and_checks_the_schema() {
    let dir = std::env::temp_dir().join(format!("floe-ffi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let writer = open(&dir.join("a.parquet"));
    let mut err = ptr::null_mut();

    let (mut array, ffi_schema) = struct_array("cost", vec![1, 2]);
    let status = unsafe { floe_writer_write(writer, &mut array, &ffi_schema, &mut err) };
    assert_eq!(status, ErrorCode::SchemaMismatch as i32);
    assert!(take_error(err).contains("'cost'"));
    assert!(
        array.is_released(),
        "the array is moved even when the write fails"
    );

    let (mut array, ffi_schema) = struct_array("price", vec![1, 2]);
    let status = unsafe { floe_writer_write(writer, &mut array, &ffi_schema, &mut err) };
    assert_eq!(status, 0);
    assert!(array.is_released());

    // The same struct again: released, so refused by name, and the writer goes on (before, a
    // panic that failed the writer; a struct released by its producer was read after free)
    let status = unsafe { floe_writer_write(writer, &mut array, &ffi_schema, &mut err) };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    assert!(take_error(err).contains("already released"));
    // More child arrays than its schema says: refused by name, and the writer goes on
    // (before, an assertion in arrow-rs's import: a caught panic that failed the writer)
    let (mut array, ffi_schema) = two_columns();
    let one_column = FFI_ArrowSchema::try_from(DataType::Struct(schema("price").fields)).unwrap();
    let status = unsafe { floe_writer_write(writer, &mut array, &one_column, &mut err) };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    assert!(take_error(err).contains("has 2 child arrays where its schema has 1"));
    assert!(array.is_released(), "moved even when refused");
    drop(ffi_schema);
    // Without its schema: refused (the writer's types would size another array's buffers)
    let (mut array, _) = struct_array("price", vec![3]);
    let status = unsafe { floe_writer_write(writer, &mut array, ptr::null(), &mut err) };
    assert_eq!(status, ErrorCode::InvalidArgument as i32);
    assert!(take_error(err).contains("schema must not be null"));
    assert!(array.is_released(), "moved even when refused");

    let (mut summary, mut len) = (ptr::null_mut(), 0usize);
    let status = unsafe { floe_writer_close(writer, &mut summary, &mut len, &mut err) };
    assert_eq!(status, 0);
    let json = unsafe { std::slice::from_raw_parts(summary, len) };
    let doc: serde_json::Value = serde_json::from_slice(json).unwrap();
    assert_eq!(doc["num_rows"], 2);
    unsafe { floe_bytes_free(summary, len) };

    let status = unsafe { floe_writer_close(writer, &mut summary, &mut len, &mut err) };
    assert_eq!(status, ErrorCode::IllegalState as i32);
    assert!(take_error(err).contains("closed"));
    unsafe { floe_writer_free(writer) };
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An output callback that refuses every byte, like a full disk.
unsafe extern "C" fn refuse(_context: *mut c_void, _data: *const u8, _len: usize) -> i32 {
    1
}

/// Values that do not compress, so a batch's pages pass the writer's 1 MiB output buffer.
fn noise(rows: usize) -> Vec<i64> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..rows)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i64
        })
        .collect()
}

#[test]
fn a_writer_whose_output_failed_refuses_every_later_call() {
    let ffi_schema = FFI_ArrowSchema::try_from(schema("price")).unwrap();
    let mut writer = ptr::null_mut();
    let mut err = ptr::null_mut();
    let status = unsafe {
        floe_writer_open_stream(
            Some(refuse),
            ptr::null_mut(),
            &ffi_schema,
            ptr::null(),
            0,
            &mut writer,
            &mut err,
        )
    };
    assert_eq!(status, 0);

    // A schema mismatch refuses the batch up front: the writer stays usable.
    let (mut array, batch_schema) = struct_array("cost", vec![1]);
    let status = unsafe { floe_writer_write(writer, &mut array, &batch_schema, &mut err) };
    assert_eq!(status, ErrorCode::SchemaMismatch as i32);
    take_error(err);

    let (mut array, batch_schema) = struct_array("price", noise(400_000));
    let status = unsafe { floe_writer_write(writer, &mut array, &batch_schema, &mut err) };
    assert_eq!(status, 0);
    let status = unsafe { floe_writer_flush_row_group(writer, &mut err) };
    assert_eq!(status, ErrorCode::Io as i32);
    let first = take_error(err);
    assert!(first.contains("output callback failed"), "{first}");

    // Failed: every call is refused with the first failure, before touching the file.
    let expected = format!("writer failed earlier: {first}");
    let (mut array, batch_schema) = struct_array("price", vec![1, 2]);
    let status = unsafe { floe_writer_write(writer, &mut array, &batch_schema, &mut err) };
    assert_eq!(status, ErrorCode::IllegalState as i32);
    assert_eq!(take_error(err), expected);
    assert!(array.is_released(), "a refused array is still taken over");
    let mut bytes = 0u64;
    let status = unsafe { floe_writer_buffered_bytes(writer, &mut bytes, &mut err) };
    assert_eq!(status, ErrorCode::IllegalState as i32);
    assert_eq!(take_error(err), expected);
    let (mut summary, mut len) = (ptr::null_mut(), 0usize);
    let status = unsafe { floe_writer_close(writer, &mut summary, &mut len, &mut err) };
    assert_eq!(status, ErrorCode::IllegalState as i32);
    assert_eq!(take_error(err), expected);
    assert!(summary.is_null());
    unsafe { floe_writer_free(writer) };
}
