//! The safe writer API: round trip through parquet-rs's reader, footer facts,
//! row-group sizing, schema checks and lifecycle.

mod common;

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use arrow_select::concat::concat_batches;
use bytes::Bytes;
use common::{with_id, SharedBuffer};
use floe::{ErrorCode, OutputSink, ParquetFileWriter, WriterConfig};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn schema() -> SchemaRef {
    let element = with_id(Field::new("element", DataType::Int64, true), 4);
    Arc::new(Schema::new(vec![
        with_id(Field::new("id", DataType::Int64, false), 1),
        with_id(Field::new("name", DataType::Utf8, true), 2),
        with_id(
            Field::new("tags", DataType::List(Arc::new(element)), true),
            3,
        ),
    ]))
}

fn batch(schema: &SchemaRef, start: i64, rows: usize) -> RecordBatch {
    let ids = Int64Array::from_iter_values(start..start + rows as i64);
    let mut names = StringBuilder::new();
    let element = schema.field(2).data_type().clone();
    let DataType::List(element) = element else {
        unreachable!()
    };
    let mut tags = ListBuilder::new(Int64Builder::new()).with_field(element);
    for i in 0..rows {
        if i % 5 == 0 {
            names.append_null();
            tags.append_null();
        } else {
            names.append_value(format!("name-{}", start + i as i64));
            tags.values().append_value(i as i64);
            tags.values().append_null();
            tags.append(true);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(names.finish()),
        Arc::new(tags.finish()),
    ];
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

fn write(config: &WriterConfig, batches: &[RecordBatch]) -> (Bytes, floe::FileSummary) {
    common::write_in_memory(schema(), config, batches)
}

#[test]
fn batches_round_trip_exactly() {
    let schema = schema();
    let batches = vec![
        batch(&schema, 0, 100),
        batch(&schema, 100, 0),
        batch(&schema, 100, 37),
    ];
    let (bytes, summary) = write(&WriterConfig::default(), &batches);
    assert_eq!(summary.num_rows, 137);
    assert_eq!(summary.file_size, bytes.len() as u64);

    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .build()
        .unwrap();
    assert_same_rows(&schema, &batches, reader.map(|b| b.unwrap()).collect());
}

/// The rows read back equal the rows written, column by column.
fn assert_same_rows(schema: &SchemaRef, written: &[RecordBatch], read: Vec<RecordBatch>) {
    let expected = concat_batches(schema, written).unwrap();
    let actual = concat_batches(&read[0].schema(), &read).unwrap();
    for c in 0..schema.fields().len() {
        assert_eq!(
            expected.column(c).to_data(),
            actual.column(c).to_data(),
            "column {c}"
        );
    }
}

/// A writer with the default config into `buffer`.
fn stream_writer(schema: &SchemaRef, buffer: &SharedBuffer) -> ParquetFileWriter {
    ParquetFileWriter::open(
        OutputSink::Stream(Box::new(buffer.clone())),
        schema.clone(),
        &WriterConfig::default(),
    )
    .unwrap()
}

#[test]
fn flushing_a_row_group_frees_its_memory_and_keeps_every_row() {
    let schema = schema();
    let buffer = SharedBuffer::default();
    let mut writer = stream_writer(&schema, &buffer);
    assert_eq!(
        writer.buffered_bytes(),
        0,
        "nothing buffered before the first row"
    );
    writer.flush_row_group().unwrap(); // a no-op before the first row
    let batches = vec![batch(&schema, 0, 3000), batch(&schema, 3000, 2000)];
    writer.write(&batches[0]).unwrap();
    let buffered = writer.buffered_bytes();
    assert!(buffered > 0, "the first batch is held or encoded in memory");
    writer.flush_row_group().unwrap();
    assert!(
        writer.buffered_bytes() < buffered,
        "flushing frees what was buffered: {} of {buffered} left",
        writer.buffered_bytes()
    );
    writer.write(&batches[1]).unwrap();
    let summary = writer.close().unwrap();
    assert_eq!(summary.num_rows, 5000);
    let bytes = Bytes::from(buffer.0.lock().unwrap().clone());
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
    assert_eq!(
        builder.metadata().num_row_groups(),
        2,
        "the flush closed a row group"
    );
    assert_same_rows(
        &schema,
        &batches,
        builder.build().unwrap().map(|b| b.unwrap()).collect(),
    );
}

#[test]
fn summary_reports_field_ids_counts_and_bounds() {
    let schema = schema();
    let (_, summary) = write(&WriterConfig::default(), &[batch(&schema, 10, 50)]);
    let rg = &summary.row_groups[0];
    assert_eq!(rg.num_rows, 50);
    assert_eq!(rg.offset, 4, "first row group starts right after the magic");
    let paths: Vec<String> = rg.columns.iter().map(|c| c.path.join(".")).collect();
    assert_eq!(paths, ["id", "name", "tags.list.element"]);
    let ids: Vec<Option<i32>> = rg.columns.iter().map(|c| c.field_id).collect();
    assert_eq!(ids, [Some(1), Some(2), Some(4)]);

    let id = &rg.columns[0];
    assert_eq!(id.null_count, Some(0));
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    assert_eq!(
        b64.decode(id.min.as_ref().unwrap()).unwrap(),
        10i64.to_le_bytes()
    );
    assert_eq!(
        b64.decode(id.max.as_ref().unwrap()).unwrap(),
        59i64.to_le_bytes()
    );
    assert!(id.min_exact && id.max_exact);
    assert_eq!(rg.columns[1].null_count, Some(10));
}

#[test]
fn columns_listed_by_field_id_are_written_without_statistics() {
    let schema = schema();
    let config =
        WriterConfig::from_json(br#"{"version":2,"statistics_off_field_ids":[2,4,99]}"#).unwrap();
    let (bytes, summary) = write(&config, &[batch(&schema, 10, 50)]);
    let rg = &summary.row_groups[0];
    assert_eq!(rg.columns[0].null_count, Some(0), "id keeps its statistics");
    assert!(rg.columns[0].min.is_some());
    for column in &rg.columns[1..] {
        assert_eq!(column.null_count, None, "{:?} has none", column.path);
        assert!(
            column.min.is_none() && column.max.is_none(),
            "{:?}",
            column.path
        );
    }
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
    let footer = reader.metadata().row_group(0);
    assert!(footer.column(0).statistics().is_some());
    assert!(footer.column(1).statistics().is_none());
    assert!(footer.column(2).statistics().is_none());
}

#[test]
fn columns_listed_by_field_id_get_bloom_filters() {
    use parquet::file::properties::ReaderProperties;
    use parquet::file::reader::FileReader;
    use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
    let schema = schema();
    let config = WriterConfig::from_json(
        br#"{"version":2,"bloom_filter_columns":[{"field_id":2,"fpp":0.01,"ndv":null},{"field_id":99,"fpp":0.01,"ndv":5}]}"#,
    )
    .unwrap();
    let (bytes, _) = write(&config, &[batch(&schema, 10, 50)]);
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let reader = SerializedFileReader::new_with_options(bytes, options).unwrap();
    let row_group = reader.get_row_group(0).unwrap();
    assert!(
        row_group.get_column_bloom_filter(0).is_none(),
        "id has none"
    );
    let names = row_group.get_column_bloom_filter(1).expect("name has one");
    assert!(names.check(&"name-11"), "a value written is found");
    let absent = (0..100)
        .filter(|i| names.check(&format!("absent-{i}").as_str()))
        .count();
    assert!(absent < 10, "{absent} of 100 absent values matched");

    let bad = WriterConfig::from_json(
        br#"{"version":2,"bloom_filter_columns":[{"field_id":2,"fpp":1.5,"ndv":null}]}"#,
    )
    .unwrap();
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(SharedBuffer::default())),
        schema.clone(),
        &bad,
    )
    .unwrap();
    let error = writer.write(&batch(&schema, 0, 5)).unwrap_err();
    assert!(error.message.contains("fpp"), "{}", error.message);
}

#[test]
fn row_groups_close_at_the_byte_limit() {
    let schema = schema();
    let config = WriterConfig {
        row_group_bytes: 64 * 1024,
        ..WriterConfig::default()
    };
    let batches: Vec<RecordBatch> = (0..40).map(|i| batch(&schema, i * 1000, 1000)).collect();
    let (_, summary) = write(&config, &batches);
    assert!(summary.row_groups.len() > 3, "{}", summary.row_groups.len());
    assert_eq!(
        summary.row_groups.iter().map(|g| g.num_rows).sum::<i64>(),
        40_000
    );
}

/// Rows in each data page of column `column`, from the file's offset index.
fn page_rows(bytes: Bytes, column: usize) -> Vec<i64> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::file::serialized_reader::ReadOptionsBuilder;
    let options = ReadOptionsBuilder::new().with_page_index().build();
    let reader = SerializedFileReader::new_with_options(bytes, options).unwrap();
    let metadata = reader.metadata();
    let rows = metadata.file_metadata().num_rows();
    let index = metadata.offset_index().expect("offset index written");
    let firsts: Vec<i64> = index[0][column]
        .page_locations()
        .iter()
        .map(|page| page.first_row_index)
        .chain([rows])
        .collect();
    firsts.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn data_pages_hold_at_most_the_row_limit() {
    let schema = schema();
    let batches: Vec<RecordBatch> = (0..10).map(|i| batch(&schema, i * 1000, 1000)).collect();
    let limited = WriterConfig {
        page_row_limit: 700,
        ..WriterConfig::default()
    };
    let (bytes, _) = write(&limited, &batches);
    let pages = page_rows(bytes, 0);
    // Best effort: parquet-rs checks the limit after each mini-batch (here 700 values), and
    // a write call starts a new mini-batch, so a page holds fewer than two limits' worth.
    assert!(pages.len() >= 10_000 / 1_400, "{pages:?}");
    assert!(pages.iter().all(|&rows| rows < 1_400), "{pages:?}");
    assert!(pages.contains(&700), "{pages:?}");

    // The default (Iceberg's 20,000) keeps these 10,000 small rows in one page.
    let (bytes, _) = write(&WriterConfig::default(), &batches);
    assert_eq!(page_rows(bytes, 0), vec![10_000]);

    let zero = WriterConfig {
        page_row_limit: 0,
        ..WriterConfig::default()
    };
    let err = zero.writer_properties().unwrap_err();
    assert!(err.to_string().contains("page_row_limit"), "{err}");
}

#[test]
fn a_batch_with_other_columns_is_a_schema_mismatch() {
    let schema = schema();
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(SharedBuffer::default())),
        schema,
        &WriterConfig::default(),
    )
    .unwrap();
    let other = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, false)]));
    let bad = RecordBatch::try_new(other, vec![Arc::new(Int32Array::from(vec![1]))]).unwrap();
    let err = writer.write(&bad).unwrap_err();
    assert_eq!(err.code, ErrorCode::SchemaMismatch);
    assert!(err.message.contains("expects 3"), "{}", err.message);

    let renamed = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("title", DataType::Utf8, true),
        Field::new("tags", DataType::Utf8, true),
    ]));
    let bad = RecordBatch::try_new(
        renamed,
        vec![
            Arc::new(Int64Array::from(vec![1])),
            Arc::new(StringArray::from(vec!["a"])),
            Arc::new(StringArray::from(vec!["b"])),
        ],
    )
    .unwrap();
    let err = writer.write(&bad).unwrap_err();
    assert!(
        err.message.contains("'title'") && err.message.contains("'name'"),
        "{}",
        err.message
    );
}

