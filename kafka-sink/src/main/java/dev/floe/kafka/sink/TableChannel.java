package dev.floe.kafka.sink;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.iceberg.CycleFiles;
import dev.floe.iceberg.CycleWriters;
import dev.floe.iceberg.DecodedMessages;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import dev.floe.iceberg.TableEvolution;
import dev.floe.iceberg.UnknownFieldNotes;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the sink does for one table: the consumer thread packs the table's records into
 * message batches; two threads of the table's own decode them and encode them natively into the
 * cycle's task writer -- a decode thread a batch ahead of the writer thread (or, without {@code
 * decodeAhead}, the writer thread alone does both) -- so the consumer keeps fetching meanwhile.
 * Batches in flight are bounded by bytes (a semaphore shared by all tables): a slow writer slows
 * the consumer instead of filling memory.
 *
 * <p>A commit cycle ends with {@link #seal()}: the writer thread completes the cycle's files after
 * its last batch, in the background, while the next record already starts the next cycle.
 *
 * <p>With {@code evolve.schema}, the thread that decodes a batch first evolves the table for what
 * the batch carries and the table lacks ({@link CycleWriters}), then decodes it again for the
 * new schema; the cycle goes on in a second task writer, so the batch's new fields land in the
 * same commit as the rest of the cycle.
 *
 * <p>Also remembers the Kafka offsets the table holds for this sink's partitions, which each
 * commit must find unchanged (fencing).
 */
final class TableChannel implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableChannel.class);
  /**
   * Headroom over a new batch's expected fill: a batch is handed over once it holds batchBytes, so
   * its last message overshoots that, and batches of batchRecords messages vary in size.
   */
  private static final long LAST_MESSAGE_ROOM = 64 << 10;
  /** Presizing stops here (a huge batchBytes/batchRecords means "never by this"): beyond, batches grow once. */
  private static final long MAX_PRESIZED_BYTES = 64L << 20;
  private static final int MAX_PRESIZED_MESSAGES = 1 << 20;

  private final TableIdentifier id;
  /** The table commits go to (the commit thread refreshes it). */
  private final Table table;
  /** The same table, followed on the consumer thread at each cycle's start (schema and spec). */
  private final FollowedTable followed;
  private final SinkConfig config;
  /**
   * Fields the table lacks are counted (it costs nothing while none come) and named once; with
   * schema evolution they are described, as are values too wide for their column.
   */
  private final JsonDecoderConfig decoding;
  /** Schema evolution (the decoding thread's), or null without. */
  private final TableEvolution evolution;
  private final BufferAllocator allocator;
  /** The decoder for the followed table's schema as of the last cycle's start. */
  private NativeJsonDecoder decoder;
  /**
   * In upsert mode, the decoder of tombstones' keys (JSON objects of the identifier fields) for the
   * same schema, used on the writer thread; null in append mode.
   */
  private NativeJsonDecoder keyDecoder;
  /** Decodes batches a step ahead of the writer thread; null without decodeAhead. */
  private final ExecutorService decodeStage;
  /** Encodes into the task writer, completes and aborts it: the only thread touching its files. */
  private final ExecutorService writeStage;
  private final Semaphore inFlight;
  /** The sink's budget for rows its open files buffer, one permit per byte. */
  private final Semaphore fileBuffers;
  /** Permits this table's open files hold for their buffered rows (writer thread only). */
  private int bufferedPermits;
  private final BatchPool pool;
  private final DeadLetters deadLetters;
  private final SinkMetrics metrics;
  private final BooleanSupplier stopRequested;
  /** What the table holds of this sink's partitions, as last seen (loaded or committed). */
  private final HeldOffsets held = new HeldOffsets();
  /** Fields the table lacks, counted and named (the decoding stage's thread only). */
  private final UnknownFieldNotes unknownFields;
  private SinkBatch open;
  /** Payload bytes of the fullest batch handed over so far (consumer thread); -1 before the first. */
  private long fullestBatchBytes = -1;
  /** The cycle being filled: made and sealed by the consumer thread, written by the stages. */
  private Cycle cycle;
  private long cycleRecords;
  /** The first failure of any cycle: the consumer thread stops on it. */
  private volatile Throwable failure;

  /**
   * One commit cycle's task writers and the first failure of its batches. A failed cycle writes
   * no more batches and is never completed; other cycles are not affected by it (a batch of the
   * next cycle may fail while this one's last batches still wait for the writer thread).
   */
  private static final class Cycle {
    final CycleWriters writers;
    volatile Throwable failure;

    Cycle(CycleWriters writers) {
      this.writers = writers;
    }
  }

  /**
   * What every table of one sink shares: its settings, allocator, budgets (one permit per byte:
   * {@code inFlight} for batches in flight and spare, counted by the {@code pool}; {@code
   * fileBuffers} for rows the open files buffer), the dead-letter topic, the metrics, and whether
   * the sink was asked to stop.
   */
  record Shared(
      SinkConfig config,
      BufferAllocator allocator,
      Semaphore inFlight,
      Semaphore fileBuffers,
      BatchPool pool,
      DeadLetters deadLetters,
      SinkMetrics metrics,
      BooleanSupplier stopRequested) {}

  TableChannel(TableIdentifier id, Table table, Shared shared) {
    this.id = id;
    this.table = table;
    this.config = shared.config();
    this.decoding = config.evolveSchema()
        ? TableEvolution.DESCRIBING
        : JsonDecoderConfig.defaults().withReportUnknownFields(true);
    this.allocator = shared.allocator();
    this.followed = new FollowedTable(config.catalog().loadTable(id), this::writerFactory);
    this.decoder = NativeJsonDecoder.create(followed.factory().arrowSchema(), decoding);
    this.keyDecoder = keyDecoder(followed.factory());
    this.decodeStage = config.decodeAhead() ? stage("floe-decode-" + id) : null;
    this.writeStage = stage("floe-writer-" + id);
    this.inFlight = shared.inFlight();
    this.fileBuffers = shared.fileBuffers();
    this.pool = shared.pool();
    this.deadLetters = shared.deadLetters();
    this.metrics = shared.metrics();
    this.unknownFields = new UnknownFieldNotes(id, metrics::unknownFieldValues);
    this.evolution = config.evolveSchema()
        ? new TableEvolution(() -> config.catalog().loadTable(id), this::writerFactory, metrics::schemaEvolved)
        : null;
    this.stopRequested = shared.stopRequested();
  }

  /** A writer factory for {@code table}'s current schema and spec; checks that it can upsert if asked to. */
  private NativeFileWriterFactory writerFactory(Table table) {
    NativeFileWriterFactory made =
        NativeFileWriterFactory.forTable(table, allocator, 0, System.nanoTime()).withEncoding(config.encodeThreads(), config.encodeAhead());
    String notByKey = config.upsert() ? NativeFileWriterFactory.keyedWritesRefusal(table) : null;
    if (notByKey != null) { // checked now, naming the table (the writer's own refusal says "the table")
      throw new IllegalArgumentException("upserts cannot be written: " + notByKey);
    }
    return made;
  }

  /** The decoder of tombstones' keys for {@code factory}'s schema in upsert mode; null otherwise. */
  private NativeJsonDecoder keyDecoder(NativeFileWriterFactory factory) {
    return config.upsert()
        ? NativeJsonDecoder.create(factory.equalityDeleteArrowSchema(), JsonDecoderConfig.defaults())
        : null;
  }

  /**
   * At a cycle's start: when the table's schema or spec changed (an ALTER TABLE while the sink
   * runs), this cycle and the next ones are written with them. Cycles begun before keep their
   * schema; the decoder they use is closed once their last batch is decoded (the stage that
   * decodes runs its tasks in order).
   */
  private void followTable() {
    NativeFileWriterFactory next = followed.refresh();
    if (next == null) {
      return;
    }
    NativeJsonDecoder retired = decoder;
    decoder = NativeJsonDecoder.create(next.arrowSchema(), decoding);
    (decodeStage != null ? decodeStage : writeStage).execute(retired::close);
    NativeJsonDecoder retiredKeys = keyDecoder;
    keyDecoder = keyDecoder(next);
    if (retiredKeys != null) { // keys are decoded on the writer thread, after the decode stage
      afterQueued(retiredKeys::close);
    }
  }

  /** Runs {@code task} on the writer thread after every batch queued so far, wherever it is. */
  private void afterQueued(Runnable task) {
    if (decodeStage != null) {
      decodeStage.execute(() -> writeStage.execute(task));
    } else {
      writeStage.execute(task);
    }
  }

  private static ExecutorService stage(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  TableIdentifier id() {
    return id;
  }

  Table table() {
    return table;
  }

  HeldOffsets held() {
    return held;
  }

  /** Records added in this commit cycle. */
  long cycleRecords() {
    return cycleRecords;
  }

  /**
   * Adds one record to the open batch; hands the batch to the stages when it is full. A tombstone
   * (upsert mode; the sink checked it has a key) goes into a batch of keys: values and keys take
   * turns in batches of their own, so every change of a key lands in order.
   */
  void add(ConsumerRecord<ByteBuffer, ByteBuffer> record, PartitionSource source) {
    throwIfFailed();
    boolean keys = record.value() == null;
    if (open != null && open.keys != keys) {
      flushBatch();
    }
    if (open == null) {
      open = pool.take(presizedBytes(), Math.clamp(config.batchRecords(), 1, MAX_PRESIZED_MESSAGES));
      open.keys = keys;
    }
    open.add(record, source);
    cycleRecords++;
    if (open.messages.size() >= config.batchRecords() || open.messages.byteSize() >= config.batchBytes()) {
      flushBatch();
    }
  }

  /**
   * Room for a full batch, so filling one never reallocates: batchBytes, or, once batches have
   * been handed over, only as many bytes as the fullest one held (small records fill batchRecords
   * long before batchBytes; the room is zeroed and resident). Batches are reused and keep any
   * capacity they grew to.
   */
  private long presizedBytes() {
    long bytes = Math.clamp(config.batchBytes(), 0, MAX_PRESIZED_BYTES);
    if (fullestBatchBytes >= 0) {
      bytes = Math.min(bytes, fullestBatchBytes);
    }
    return bytes + LAST_MESSAGE_ROOM;
  }

  /** Hands the open batch to the stages, waiting while too many bytes are in flight. */
  void flushBatch() {
    if (open == null || open.messages.size() == 0) {
      return;
    }
    SinkBatch batch = open;
    // Before the permits are taken: if reading the table fails, the batch is still the open one
    // (given back when the channel closes) and no permit is lost.
    if (cycle == null) {
      followTable();
      cycle = new Cycle(new CycleWriters(followed.factory(), decoder, keyDecoder, evolution));
    }
    fullestBatchBytes = Math.max(fullestBatchBytes, batch.messages.byteSize());
    // One permit per payload byte, at most the whole budget (a huge batch still goes through).
    int held = (int) Math.max(1, Math.min(batch.messages.byteSize(), inFlightBudget()));
    awaitRoom(held);
    open = null;
    Cycle filling = cycle;
    if (batch.keys) {
      afterQueued(writerTask(filling, batch, held, () -> deleteKeys(filling, batch)));
      return;
    }
    if (decodeStage == null && !config.evolveSchema()) {
      writeStage.execute(writerTask(filling, batch, held, () -> {
        DecodeStats stats = filling.writers.firstWriter().write(filling.writers.decoder(), batch.messages, policy());
        unknownFields.take(filling.writers.decoder());
        rejected(stats, batch);
        metrics.rowsWritten(stats.rows());
        holdBuffered(filling);
      }));
      return;
    }
    (decodeStage != null ? decodeStage : writeStage).execute(() -> {
      DecodedMessages decoded = null;
      NativeTaskWriter target = null;
      try {
        if (filling.failure == null) {
          decoded = filling.writers.decode(batch.messages, policy(), unknownFields);
          target = filling.writers.decodingWriter();
          rejected(decoded.stats(), batch);
        }
      } catch (Throwable t) {
        fail(filling, t);
      } finally {
        recycle(batch); // decoding copied what it kept
      }
      if (decoded == null) {
        inFlight.release(held);
        return;
      }
      DecodedMessages rows = decoded;
      NativeTaskWriter into = target;
      Runnable writeRows = () -> {
        try (rows) {
          if (filling.failure == null) {
            metrics.rowsWritten(write(filling, into, rows).rows());
          }
        } catch (Throwable t) {
          fail(filling, t);
        } finally {
          inFlight.release(held);
        }
      };
      // On the writer thread already (no decode stage), the rows are written before the next task.
      if (decodeStage == null) {
        writeRows.run();
      } else {
        writeStage.execute(writeRows);
      }
    });
  }

  /**
   * {@code work} on {@code batch} as a task of the writer thread: skipped once the cycle failed, a
   * failure of its own fails the cycle, and the batch and its {@code held} in-flight permits go
   * back either way.
   */
  private Runnable writerTask(Cycle filling, SinkBatch batch, int held, Runnable work) {
    return () -> {
      try {
        if (filling.failure == null) {
          work.run();
        }
      } catch (Throwable t) {
        fail(filling, t);
      } finally {
        inFlight.release(held);
        recycle(batch);
      }
    };
  }

  /** On the writer thread: deletes the rows of a batch of tombstones' keys. */
  private void deleteKeys(Cycle cycle, SinkBatch batch) {
    DecodeStats keys = cycle.writers.deleteKeys(batch.messages, policy(), allocator);
    metrics.rowsWritten(keys.rows());
    rejected(keys, batch);
    holdBuffered(cycle);
  }

  /**
   * On the writer thread: writes rows into the writer that decoded them. When the cycle moved to
   * a new writer, the old one's buffered rows were written out: their permits go back.
   */
  private DecodeStats write(Cycle cycle, NativeTaskWriter into, DecodedMessages rows) {
    boolean moved = cycle.writers.writing() != into;
    DecodeStats stats = cycle.writers.write(into, rows);
    if (moved) {
      releaseBuffered();
    }
    holdBuffered(cycle);
    return stats;
  }

  private long inFlightBudget() {
    return config.batchBudgetBytes();
  }

  /**
   * On the writer thread, after a write: the open files' buffered rows hold permits of the sink's
   * file buffer budget. Without room for what they grew by, the rows they hold as Arrow batches are
   * encoded into their row groups, which stay open (most of the memory was the batches); if that
   * is not enough, everything is written out as row groups now (smaller row groups, the same
   * files) and holds nothing.
   */
  private void holdBuffered(Cycle cycle) {
    NativeTaskWriter writing = cycle.writers.writing();
    long buffered = Math.min(writing.bufferedBytes(), Integer.MAX_VALUE);
    if (!holds(buffered)) {
      writing.encodeBuffered();
      buffered = Math.min(writing.bufferedBytes(), Integer.MAX_VALUE);
      if (!holds(buffered)) {
        writing.flushBuffered();
        releaseBuffered();
        return;
      }
    }
    if (buffered < bufferedPermits) {
      fileBuffers.release(bufferedPermits - (int) buffered);
    }
    bufferedPermits = (int) buffered;
  }

  /** Whether {@code buffered} bytes fit the permits held, or the budget has room for the rest. */
  private boolean holds(long buffered) {
    return buffered <= bufferedPermits || fileBuffers.tryAcquire((int) buffered - bufferedPermits);
  }

  /** On the writer thread, once the cycle's files are closed or dropped. */
  private void releaseBuffered() {
    fileBuffers.release(bufferedPermits);
    bufferedPermits = 0;
  }

  /** The decoder hands bad messages over under SKIP too: the first ten are logged with their reason. */
  private BadRecordPolicy policy() {
    return config.badRecords() == BadRecordPolicy.FAIL ? BadRecordPolicy.FAIL : BadRecordPolicy.DEAD_LETTER;
  }

  private void recycle(SinkBatch batch) {
    pool.give(batch);
  }

  /**
   * Waits until the in-flight budget has {@code permits} to spare, freeing spare batches first.
   *
   * @throws StopRequestedException if the sink is asked to stop meanwhile
   * @throws SinkException if the thread is interrupted
   */
  private void awaitRoom(int permits) {
    if (inFlight.tryAcquire(permits)) {
      return;
    }
    pool.trim();
    try {
      while (!inFlight.tryAcquire(permits, 100, TimeUnit.MILLISECONDS)) {
        if (stopRequested.getAsBoolean()) {
          throw new StopRequestedException();
        }
        // A batch given back between the trim and the wait may have been kept as a spare, and
        // with nothing else in flight its room would never come back.
        pool.trim();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while waiting for room in the in-flight budget", e);
    }
  }

  /** The sink was asked to stop while its consumer waited for the writers. */
  static final class StopRequestedException extends RuntimeException {
    StopRequestedException() {
      super("stop requested while waiting for room in the in-flight budget", null, false, false);
    }
  }

  /** Keeps the first failure of either stage; the cycle's later batches are dropped, not written. */
  private synchronized void fail(Cycle failed, Throwable t) {
    if (t instanceof BadRecordException e) {
      t = new SinkException("bad record for table " + id + ": " + e.getMessage(), e);
    }
    if (failed.failure == null) {
      failed.failure = t;
    }
    if (failure == null) {
      failure = t;
    }
  }

  /** On a stage thread, while the batch is still there: skips or dead-letters its bad records. */
  private void rejected(DecodeStats stats, SinkBatch batch) {
    rejected(stats.rejected(), batch);
  }

  private void rejected(List<RejectedMessage> rejects, SinkBatch batch) {
    for (RejectedMessage rejected : rejects) {
      metrics.badRecord();
      if (batch.origins != null) {
        deadLetters.send(batch.origins.deadLetter(rejected));
        metrics.deadLettered();
      } else if (metrics.badRecords() <= 10) {
        LOG.warn("skipped bad record {}: {}", rejected.describe(), rejected.reason());
      }
    }
  }

  /**
   * Ends the cycle: once the stages have written its last batch, the writer thread completes its
   * task writer (an empty result if nothing was written). Returns at once; the next record starts
   * a new cycle, written after this one. A cycle with a failed batch completes exceptionally and
   * its files are deleted.
   */
  CompletableFuture<CycleFiles> seal() {
    flushBatch();
    Cycle sealed = cycle;
    cycle = null;
    cycleRecords = 0;
    if (sealed == null) {
      return CompletableFuture.completedFuture(CycleFiles.none());
    }
    CompletableFuture<CycleFiles> result = new CompletableFuture<>();
    Runnable complete = () -> {
      try {
        if (sealed.failure != null) {
          throw sealed.failure;
        }
        CycleFiles files = sealed.writers.complete(table.io());
        releaseBuffered();
        result.complete(files);
      } catch (Throwable t) {
        abort(sealed);
        releaseBuffered();
        result.completeExceptionally(t);
      }
    };
    // Each decoded batch queues its write before the decode stage takes its next task, so the
    // completion queued from there runs after the cycle's last write.
    if (decodeStage == null) {
      writeStage.execute(() -> {
        sealed.writers.closeOwnDecoders();
        complete.run();
      });
    } else {
      decodeStage.execute(() -> {
        sealed.writers.closeOwnDecoders();
        writeStage.execute(complete);
      });
    }
    return result;
  }

  /** Drops the cycle: the open batch is dropped, the cycle's files deleted. */
  void abortCycle() {
    if (open != null) {
      open.clear();
    }
    Cycle aborting = cycle;
    cycle = null;
    try {
      drainDecodeStage();
      writeStage.submit(() -> {
        abort(aborting);
        releaseBuffered();
        if (aborting != null) {
          aborting.writers.closeOwnDecoders();
        }
      }).get();
    } catch (ExecutionException | InterruptedException e) {
      throw SinkException.wrap(e instanceof ExecutionException ee ? ee.getCause() : e);
    }
    cycleRecords = 0;
  }

  /** Waits until every batch handed over has been decoded (and so queued on the writer thread). */
  private void drainDecodeStage() throws ExecutionException, InterruptedException {
    if (decodeStage != null) {
      decodeStage.submit(() -> {}).get();
    }
  }

  private static void abort(Cycle cycle) {
    if (cycle != null) {
      cycle.writers.abort();
    }
  }

  /**
   * Forgets the failure of a cycle that was dropped (so that the next one is written), once no
   * stage works on it any more: after {@link #abortCycle()} and after the sealed cycles completed.
   */
  void forgetFailure() {
    failure = null;
  }

  void throwIfFailed() {
    Throwable t = failure;
    if (t != null) {
      throw SinkException.wrap(t);
    }
  }

  /** Drops unwritten batches and deletes the cycle's files (they were never committed). */
  @Override
  public void close() {
    Cycle aborting = cycle;
    cycle = null;
    if (decodeStage != null) {
      decodeStage.shutdown(); // queued batches still decode, and queue their writes
      awaitTermination(decodeStage);
    }
    writeStage.execute(() -> {
      abort(aborting);
      releaseBuffered();
      if (aborting != null) {
        aborting.writers.closeOwnDecoders();
      }
    });
    writeStage.shutdown();
    awaitTermination(writeStage);
    decoder.close();
    if (keyDecoder != null) {
      keyDecoder.close();
    }
    if (open != null) {
      open.close();
    }
  }

  private static void awaitTermination(ExecutorService stage) {
    try {
      stage.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
