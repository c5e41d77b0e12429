//! Encode threads belong to the writer: started once, reused by every column run, joined when
//! the writer closes or is dropped. (A test binary of its own: it counts the process's threads.)

#![cfg(target_os = "linux")]

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use floe::{OutputSink, ParquetFileWriter, WriterConfig};

/// The ids of this process's threads named `floe-encode-*`, sorted.
fn encode_threads() -> Vec<u64> {
    let mut ids: Vec<u64> = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| {
            let task = task.ok()?;
            let name = std::fs::read_to_string(task.path().join("comm")).ok()?;
            name.starts_with("floe-encode-")
                .then(|| task.file_name().to_str()?.parse().ok())?
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// [`encode_threads`] once there are `count` of them: a new thread names itself as it starts,
/// maybe after `spawn` returned.
/// The encode threads once there are `count` of them (or after 5 s): a thread shows in
/// `/proc/self/task` a little after it starts, and a joined one can stay there a little while the
/// kernel finishes its exit (longer on a loaded machine).
fn named_encode_threads(count: usize) -> Vec<u64> {
    for _ in 0..500 {
        let ids = encode_threads();
        if ids.len() == count {
            return ids;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    encode_threads()
}

fn batch(schema: &Arc<Schema>, start: i64) -> RecordBatch {
    let column = |k: i64| {
        Arc::new(Int64Array::from_iter_values(
            (start..start + 500).map(|v| v * k),
        ))
    };
    RecordBatch::try_new(schema.clone(), vec![column(1), column(3), column(7)]).unwrap()
}

#[test]
fn encode_threads_are_started_once_per_writer_and_joined_with_it() {
    let schema = Arc::new(Schema::new(
        ["a", "b", "c"]
            .map(|name| Field::new(name, DataType::Int64, false))
            .to_vec(),
    ));
    let config = WriterConfig {
        encode_threads: 3,
        column_run_rows: 500, // every batch is a run of its own
        ..WriterConfig::default()
    };
    let open = || {
        ParquetFileWriter::open(
            OutputSink::Stream(Box::new(std::io::sink())),
            schema.clone(),
            &config,
        )
        .unwrap()
    };
    assert_eq!(encode_threads(), Vec::<u64>::new());

    let mut writer = open();
    writer.write(&batch(&schema, 0)).unwrap();
    let helpers = named_encode_threads(2);
    assert_eq!(helpers.len(), 2, "the calling thread and two helpers");
    for run in 1..20 {
        writer.write(&batch(&schema, run * 500)).unwrap();
        assert_eq!(
            encode_threads(),
            helpers,
            "run {run} reuses the same threads"
        );
    }
    writer.close().unwrap();
    assert_eq!(
        named_encode_threads(0),
        Vec::<u64>::new(),
        "joined at close"
    );

    let mut abandoned = open();
    abandoned.write(&batch(&schema, 0)).unwrap();
    assert_eq!(named_encode_threads(2).len(), 2);
    drop(abandoned);
    assert_eq!(
        named_encode_threads(0),
        Vec::<u64>::new(),
        "joined when dropped"
    );
}