#[test]
fn close_twice_and_write_after_close_are_illegal_state() {
    let schema = schema();
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(SharedBuffer::default())),
        schema.clone(),
        &WriterConfig::default(),
    )
    .unwrap();
    writer.close().unwrap();
    assert_eq!(writer.close().unwrap_err().code, ErrorCode::IllegalState);
    assert_eq!(
        writer.write(&batch(&schema, 0, 1)).unwrap_err().code,
        ErrorCode::IllegalState
    );
}

/// A sink that accepts `left` bytes, then fails like a full disk.
struct FillingUp {
    left: usize,
}

impl std::io::Write for FillingUp {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.left {
            return Err(std::io::Error::other("disk full"));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_close_fails_the_writer_for_good() {
    let schema = schema();
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(FillingUp { left: 64 })),
        schema.clone(),
        &WriterConfig::default(),
    )
    .unwrap();
    writer.write(&batch(&schema, 0, 100)).unwrap();
    let first = writer.close().unwrap_err();
    assert_eq!(first.code, ErrorCode::Io);
    assert!(first.message.contains("disk full"), "{}", first.message);
    assert_eq!(writer.failure(), Some(first.message.as_str()));
    let expected = format!("writer failed earlier: {}", first.message);
    for refused in [
        writer.close().map(|_| ()),
        writer.write(&batch(&schema, 100, 1)),
        writer.flush_row_group(),
    ] {
        let refused = refused.unwrap_err();
        assert_eq!(refused.code, ErrorCode::IllegalState);
        assert_eq!(refused.message, expected);
    }
}

