//! Criterion benchmarks of the Parquet encoder on the JMH wide table (microbench's
//! `WideTable`: 200,000 rows of 20 int64, 10 float64, 10 nullable utf8, 5 int32 and 5
//! timestamp columns, generated from the same seeded `SplittableRandom` sequence), in
//! batches of 8192 rows as the JMH benchmark hands them over:
//!
//!   cargo bench --bench encode
//!
//! - `floe_zstd3`: the writer with the benchmark's settings (zstd-3, 128 MiB row groups,
//!   1 MiB pages, 2 MiB dictionary pages) into a byte sink;
//! - `floe_zstd3_batch_by_batch`: the same, each batch encoded as it arrives
//!   (`column_run_rows: 0`) instead of in column runs;
//! - `floe_uncompressed`: the same without compression -- the encoder's own work;
//! - `raw_zstd3`: zstd level 3 alone over the column bytes of the uncompressed file, in
//!   1 MiB chunks (the JMH benchmark's ceiling);
//! - `raw_zstd3_pages`: zstd level 3 over the same file's page bodies, one call per page,
//!   as a Parquet writer must compress them;
//! - `validate_columns`: the full validation (offsets, UTF-8) that batches imported from Java
//!   get before they are written, alone.
//!
//! On a shared machine, `FLOE_BENCH_CLOCK=cpu` measures the thread's time on a CPU
//! (`/proc/thread-self/schedstat`) instead of wall time, so waiting for a core does not count.
//!
//! Throughput is column bytes (the uncompressed pages) for all three, so
//! `floe_zstd3 / raw_zstd3` is the share of raw zstd-3 speed the encoder reaches.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray, UInt32Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow_select::take::take;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput};
use floe::{OutputSink, ParquetFileWriter, WriterConfig};

const ROWS: usize = 200_000;
const BATCH: usize = 8192;
const SEED: i64 = 42;
const ZSTD_CHUNK: usize = 1024 * 1024;

/// Java's `java.util.SplittableRandom` (and the bounded draws of `RandomSupport`), so the
/// values equal the JMH benchmark's.
struct SplittableRandom {
    seed: i64,
}

impl SplittableRandom {
    const GOLDEN_GAMMA: i64 = 0x9e37_79b9_7f4a_7c15_u64 as i64;

    fn new(seed: i64) -> Self {
        Self { seed }
    }

    fn next_seed(&mut self) -> i64 {
        self.seed = self.seed.wrapping_add(Self::GOLDEN_GAMMA);
        self.seed
    }

    fn next_long(&mut self) -> i64 {
        let mut z = self.next_seed() as u64;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as i64
    }

    fn next_int(&mut self) -> i32 {
        let mut z = self.next_seed() as u64;
        z = (z ^ (z >> 33)).wrapping_mul(0x62a9_d9ed_7997_05f5);
        ((z ^ (z >> 28)).wrapping_mul(0xcb24_d0a5_c88c_35b3) >> 32) as i32
    }

    fn next_long_below(&mut self, bound: i64) -> i64 {
        let m = bound - 1;
        let mut r = self.next_long();
        if bound & m == 0 {
            return r & m;
        }
        let mut u = ((r as u64) >> 1) as i64;
        loop {
            r = u % bound;
            if u.wrapping_add(m).wrapping_sub(r) >= 0 {
                return r;
            }
            u = ((self.next_long() as u64) >> 1) as i64;
        }
    }

    fn next_int_below(&mut self, bound: i32) -> i32 {
        let m = bound - 1;
        let mut r = self.next_int();
        if bound & m == 0 {
            return r & m;
        }
        let mut u = ((r as u32) >> 1) as i32;
        loop {
            r = u % bound;
            if u.wrapping_add(m).wrapping_sub(r) >= 0 {
                return r;
            }
            u = ((self.next_int() as u32) >> 1) as i32;
        }
    }

