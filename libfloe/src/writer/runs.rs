//! Row groups encoded in column runs.
//!
//! parquet-rs gives every column writer its own zstd context (about 0.5 MiB of match tables
//! at level 3 for 160 KiB pages). Encoding batch by batch, every column finishes a page at
//! about the same row, so on a wide table each page is compressed by a context that the other
//! columns' pages have pushed out of the CPU cache since its last page: on the 50-column
//! benchmark table zstd then needs about a third more time than one context compressing the
//! same pages back to back. [`RunEncoder`] holds incoming batches (cheap: Arrow arrays are
//! reference counted) until a run of rows is waiting, then encodes the run one column at a
//! time, so each column writes several pages in a row with a warm context.
//!
//! A column's pages depend only on the values it is given, so a file whose row groups close
//! at the same rows is byte for byte the file batch-by-batch encoding writes. Row groups
//! close by the same rule as parquet-rs's `ArrowWriter` (encoded estimate against the byte
//! limit, a run split at the rows that still fit), applied to runs instead of batches, and a
//! run is started early when it would not fit the row group in progress.
//!
//! With one encode thread and `encode_ahead` (the default), a run is not encoded on the calling
//! thread: its column writers and batches go to a thread of a small pool shared by every
//! encoder in the process ([`ahead_pool`]), and the call returns. The caller goes on handing
//! over batches, which are held for the next run. Before anything needs the row group's state
//! (the next run, a flush, the footer) the encoder waits for the run and takes its writers and
//! batches back ([`RunEncoder::settle`]), so at most one run per file is away. A run only goes
//! away while its row group is far from full (`send_away` says how far), so runs start and row
//! groups close at the rows they would here, and the file is byte for byte the same. This is what
//! keeps a pipeline's earlier stages busy while a run is encoded: runs of every open file fall
//! due at about the same batch, and encoding them one after the other on the caller's thread
//! stalled everything upstream of it.
//!
//! With `encode_threads > 1` the columns of a run are shared out among that many threads
//! (largest first, each thread taking the next column when it is done): the calling thread and
//! the helpers of an [`EncodePool`], started with the first run and reused by every later one
//! until the encoder is dropped. A column writer is only ever touched by one thread at a time
//! and its pages do not depend on which, so the file does not change; the run's batches stay
//! owned by the calling thread, which also drops them (their buffers may belong to the JVM,
//! released through a callback): helpers let go of a run before they report its columns done,
//! and the calling thread waits for every column of the run.

use std::cmp::Reverse;
use std::collections::VecDeque;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnWriter, ArrowRowGroupWriterFactory};
use parquet::arrow::ArrowSchemaConverter;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;

/// When a run of held batches is encoded, and when a row group closes.
#[derive(Clone, Copy, Debug)]
pub struct RunLimits {
    /// A row group closes once its encoded estimate reaches this.
    pub row_group_bytes: usize,
    /// Held rows that start a run (0: every batch is encoded as it arrives).
    pub run_rows: usize,
    /// Held Arrow memory that starts a run.
    pub run_bytes: usize,
    /// Threads encoding a run's columns (1: the calling thread only).
    pub encode_threads: usize,
    /// Encode runs on the shared background pool (with one encode thread only).
    pub encode_ahead: bool,
}

pub struct RunEncoder<W: Write + Send> {
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// For each top-level field, its first leaf column and its number of leaves.
    leaves: Vec<(usize, usize)>,
    limits: RunLimits,
    /// The column writers (one per leaf) of the row group in progress.
    row_group: Option<Vec<ArrowColumnWriter>>,
    row_group_rows: usize,
    /// Encoded bytes per row, last measured on the row group in progress.
    row_bytes: Option<usize>,
    held: VecDeque<RecordBatch>,
    held_rows: usize,
    held_bytes: usize,
    /// Helper threads for encoding a run's columns (0: the calling thread only)...
    helpers: usize,
    /// ...started with the first run that needs them, kept until the encoder is dropped.
    pool: Option<EncodePool>,
    /// Whether runs are encoded on the shared pool ([`ahead_pool`]).
    ahead: bool,
    /// The run being encoded there, if any: the row group's writers are with it.
    away: Option<Away>,
}