#[test]
fn an_aborted_path_writer_leaves_no_file() {
    let dir = std::env::temp_dir().join(format!("floe-abort-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("partial.parquet");
    let schema = schema();
    {
        let mut writer = ParquetFileWriter::open(
            OutputSink::Path(path.clone()),
            schema.clone(),
            &WriterConfig::default(),
        )
        .unwrap();
        writer.write(&batch(&schema, 0, 10)).unwrap();
        assert!(path.exists());
    } // dropped without close
    assert!(!path.exists());
    let err = ParquetFileWriter::open(
        OutputSink::Path(dir.join("missing/x.parquet")),
        schema,
        &WriterConfig::default(),
    )
    .err()
    .unwrap();
    assert_eq!(err.code, ErrorCode::Io);
    assert!(err.message.contains("missing/x.parquet"), "{}", err.message);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `docs/ffi.md`: freeing a writer without closing it aborts; an aborted stream writer must not
/// push the bytes it still buffers into the caller's stream (nor call the stream at all from
/// `free`), so a caller never sees the head of a file that was given up.
#[test]
fn an_aborted_stream_writer_sends_nothing_more() {
    let schema = schema();
    let buffer = SharedBuffer::default();
    {
        let mut writer = stream_writer(&schema, &buffer);
        writer.write(&batch(&schema, 0, 1_000)).unwrap();
        writer.flush_row_group().unwrap();
        writer.write(&batch(&schema, 1_000, 10)).unwrap();
        assert!(buffer.0.lock().unwrap().is_empty(), "all still buffered");
    } // dropped without close
    assert_eq!(buffer.0.lock().unwrap().len(), 0);
}

#[test]
fn dictionaries_only_where_they_pay() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let schema = Arc::new(Schema::new(vec![
        Field::new("unique", DataType::Int64, false),
        Field::new("few", DataType::Utf8, false),
    ]));
    let unique = Int64Array::from_iter_values(
        (0..10_000i64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64)),
    );
    let few = StringArray::from_iter_values((0..10_000).map(|i| ["a", "b", "c"][i % 3]));
    let batch =
        RecordBatch::try_new(schema.clone(), vec![Arc::new(unique), Arc::new(few)]).unwrap();
    let buffer = SharedBuffer::default();
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(buffer.clone())),
        schema,
        &WriterConfig::default(),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let bytes = Bytes::from(buffer.0.lock().unwrap().clone());
    let reader = SerializedFileReader::new(bytes).unwrap();
    let columns = reader.metadata().row_group(0).columns();
    assert_eq!(
        columns[0].dictionary_page_offset(),
        None,
        "unique values are written plain"
    );
    assert!(
        columns[1].dictionary_page_offset().is_some(),
        "three values get a dictionary"
    );
}

