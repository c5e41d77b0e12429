//! Column runs (batches held, then encoded one column at a time) change the order of the
//! work, not the file: checked byte for byte against parquet-rs's own `ArrowWriter` with the
//! same properties, and for row groups, rows and size estimates when runs cut row groups.

mod common;

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, Int32Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use arrow_select::concat::concat_batches;
use bytes::Bytes;
use common::{with_id, SharedBuffer};
use floe::{OutputSink, ParquetFileWriter, WriterConfig};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::file::reader::{FileReader, SerializedFileReader};

/// Top-level, struct and list leaves, nullable and required, low- and high-cardinality values.
fn schema() -> SchemaRef {
    let point = Fields::from(vec![
        with_id(Field::new("x", DataType::Float64, true), 5),
        with_id(Field::new("label", DataType::Utf8, true), 6),
    ]);
    let element = with_id(Field::new("element", DataType::Int32, true), 8);
    Arc::new(Schema::new(vec![
        with_id(Field::new("id", DataType::Int64, false), 1),
        with_id(Field::new("code", DataType::Int64, false), 2),
        with_id(Field::new("name", DataType::Utf8, true), 3),
        with_id(Field::new("point", DataType::Struct(point), true), 4),
        with_id(
            Field::new("tags", DataType::List(Arc::new(element)), true),
            7,
        ),
    ]))
}

/// `low_cardinality` keeps every column's values few, so floe's dictionary sampling keeps
/// the dictionary everywhere and the properties equal the config's.
fn batch(schema: &SchemaRef, start: usize, rows: usize, low_cardinality: bool) -> RecordBatch {
    let spread = |i: usize| {
        if low_cardinality {
            i % 7
        } else {
            i.wrapping_mul(2_654_435_761) % 1_000_003
        }
    };
    let ids = Int64Array::from_iter_values((start..start + rows).map(|i| spread(i) as i64));
    let codes = Int64Array::from_iter_values((start..start + rows).map(|i| (i % 5) as i64));
    let mut names = StringBuilder::new();
    let mut xs = Float64Builder::new();
    let mut labels = StringBuilder::new();
    let DataType::List(element) = schema.field(4).data_type().clone() else {
        unreachable!()
    };
    let mut tags = ListBuilder::new(Int32Builder::new()).with_field(element);
    let mut point_valid = Vec::new();
    for i in start..start + rows {
        if i % 9 == 0 {
            names.append_null();
        } else {
            names.append_value(format!("n{}", spread(i)));
        }
        xs.append_option((i % 4 != 1).then(|| spread(i) as f64 / 8.0));
        labels.append_value(["a", "b", "c"][i % 3]);
        point_valid.push(i % 11 != 0);
        if i % 6 == 0 {
            tags.append_null();
        } else {
            for k in 0..i % 3 {
                tags.values().append_value((spread(i) + k) as i32);
            }
            tags.append(true);
        }
    }
    let DataType::Struct(point_fields) = schema.field(3).data_type().clone() else {
        unreachable!()
    };
    let point = StructArray::new(
        point_fields,
        vec![Arc::new(xs.finish()), Arc::new(labels.finish())],
        Some(point_valid.into()),
    );
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(codes),
        Arc::new(names.finish()),
        Arc::new(point),
        Arc::new(tags.finish()),
    ];
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

fn batches(sizes: &[usize], low_cardinality: bool) -> Vec<RecordBatch> {
    let schema = schema();
    let mut start = 0;
    sizes
        .iter()
        .map(|&rows| {
            let b = batch(&schema, start, rows, low_cardinality);
            start += rows;
            b
        })
        .collect()
}

fn floe_file(config: &WriterConfig, batches: &[RecordBatch]) -> (Bytes, floe::FileSummary) {
    common::write_in_memory(schema(), config, batches)
}

/// parquet-rs's `ArrowWriter`, batch by batch, with the properties floe derives from `config`.
fn arrow_writer_file(config: &WriterConfig, batches: &[RecordBatch]) -> Bytes {
    let mut out = Vec::new();
    let options = ArrowWriterOptions::new()
        .with_properties(config.writer_properties().unwrap())
        .with_skip_arrow_metadata(true);
    let mut writer = ArrowWriter::try_new_with_options(&mut out, schema(), options).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
    Bytes::from(out)
}

fn row_group_rows(file: &Bytes) -> Vec<i64> {
    let reader = SerializedFileReader::new(file.clone()).unwrap();
    let metadata = reader.metadata();
    metadata.row_groups().iter().map(|g| g.num_rows()).collect()
}

fn read_back(file: Bytes) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let read: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    concat_batches(&read[0].schema(), &read).unwrap()
}

fn assert_same_rows(file: Bytes, batches: &[RecordBatch]) {
    let expected = concat_batches(&schema(), batches).unwrap();
    let actual = read_back(file);
    assert_eq!(actual.num_rows(), expected.num_rows());
    for c in 0..expected.num_columns() {
        assert_eq!(
            expected.column(c).to_data(),
            actual.column(c).to_data(),
            "column {c}"
        );
    }
}