/// A run encoded on the shared pool: what it is, and where its writers come back.
struct Away {
    rows: usize,
    /// [`RunEncoder::estimated_size`]'s and [`RunEncoder::buffered_bytes`]'s share of the row
    /// group and the run while they are away (as they were when it left).
    estimated_bytes: usize,
    memory_bytes: usize,
    back: Receiver<Back>,
}

/// A run back from the shared pool: the row group's writers, the run's batches (dropped by
/// the encoder, on its caller's thread) and how the encoding went.
struct Back {
    writers: Vec<ArrowColumnWriter>,
    run: Vec<RecordBatch>,
    result: Result<()>,
}

impl<W: Write + Send> RunEncoder<W> {
    pub fn try_new(
        out: W,
        schema: SchemaRef,
        props: WriterProperties,
        limits: RunLimits,
    ) -> Result<Self> {
        let parquet_schema = ArrowSchemaConverter::new()
            .with_coerce_types(props.coerce_types())
            .convert(&schema)?;
        let mut leaves = vec![(0, 0); schema.fields().len()];
        for leaf in 0..parquet_schema.num_columns() {
            let (first, count) = &mut leaves[parquet_schema.get_column_root_idx(leaf)];
            if *count == 0 {
                *first = leaf;
            }
            *count += 1;
        }
        let file =
            SerializedFileWriter::new(out, parquet_schema.root_schema_ptr(), Arc::new(props))?;
        let factory = ArrowRowGroupWriterFactory::new(&file, schema.clone());
        let helpers = limits.encode_threads.min(leaves.len()).saturating_sub(1);
        Ok(Self {
            file,
            factory,
            schema,
            leaves,
            limits,
            row_group: None,
            row_group_rows: 0,
            row_bytes: None,
            held: VecDeque::new(),
            held_rows: 0,
            held_bytes: 0,
            helpers,
            pool: None,
            ahead: limits.encode_ahead && helpers == 0,
            away: None,
        })
    }

    /// Takes a batch; it is encoded with the run it starts or joins.
    pub fn write(&mut self, batch: RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.held_rows += batch.num_rows();
        self.held_bytes += memory_size(&batch);
        self.held.push_back(batch);
        if self.run_is_due() {
            self.encode_held(false)?;
        }
        Ok(())
    }

    fn run_is_due(&self) -> bool {
        if self.held_rows >= self.limits.run_rows || self.held_bytes >= self.limits.run_bytes {
            return true;
        }
        match self.row_bytes {
            // Nothing encoded yet: encode to learn the size of a row.
            None => true,
            Some(row_bytes) => {
                let room = self
                    .limits
                    .row_group_bytes
                    .saturating_sub(self.row_group_estimate());
                self.held_rows.saturating_mul(row_bytes) >= room
            }
        }
    }

    /// Encodes every held row, closing row groups as parquet-rs's `ArrowWriter` closes them
    /// for one batch of these rows.
    fn encode_held(&mut self, wait: bool) -> Result<()> {
        self.settle()?;
        let limit = self.limits.row_group_bytes;
        while self.held_rows > 0 {
            if self.row_group_rows > 0 {
                let current = self.row_group_bytes();
                if current >= limit {
                    self.close_row_group()?;
                    continue;
                }
                let average = current.checked_div(self.row_group_rows).filter(|a| *a > 0);
                if let Some(average) = average {
                    let fit = (limit - current) / average;
                    if self.held_rows > fit {
                        if fit > 0 {
                            self.encode_rows(fit)?;
                            self.close_row_group_if_full()?;
                        } else {
                            self.close_row_group()?;
                        }
                        continue;
                    }
                }
            }
            if !wait && self.ahead {
                // The last rows of the run go away; the row group check that follows
                // encoding here is done when they are back.
                return self.send_away(self.held_rows);
            }
            self.encode_rows(self.held_rows)?;
            self.close_row_group_if_full()?;
        }
        Ok(())
    }