    fn next_double(&mut self) -> f64 {
        ((self.next_long() as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

const WORDS: [&str; 32] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "north", "south", "east", "west",
    "up", "down",
];
/// 2026-11-30T12:00:00Z in microseconds.
const BASE_MICROS: i64 = 1_795_003_200_000_000;

fn field(id: usize, name: String, data_type: DataType, nullable: bool) -> Field {
    Field::new(name, data_type, nullable).with_metadata(HashMap::from([(
        "PARQUET:field_id".to_string(),
        id.to_string(),
    )]))
}

/// The wide table's columns, whole (one array per column), and its schema.
fn wide50() -> (SchemaRef, Vec<ArrayRef>) {
    let mut random = SplittableRandom::new(SEED);
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for c in 0..20i64 {
        let values: Vec<i64> = (0..ROWS as i64)
            .map(|r| match c % 4 {
                0 => 1_000_000 * c + r * (c + 1),
                1 => random.next_long_below(1000),
                2 => random.next_long(),
                _ => random.next_long_below(1_000_000),
            })
            .collect();
        fields.push(field(
            fields.len() + 1,
            format!("l{c:02}"),
            DataType::Int64,
            false,
        ));
        columns.push(Arc::new(Int64Array::from(values)));
    }
    for c in 0..10 {
        let values: Vec<f64> = (0..ROWS)
            .map(|_| {
                if c % 2 == 0 {
                    (random.next_double() * 100_000.0 + 0.5).floor() / 100.0
                } else {
                    random.next_double() * 1e6
                }
            })
            .collect();
        fields.push(field(
            fields.len() + 1,
            format!("d{c:02}"),
            DataType::Float64,
            false,
        ));
        columns.push(Arc::new(Float64Array::from(values)));
    }
    for c in 0..10 {
        let values: Vec<Option<String>> = (0..ROWS)
            .map(|_| {
                if random.next_double() < 0.02 {
                    return None;
                }
                Some(if c % 2 == 0 {
                    WORDS[random.next_int_below(WORDS.len() as i32) as usize].to_string()
                } else {
                    let len = 5 + random.next_int_below(8);
                    (0..len)
                        .map(|_| (b'a' + random.next_int_below(26) as u8) as char)
                        .collect()
                })
            })
            .collect();
        fields.push(field(
            fields.len() + 1,
            format!("s{c:02}"),
            DataType::Utf8,
            true,
        ));
        columns.push(Arc::new(StringArray::from(values)));
    }
    for c in 0..5 {
        let values: Vec<i32> = (0..ROWS)
            .map(|_| random.next_int_below(if c % 2 == 0 { 100 } else { 1_000_000 }))
            .collect();
        fields.push(field(
            fields.len() + 1,
            format!("i{c:02}"),
            DataType::Int32,
            false,
        ));
        columns.push(Arc::new(Int32Array::from(values)));
    }
    for c in 0..5i64 {
        let values: Vec<i64> = (0..ROWS as i64)
            .map(|r| BASE_MICROS + r * 1000 * (c + 1) + random.next_long_below(1_000_000))
            .collect();
        fields.push(field(
            fields.len() + 1,
            format!("t{c:02}"),
            DataType::Timestamp(TimeUnit::Microsecond, None),
            false,
        ));
        columns.push(Arc::new(TimestampMicrosecondArray::from(values)));
    }
    (Arc::new(Schema::new(fields)), columns)
}

/// Batches with buffers of their own (as from Java or the JSON decoder), not slices of the
/// whole columns: the writer holds batches and counts the buffers they keep alive.
fn batches(schema: &SchemaRef, columns: &[ArrayRef]) -> Vec<RecordBatch> {
    (0..ROWS)
        .step_by(BATCH)
        .map(|from| {
            let rows =
                UInt32Array::from_iter_values(from as u32..(BATCH.min(ROWS - from) + from) as u32);
            let copied = columns
                .iter()
                .map(|c| take(c, &rows, None).unwrap())
                .collect();
            RecordBatch::try_new(schema.clone(), copied).unwrap()
        })
        .collect()
}

fn config(compression: &str) -> WriterConfig {
    WriterConfig {
        codec: compression.to_string(),
        level: (compression == "zstd").then_some(3),
        row_group_bytes: 128 * 1024 * 1024,
        page_bytes: 1024 * 1024,
        dictionary_page_bytes: 2 * 1024 * 1024,
        ..WriterConfig::default()
    }
}

fn encode(schema: &SchemaRef, batches: &[RecordBatch], config: &WriterConfig) -> i64 {
    let mut writer = ParquetFileWriter::open(
        OutputSink::Stream(Box::new(std::io::sink())),
        schema.clone(),
        config,
    )
    .unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap().num_rows
}

/// The pages of an uncompressed file (every row group's column chunks, no footer), and the
/// size of the zstd-3 file, for the report.
type Pages = Vec<Vec<bytes::Bytes>>;

fn column_bytes(schema: &SchemaRef, batches: &[RecordBatch]) -> (Vec<u8>, Pages) {
    let dir = std::env::temp_dir().join(format!("floe-encode-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, config: &WriterConfig| {
        let path = dir.join(name);
        let mut writer =
            ParquetFileWriter::open(OutputSink::Path(path.clone()), schema.clone(), config)
                .unwrap();
        for batch in batches {
            writer.write(batch).unwrap();
        }
        let summary = writer.close().unwrap();
        (std::fs::read(&path).unwrap(), summary)
    };
    let (zstd_file, _) = write("zstd.parquet", &config("zstd"));
    if std::env::var_os("FLOE_BENCH_COLUMNS").is_some() {
        print_columns(&zstd_file);
    }
    let (file, summary) = write("plain.parquet", &config("uncompressed"));
    let bodies = page_bodies(&file);
    std::fs::remove_dir_all(&dir).unwrap();
    let mut pages = Vec::new();
    for rg in &summary.row_groups {
        let from = rg.offset as usize;
        pages.extend_from_slice(&file[from..from + rg.compressed_size as usize]);
    }
    eprintln!(
        "wide50: {} rows in {} batches; column bytes {} B in {} pages ({} B of page bodies); \
         zstd-3 file {} B",
        ROWS,
        batches.len(),
        pages.len(),
        bodies.iter().map(Vec::len).sum::<usize>(),
        bodies.iter().flatten().map(|b| b.len()).sum::<usize>(),
        zstd_file.len()
    );
    (pages, bodies)
}

/// The bodies of every page (dictionary and data) of an uncompressed file, per column chunk.
fn page_bodies(file: &[u8]) -> Vec<Vec<bytes::Bytes>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(file)).unwrap();
    let mut pages = Vec::new();
    for rg in 0..reader.num_row_groups() {
        let rg = reader.get_row_group(rg).unwrap();
        for c in 0..rg.num_columns() {
            let reader = rg.get_column_page_reader(c).unwrap();
            pages.push(reader.map(|p| p.unwrap().buffer().clone()).collect());
        }
    }
    pages
}

/// Each column chunk's encodings and sizes (`FLOE_BENCH_COLUMNS=1`).
fn print_columns(file: &[u8]) {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(file)).unwrap();
    for rg in reader.metadata().row_groups() {
        for c in rg.columns() {
            eprintln!(
                "{:<4} {:>9} B -> {:>9} B {:?}",
                c.column_path().string(),
                c.uncompressed_size(),
                c.compressed_size(),
                c.encodings().collect::<Vec<_>>()
            );
        }
    }
}

/// Time the calling thread spent running on a CPU, in nanoseconds (Linux schedstat).
struct CpuTime {
    wall: WallTime,
}

impl CpuTime {
    fn now() -> u64 {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
        text.split_whitespace().next().unwrap().parse().unwrap()
    }
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        Self::now()
    }