fn config(dictionary: bool, run_rows: u64) -> WriterConfig {
    WriterConfig {
        dictionary,
        page_bytes: 4 * 1024,
        column_run_rows: run_rows,
        ..WriterConfig::default()
    }
}

#[test]
fn one_row_group_in_runs_is_the_batch_by_batch_file() {
    let sizes = [1000, 0, 777, 1000, 1000, 1, 2500, 1000];
    for dictionary in [false, true] {
        let batches = batches(&sizes, dictionary);
        for run_rows in [0, 1500, 64 * 1024] {
            let config = config(dictionary, run_rows);
            let (floe, summary) = floe_file(&config, &batches);
            assert_eq!(summary.row_groups.len(), 1);
            assert!(
                floe == arrow_writer_file(&config, &batches),
                "dictionary {dictionary}, runs of {run_rows} rows: the files differ"
            );
            assert_same_rows(floe, &batches);
        }
    }
}

#[test]
fn without_runs_row_groups_close_where_arrow_writer_closes_them() {
    let batches = batches(&[1000; 30], false);
    let config = WriterConfig {
        row_group_bytes: 24 * 1024,
        ..config(false, 0)
    };
    let (floe, summary) = floe_file(&config, &batches);
    assert!(summary.row_groups.len() > 5, "{}", summary.row_groups.len());
    assert!(
        floe == arrow_writer_file(&config, &batches),
        "the files differ"
    );
}

#[test]
fn runs_keep_row_groups_near_the_byte_limit() {
    let batches = batches(&[1000; 30], false);
    let limit = 24 * 1024;
    let run_rows = 8000;
    let config = WriterConfig {
        row_group_bytes: limit,
        ..config(false, run_rows)
    };
    let (floe, summary) = floe_file(&config, &batches);
    let groups = &summary.row_groups;
    assert!(groups.len() > 5, "{}", groups.len());
    for (i, g) in groups.iter().enumerate() {
        // Closed once the estimate reaches the limit, and a run is cut at the rows that fit.
        assert!(g.compressed_size <= 2 * limit as i64, "group {i}: {g:?}");
        if i + 1 < groups.len() {
            assert!(g.compressed_size >= limit as i64 / 4, "group {i}: {g:?}");
        }
    }
    assert_eq!(
        row_group_rows(&floe).iter().sum::<i64>(),
        30_000,
        "every row once"
    );
    assert_same_rows(floe, &batches);
}

#[test]
fn held_rows_count_in_the_size_estimate() {
    let batches = batches(&[1000; 20], false);
    let config = config(false, 64 * 1024);
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(SharedBuffer::default())),
        schema(),
        &config,
    )
    .unwrap();
    let mut estimates = Vec::new();
    for b in &batches {
        writer.write(b).unwrap();
        estimates.push(writer.estimated_size());
    }
    let file_size = writer.close().unwrap().file_size;
    // The first batch is encoded at once (to learn a row's size), later ones are held: the
    // estimate still grows with each.
    assert!(estimates.windows(2).all(|w| w[0] < w[1]), "{estimates:?}");
    let last = *estimates.last().unwrap() as f64;
    assert!(
        last > file_size as f64 / 2.0 && last < file_size as f64 * 2.0,
        "estimate {last} for a file of {file_size} bytes"
    );
}