    /// Sends the first `rows` held rows to be encoded on the shared pool, with the row
    /// group's writers; encodes them here if the pool cannot be had.
    fn send_away(&mut self, rows: usize) -> Result<()> {
        let estimated_bytes = self
            .row_bytes
            .map(|row_bytes| self.row_group_bytes() + rows.saturating_mul(row_bytes));
        let pool = ahead_pool().filter(|_| match (estimated_bytes, self.row_bytes) {
            // While the run is away, the row group's size is only estimated. Runs start when
            // held rows reach the run limits, or early when they would not fit the row group
            // (`run_is_due`): this encoder only sends a run away when the row group stays
            // far from full even at twice the estimated bytes per row until the next run,
            // so that the early start happens when it would here, on the real sizes.
            (Some(estimate), Some(row_bytes)) => {
                let next_run = self.limits.run_rows.saturating_mul(row_bytes);
                estimate.saturating_add(next_run.saturating_mul(2)) < self.limits.row_group_bytes
            }
            // The first run measures the bytes per row.
            _ => false,
        });
        let (Some(pool), Some(estimated_bytes)) = (pool, estimated_bytes) else {
            self.encode_rows(rows)?;
            return self.close_row_group_if_full();
        };
        let held_before = self.held_bytes;
        let run = self.take_held(rows);
        let memory_bytes = self.row_group_memory() + (held_before - self.held_bytes);
        let mut writers = self.take_row_group_writers()?;
        let (schema, leaves) = (self.schema.clone(), self.leaves.clone());
        let (report, back) = mpsc::sync_channel(1);
        pool.run(Box::new(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                encode_run(&schema, &leaves, &mut writers, &run)
            }))
            .unwrap_or_else(|_| {
                Err(ParquetError::General(
                    "a run encoding thread panicked".to_string(),
                ))
            });
            // The encoder waits for this before it is dropped, so the batches go back to be
            // dropped on its caller's thread.
            let _ = report.send(Back {
                writers,
                run,
                result,
            });
        }));
        self.away = Some(Away {
            rows,
            estimated_bytes,
            memory_bytes,
            back,
        });
        Ok(())
    }

    /// Waits for the run away on the shared pool, if any, and takes its writers back; then
    /// closes the row group if the run filled it, as encoding here would have.
    fn settle(&mut self) -> Result<()> {
        let Some(away) = self.away.take() else {
            return Ok(());
        };
        let Back {
            writers,
            run,
            result,
        } = away
            .back
            .recv()
            .map_err(|_| ParquetError::General("a run encoding thread stopped".to_string()))?;
        drop(run);
        result?;
        self.row_group = Some(writers);
        self.row_group_rows += away.rows;
        self.row_bytes = Some(self.row_group_bytes() / self.row_group_rows).filter(|b| *b > 0);
        self.close_row_group_if_full()
    }

    /// Encodes the first `rows` held rows, one top-level column at a time.
    fn encode_rows(&mut self, rows: usize) -> Result<()> {
        if self.helpers > 0 && self.pool.is_none() {
            let pool = EncodePool::start(self.helpers).map_err(|e| {
                ParquetError::General(format!("cannot start column encoding threads: {e}"))
            })?;
            self.pool = Some(pool);
        }
        let run = self.take_held(rows);
        let mut writers = self.take_row_group_writers()?;
        match &self.pool {
            None => encode_run(&self.schema, &self.leaves, &mut writers, &run)?,
            Some(pool) => {
                writers = encode_in_parallel(pool, writers, &self.leaves, &self.schema, run)?;
            }
        }
        self.row_group = Some(writers);
        self.row_group_rows += rows;
        self.row_bytes = Some(self.row_group_bytes() / self.row_group_rows).filter(|b| *b > 0);
        Ok(())
    }

    /// The row group's column writers, taken out of the encoder (new ones for a new row group).
    fn take_row_group_writers(&mut self) -> Result<Vec<ArrowColumnWriter>> {
        match self.row_group.take() {
            Some(writers) => Ok(writers),
            None => self
                .factory
                .create_column_writers(self.file.flushed_row_groups().len()),
        }
    }

    /// Removes the first `rows` held rows (splitting a batch if need be).
    fn take_held(&mut self, rows: usize) -> Vec<RecordBatch> {
        let mut run = Vec::new();
        let mut left = rows;
        while left > 0 {
            let batch = self.held.pop_front().expect("rows are held");
            if batch.num_rows() <= left {
                left -= batch.num_rows();
                run.push(batch);
            } else {
                run.push(batch.slice(0, left));
                self.held
                    .push_front(batch.slice(left, batch.num_rows() - left));
                left = 0;
            }
        }
        self.held_rows -= rows;
        self.held_bytes = self.held.iter().map(memory_size).sum();
        run
    }

    fn close_row_group_if_full(&mut self) -> Result<()> {
        if self.row_group_bytes() >= self.limits.row_group_bytes {
            self.close_row_group()?;
        }
        Ok(())
    }

    fn close_row_group(&mut self) -> Result<()> {
        let Some(writers) = self.row_group.take() else {
            return Ok(());
        };
        let mut row_group = self.file.next_row_group()?;
        for writer in writers {
            writer.close()?.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        self.row_group_rows = 0;
        Ok(())
    }

    /// [`Self::row_group_bytes`], counting a run away on the pool as it was sent.
    fn row_group_estimate(&self) -> usize {
        match &self.away {
            Some(away) => away.estimated_bytes,
            None => self.row_group_bytes(),
        }
    }

    /// The row group's column writers' memory (pages, dictionaries, open page).
    fn row_group_memory(&self) -> usize {
        self.row_group
            .as_ref()
            .map_or(0, |writers| writers.iter().map(|w| w.memory_size()).sum())
    }

    /// Encoded size estimate of the row group in progress.
    fn row_group_bytes(&self) -> usize {
        self.row_group.as_ref().map_or(0, |writers| {
            writers.iter().map(|w| w.get_estimated_total_bytes()).sum()
        })
    }

    /// Bytes written so far plus the estimated encoded size of everything not yet written.
    pub fn estimated_size(&self) -> usize {
        let held = match self.row_bytes {
            Some(row_bytes) => self.held_rows.saturating_mul(row_bytes),
            None => self.held_bytes,
        };
        self.file.bytes_written() + self.row_group_estimate() + held
    }

    /// Memory held for rows not yet written out: the held batches' Arrow buffers and the
    /// row group in progress (its column writers' pages, dictionaries and open page).
    pub fn buffered_bytes(&self) -> usize {
        let row_group = match &self.away {
            Some(away) => away.memory_bytes,
            None => self.row_group_memory(),
        };
        self.held_bytes + row_group
    }

    /// Sends every held row away to be encoded, without waiting (with `encode_ahead` only;
    /// otherwise nothing is done here and the rows wait for the next run or the flush).
    pub fn encode_held_ahead(&mut self) -> Result<()> {
        if self.ahead && self.held_rows > 0 {
            self.encode_held(false)?;
        }
        Ok(())
    }

    /// Waits for the run sent away, if any, and takes its row group back: [`Self::buffered_bytes`]
    /// then counts its encoded pages instead of its batches. The row group stays open unless the
    /// run filled it (then it closes, as it would have with the run encoded here).
    pub fn await_encoded(&mut self) -> Result<()> {
        self.settle()
    }

    /// Encodes everything held and writes it out as the last row group(s); the file stays open.
    pub fn flush(&mut self) -> Result<()> {
        self.encode_held(true)?;
        self.close_row_group()
    }

    /// Flushes and writes the footer.
    pub fn finish(&mut self) -> Result<ParquetMetaData> {
        self.flush()?;
        self.file.finish()
    }

    pub fn inner(&self) -> &W {
        self.file.inner()
    }

    /// The sink, bypassing the file writer's buffering: only for observing what passes through.
    pub fn inner_mut(&mut self) -> &mut W {
        self.file.inner_mut()
    }
}