    fn end(&self, start: u64) -> u64 {
        Self::now() - start
    }

    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }

    fn zero(&self) -> u64 {
        0
    }

    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, as wall time's.
        self.wall.formatter()
    }
}

/// Everything the benchmarks run on, and the benchmarks by name.
struct Fixture {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// Column bytes (the pages of the uncompressed file) and the page bodies per column.
    pages: Vec<u8>,
    bodies: Pages,
    compressor: zstd::bulk::Compressor<'static>,
    compressors: Vec<zstd::bulk::Compressor<'static>>,
    out: Vec<u8>,
}

const NAMES: [&str; 7] = [
    "floe_zstd3",
    "floe_zstd3_batch_by_batch",
    "floe_uncompressed",
    "raw_zstd3",
    "raw_zstd3_pages",
    "raw_zstd3_pages_per_column",
    "validate_columns",
];

impl Fixture {
    fn new() -> Self {
        let (schema, columns) = wide50();
        let batches = batches(&schema, &columns);
        let (pages, bodies) = column_bytes(&schema, &batches);
        let largest = bodies.iter().flatten().map(|b| b.len()).max().unwrap_or(0);
        Self {
            compressors: bodies
                .iter()
                .map(|_| zstd::bulk::Compressor::new(3).unwrap())
                .collect(),
            schema,
            batches,
            pages,
            bodies,
            compressor: zstd::bulk::Compressor::new(3).unwrap(),
            out: vec![0u8; zstd::zstd_safe::compress_bound(ZSTD_CHUNK.max(largest))],
        }
    }