#[test]
fn nan_counts_cover_top_level_and_struct_floats_but_not_lists() {
    use arrow_array::{Array, Float32Array, Float64Array, ListArray, StructArray};
    use arrow_buffer::NullBuffer;
    use arrow_schema::Fields;
    let inner = Fields::from(vec![with_id(Field::new("x", DataType::Float32, true), 3)]);
    let element = Arc::new(with_id(Field::new("element", DataType::Float64, true), 5));
    let schema = Arc::new(Schema::new(vec![
        with_id(Field::new("d", DataType::Float64, true), 1),
        with_id(Field::new("s", DataType::Struct(inner.clone()), true), 2),
        with_id(Field::new("l", DataType::List(element.clone()), true), 4),
    ]));
    let d = Float64Array::from(vec![Some(f64::NAN), None, Some(1.0), Some(f64::NAN)]);
    // Row 1's struct is null: its child NaN is not a value and must not count.
    let x = Float32Array::from(vec![Some(f32::NAN), Some(f32::NAN), None, Some(2.0)]);
    let s = StructArray::new(
        inner,
        vec![Arc::new(x)],
        Some(NullBuffer::from(vec![true, false, true, true])),
    );
    let l = ListArray::from_iter_primitive::<arrow_array::types::Float64Type, _, _>(vec![
        Some(vec![Some(f64::NAN)]),
        None,
        Some(vec![]),
        Some(vec![Some(f64::NAN)]),
    ]);
    let l = ListArray::new(
        element,
        l.offsets().clone(),
        l.values().clone(),
        l.nulls().cloned(),
    );
    let batch =
        RecordBatch::try_new(schema.clone(), vec![Arc::new(d), Arc::new(s), Arc::new(l)]).unwrap();
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(SharedBuffer::default())),
        schema,
        &WriterConfig::default(),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.write(&batch).unwrap();
    let summary = writer.close().unwrap();
    let counts: Vec<(String, Option<i32>, u64)> = summary
        .nan_counts
        .iter()
        .map(|c| (c.path.join("."), c.field_id, c.count))
        .collect();
    assert_eq!(
        counts,
        [
            ("d".to_string(), Some(1), 4),
            ("s.x".to_string(), Some(3), 2)
        ]
    );
}

#[test]
fn the_signs_of_zeros_written_are_noted_for_valid_values_only() {
    use arrow_array::Float64Array;
    let schema = Arc::new(Schema::new(vec![
        with_id(Field::new("neg", DataType::Float64, true), 1),
        with_id(Field::new("pos", DataType::Float64, true), 2),
    ]));
    // A null slot holds 0.0 underneath: it is not a value written.
    let neg = Float64Array::from(vec![Some(-0.0), None, Some(1.0)]);
    let pos = Float64Array::from(vec![Some(0.0), Some(-2.0), None]);
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(neg), Arc::new(pos)]).unwrap();
    let mut writer = stream_writer(&schema, &SharedBuffer::default());
    writer.write(&batch).unwrap();
    let summary = writer.close().unwrap();
    let signs: Vec<(String, bool, bool)> = summary
        .nan_counts
        .iter()
        .map(|c| (c.path.join("."), c.negative_zero, c.positive_zero))
        .collect();
    assert_eq!(
        signs,
        [
            ("neg".to_string(), true, false),
            ("pos".to_string(), false, true)
        ]
    );
}