impl<W: Write + Send> Drop for RunEncoder<W> {
    /// A run away on the pool is waited for, so that its batches are dropped on this thread.
    fn drop(&mut self) {
        if let Some(away) = self.away.take() {
            let _ = away.back.recv();
        }
    }
}

/// Work for the shared pool.
type Task = Box<dyn FnOnce() + Send>;

/// Threads that encode runs for every encoder in the process (`encode_ahead`), one per core:
/// started with the first run sent, they live as long as the process. A task holds only what
/// it was given (a run's batches and its row group's writers), and each encoder has at most
/// one task out, so tasks never wait for each other. None if no thread could be started.
fn ahead_pool() -> Option<&'static AheadPool> {
    static POOL: std::sync::OnceLock<Option<AheadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(AheadPool::start).as_ref()
}

struct AheadPool {
    tasks: Mutex<Sender<Task>>,
}

impl AheadPool {
    fn start() -> Option<Self> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (tasks, queue) = mpsc::channel::<Task>();
        let queue = Arc::new(Mutex::new(queue));
        let mut started = 0;
        for i in 0..threads {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("floe-encode-ahead-{i}"))
                .spawn(move || loop {
                    // A statement of its own, so the lock is released before the task runs.
                    let task = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    match task {
                        Ok(task) => task(),
                        Err(_) => return,
                    }
                });
            if spawned.is_ok() {
                started += 1;
            }
        }
        (started > 0).then(|| Self {
            tasks: Mutex::new(tasks),
        })
    }

    /// Queues a task; the pool's threads never stop, so it always runs.
    fn run(&self, task: Task) {
        let tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        tasks
            .send(task)
            .expect("the encode-ahead threads hold the queue for the process's life");
    }
}