#[test]
fn column_run_limits_are_settings() {
    let c =
        WriterConfig::from_json(br#"{"version":2,"column_run_rows":0,"column_run_bytes":1048576}"#)
            .unwrap();
    assert_eq!((c.column_run_rows, c.column_run_bytes), (0, 1 << 20));
    let d = WriterConfig::default();
    assert_eq!((d.column_run_rows, d.column_run_bytes), (65_536, 32 << 20));
}

/// A partition group is a slice of a larger regrouped batch; holding it would keep the whole
/// batch alive, so whole buffers count against `column_run_bytes`.
#[test]
fn slices_of_large_buffers_count_whole_buffers() {
    let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
    let write_slices = |run_bytes: u64, encode_ahead: bool| {
        let config = WriterConfig {
            column_run_bytes: run_bytes,
            encode_ahead,
            ..WriterConfig::default()
        };
        let mut writer = ParquetFileWriter::open(
            OutputSink::Stream(Box::new(SharedBuffer::default())),
            schema.clone(),
            &config,
        )
        .unwrap();
        let big = Int64Array::from_iter_values(0..1_000_000);
        let buffer = big.values().inner().clone();
        let big = RecordBatch::try_new(schema.clone(), vec![Arc::new(big)]).unwrap();
        let mut holders = Vec::new();
        for i in 0..4 {
            writer.write(&big.slice(i * 100, 100)).unwrap();
            // Our own reference, the array's, and any the writer still holds.
            holders.push(buffer.strong_count() - 2);
        }
        writer.close().unwrap();
        assert_eq!(buffer.strong_count(), 2, "released after close");
        holders
    };
    // 8 MB of buffer per slice: over a 4 MiB limit each slice is encoded at once...
    assert_eq!(write_slices(4 << 20, false), [0, 0, 0, 0]);
    // ...or, encoded ahead, kept until the next run starts (the first, which measures a row's
    // size, is encoded on the calling thread): one run away at a time.
    assert_eq!(write_slices(4 << 20, true), [0, 1, 1, 1]);
    // Under a 64 MiB limit slices are held (the first is encoded to learn a row's size).
    assert_eq!(write_slices(64 << 20, false), [0, 1, 2, 3]);
    assert_eq!(write_slices(64 << 20, true), [0, 1, 2, 3]);
}

#[test]
fn encode_threads_do_not_change_the_file() {
    let sizes = [1000, 777, 3000, 1, 2500, 1000, 4000];
    for dictionary in [false, true] {
        let batches = batches(&sizes, dictionary);
        for row_group_bytes in [24 * 1024, 128 * 1024 * 1024] {
            let single = WriterConfig {
                row_group_bytes,
                ..config(dictionary, 1500)
            };
            let (expected, expected_summary) = floe_file(&single, &batches);
            // More threads than top-level columns (5) are capped at one per column.
            for encode_threads in [2, 3, 8] {
                let parallel = WriterConfig {
                    encode_threads,
                    ..single.clone()
                };
                let (file, summary) = floe_file(&parallel, &batches);
                assert_eq!(summary.row_groups.len(), expected_summary.row_groups.len());
                assert!(
                    file == expected,
                    "dictionary {dictionary}, row groups of {row_group_bytes} bytes, \
                     {encode_threads} threads: the files differ"
                );
            }
        }
        let (file, _) = floe_file(
            &WriterConfig {
                encode_threads: 4,
                ..config(dictionary, 1500)
            },
            &batches,
        );
        assert_same_rows(file, &batches);
    }
}

/// Runs encoded ahead on the shared pool (the default) and on the calling thread give the
/// same file, also when row groups close by size between runs.
#[test]
fn encoding_ahead_does_not_change_the_file() {
    let sizes = [
        1000, 777, 3000, 1, 2500, 1000, 4000, 600, 600, 600, 5000, 2000,
    ];
    for dictionary in [false, true] {
        let batches = batches(&sizes, dictionary);
        for (row_group_bytes, run_rows) in [
            (128 * 1024 * 1024, 1500),
            (96 * 1024, 700),
            (24 * 1024, 1500),
            (40 * 1024, 0),
        ] {
            let here = WriterConfig {
                row_group_bytes,
                encode_ahead: false,
                ..config(dictionary, run_rows)
            };
            let (expected, expected_summary) = floe_file(&here, &batches);
            let ahead = WriterConfig {
                encode_ahead: true,
                ..here.clone()
            };
            let (file, summary) = floe_file(&ahead, &batches);
            assert_eq!(summary.row_groups.len(), expected_summary.row_groups.len());
            assert!(
                file == expected,
                "dictionary {dictionary}, row groups of {row_group_bytes} bytes, runs of \
                 {run_rows} rows: the files differ"
            );
            assert_same_rows(file, &batches);
        }
    }
}

/// A caller short of memory has the held rows encoded (ahead, then waited for) instead of
/// writing row groups out: their Arrow batches are let go, the row group stays open, and the
/// rows are all in the file. Without encoding ahead both calls leave the writer as it was.
#[test]
fn held_rows_encoded_and_awaited_free_their_batches() {
    let batches = batches(&[1000; 20], false);
    for encode_ahead in [true, false] {
        let config = WriterConfig {
            encode_ahead,
            ..config(false, 64 * 1024)
        };
        let out = SharedBuffer::default();
        let mut writer =
            ParquetFileWriter::open(OutputSink::Stream(Box::new(out.clone())), schema(), &config)
                .unwrap();
        for b in &batches[..10] {
            writer.write(b).unwrap();
        }
        let held = writer.buffered_bytes();
        writer.encode_held().unwrap();
        writer.await_encoded().unwrap();
        let encoded = writer.buffered_bytes();
        if encode_ahead {
            assert!(
                encoded * 2 < held,
                "{held} bytes buffered before, {encoded} after"
            );
        } else {
            assert_eq!(encoded, held);
        }
        for b in &batches[10..] {
            writer.write(b).unwrap();
        }
        writer.close().unwrap();
        let file = Bytes::from(out.0.lock().unwrap().clone());
        assert_eq!(
            row_group_rows(&file),
            [20_000],
            "encode ahead {encode_ahead}"
        );
        assert_same_rows(file, &batches);
    }
}

#[test]
fn zero_encode_threads_are_refused() {
    let config = WriterConfig {
        encode_threads: 0,
        ..WriterConfig::default()
    };
    let error = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(SharedBuffer::default())),
        schema(),
        &config,
    )
    .and_then(|mut w| {
        w.write(&batches(&[10], false)[0])?;
        w.close()
    })
    .expect_err("encode_threads 0 is an error");
    assert!(
        error.to_string().contains("encode_threads must be > 0"),
        "{error}"
    );
}