    fn run(&mut self, name: &str) -> usize {
        let out = &mut self.out;
        match name {
            "floe_zstd3" => encode(&self.schema, &self.batches, &config("zstd")) as usize,
            "floe_zstd3_batch_by_batch" => {
                let config = WriterConfig {
                    column_run_rows: 0,
                    ..config("zstd")
                };
                encode(&self.schema, &self.batches, &config) as usize
            }
            "floe_uncompressed" => {
                encode(&self.schema, &self.batches, &config("uncompressed")) as usize
            }
            "raw_zstd3" => self
                .pages
                .chunks(ZSTD_CHUNK)
                .map(|chunk| self.compressor.compress_to_buffer(chunk, out).unwrap())
                .sum(),
            "raw_zstd3_pages" => self
                .bodies
                .iter()
                .flatten()
                .map(|page| self.compressor.compress_to_buffer(page, out).unwrap())
                .sum(),
            // As parquet-rs's column writers compress them: a context per column, and the
            // pages of all columns in turns (page i of every column, then page i + 1), or in
            // runs of FLOE_BENCH_PAGE_RUN pages per column.
            "raw_zstd3_pages_per_column" => {
                let run: usize = std::env::var("FLOE_BENCH_PAGE_RUN")
                    .ok()
                    .map_or(1, |v| v.parse().unwrap());
                let most = self.bodies.iter().map(Vec::len).max().unwrap_or(0);
                let mut total = 0;
                for first in (0..most).step_by(run) {
                    for (pages, compressor) in self.bodies.iter().zip(&mut self.compressors) {
                        for page in pages.iter().skip(first).take(run) {
                            total += compressor.compress_to_buffer(page, out).unwrap();
                        }
                    }
                }
                total
            }
            "validate_columns" => {
                for batch in &self.batches {
                    for column in batch.columns() {
                        column.to_data().validate_full().unwrap();
                    }
                }
                self.batches.len()
            }
            other => panic!("no benchmark {other}; there are {NAMES:?}"),
        }
    }
}

fn benches<M: Measurement>(c: &mut Criterion<M>) {
    let mut fixture = Fixture::new();
    let mut group = c.benchmark_group("wide50");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(fixture.pages.len() as u64));
    for name in NAMES {
        group.bench_function(name, |b| b.iter(|| fixture.run(name)));
    }
    group.finish();
}

/// `FLOE_BENCH_LOOPS=N` with benchmark names as arguments: runs each N times outside
/// criterion, the names in turns (A B A B ...), so that load which comes and goes on a shared
/// machine hits them alike, and prints each one's CPU times (ms) in run order, so that
/// neighbouring runs can be compared.
fn loops(names: &[String], n: usize) {
    let mut fixture = Fixture::new();
    let mut times = vec![Vec::new(); names.len()];
    for _ in 0..n {
        for (name, times) in names.iter().zip(&mut times) {
            let start = CpuTime::now();
            fixture.run(name);
            times.push((CpuTime::now() - start) as f64 / 1e6);
        }
    }
    for (name, run_times) in names.iter().zip(&times) {
        let mut sorted = run_times.clone();
        sorted.sort_by(f64::total_cmp);
        eprintln!(
            "{name}: {n} runs, CPU ms min {:.1} median {:.1}; in run order {run_times:.1?}",
            sorted[0],
            sorted[sorted.len() / 2]
        );
    }
}

fn main() {
    if let Ok(n) = std::env::var("FLOE_BENCH_LOOPS") {
        let names: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        loops(&names, n.parse().unwrap());
        return;
    }
    if std::env::var("FLOE_BENCH_CLOCK").is_ok_and(|v| v == "cpu") {
        let mut c = Criterion::default()
            .with_measurement(CpuTime { wall: WallTime })
            .configure_from_args();
        benches(&mut c);
        c.final_summary();
    } else {
        let mut c = Criterion::default().configure_from_args();
        benches(&mut c);
        c.final_summary();
    }
}