/// Encodes a run's columns one after the other: `writers` are the row group's, `leaves` each
/// top-level field's first leaf and leaf count.
fn encode_run(
    schema: &SchemaRef,
    leaves: &[(usize, usize)],
    writers: &mut [ArrowColumnWriter],
    run: &[RecordBatch],
) -> Result<()> {
    for (field, &(first, count)) in leaves.iter().enumerate() {
        encode_column(schema, field, &mut writers[first..first + count], run)?;
    }
    Ok(())
}

/// Encodes one top-level column of a run: `writers` are the writers of its leaves.
fn encode_column(
    schema: &SchemaRef,
    field: usize,
    writers: &mut [ArrowColumnWriter],
    run: &[RecordBatch],
) -> Result<()> {
    let arrow_field = schema.field(field);
    for batch in run {
        for (writer, leaf) in writers
            .iter_mut()
            .zip(compute_leaves(arrow_field, batch.column(field))?)
        {
            writer.write(&leaf)?;
        }
    }
    Ok(())
}

/// Arrow memory of a column in the run: the order columns are handed out in.
fn weight(field: usize, run: &[RecordBatch]) -> usize {
    run.iter()
        .map(|b| b.column(field).get_array_memory_size())
        .sum()
}

/// Encodes the run's columns on the calling thread and the pool's helpers, largest column
/// first, and gives back the row group's writers in their order; returns the error of the
/// first column (in field order) that failed.
fn encode_in_parallel(
    pool: &EncodePool,
    mut writers: Vec<ArrowColumnWriter>,
    leaves: &[(usize, usize)],
    schema: &SchemaRef,
    run: Vec<RecordBatch>,
) -> Result<Vec<ArrowColumnWriter>> {
    let total = writers.len();
    let run = Arc::new(Run {
        schema: schema.clone(),
        batches: run,
    });
    let mut jobs: Vec<Job> = leaves
        .iter()
        .enumerate()
        .rev()
        .map(|(field, &(_, count))| Job {
            field,
            writers: writers.split_off(writers.len() - count),
            run: run.clone(),
        })
        .collect();
    jobs.sort_by_cached_key(|job| Reverse(weight(job.field, &job.run.batches)));
    let mut done = pool.encode(jobs);
    // Every job is back, so this is the last reference: the batches are dropped here, on the
    // calling thread.
    drop(run);
    if done.len() != leaves.len() {
        return Err(ParquetError::General(
            "a column encoding thread stopped".to_string(),
        ));
    }
    done.sort_by_key(|d| d.field);
    let mut writers = Vec::with_capacity(total);
    for d in done {
        d.result?;
        writers.extend(d.writers);
    }
    Ok(writers)
}

/// The batches of a run being encoded in parallel, shared by its jobs.
struct Run {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

/// One top-level column of a run to encode, with the writers of its leaves.
struct Job {
    field: usize,
    writers: Vec<ArrowColumnWriter>,
    run: Arc<Run>,
}

/// A job back from encoding: the column's writers and how it went.
struct Done {
    field: usize,
    writers: Vec<ArrowColumnWriter>,
    result: Result<()>,
}

impl Job {
    /// Encodes the column, then lets go of the run before reporting back (the calling thread
    /// must hold the batches' last reference). A panic becomes the column's error.
    fn run(self) -> Done {
        let Job {
            field,
            mut writers,
            run,
        } = self;
        let result = catch_unwind(AssertUnwindSafe(|| {
            encode_column(&run.schema, field, &mut writers, &run.batches)
        }))
        .unwrap_or_else(|_| {
            Err(ParquetError::General(
                "a column encoding thread panicked".to_string(),
            ))
        });
        drop(run);
        Done {
            field,
            writers,
            result,
        }
    }
}

/// Helper threads encoding the columns of runs: started once per encoder, reused by every
/// run, ended and joined when the pool (with the encoder) is dropped. Between runs they wait,
/// parked.
struct EncodePool {
    shared: Arc<Shared>,
    done: Receiver<Done>,
    helpers: Vec<JoinHandle<()>>,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when jobs arrive and when the pool closes.
    work: Condvar,
}

struct Queue {
    jobs: VecDeque<Job>,
    closing: bool,
}

impl Shared {
    /// The queue; no code panics while holding it, but a poisoned lock would still be usable.
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl EncodePool {
    fn start(helpers: usize) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                closing: false,
            }),
            work: Condvar::new(),
        });
        let (report, done) = mpsc::channel();
        let mut pool = Self {
            shared,
            done,
            helpers: Vec::with_capacity(helpers),
        };
        for i in 0..helpers {
            let (shared, report) = (pool.shared.clone(), report.clone());
            // On error, dropping `pool` ends the helpers already started.
            let helper = std::thread::Builder::new()
                .name(format!("floe-encode-{i}"))
                .spawn(move || help(&shared, &report))?;
            pool.helpers.push(helper);
        }
        Ok(pool)
    }

    /// Runs every job, on the calling thread and the helpers; returns when all are back (fewer
    /// only if every helper has stopped, which `Job::run` catching panics should prevent).
    fn encode(&self, jobs: Vec<Job>) -> Vec<Done> {
        let count = jobs.len();
        self.shared.queue().jobs.extend(jobs);
        self.shared.work.notify_all();
        let mut done = Vec::with_capacity(count);
        loop {
            // A statement of its own, so the lock is released before the job runs.
            let next = self.shared.queue().jobs.pop_front();
            let Some(job) = next else { break };
            done.push(job.run());
        }
        while done.len() < count {
            match self.done.recv() {
                Ok(d) => done.push(d),
                Err(_) => break,
            }
        }
        done
    }
}

/// A helper's life: take a job, run it, report it; until the pool closes.
fn help(shared: &Shared, report: &Sender<Done>) {
    loop {
        let job = {
            let mut queue = shared.queue();
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                if queue.closing {
                    return;
                }
                queue = shared
                    .work
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        if report.send(job.run()).is_err() {
            return;
        }
    }
}

impl Drop for EncodePool {
    fn drop(&mut self) {
        self.shared.queue().closing = true;
        self.shared.work.notify_all();
        for helper in self.helpers.drain(..) {
            let _ = helper.join();
        }
    }
}

/// The Arrow memory holding a batch keeps alive: whole buffers, also when the batch is a
/// slice of larger ones (as a partition group is a slice of its regrouped batch), so that
/// the limit bounds what is retained, not just the rows' own bytes.
fn memory_size(batch: &RecordBatch) -> usize {
    batch.get_array_memory_size()
}
