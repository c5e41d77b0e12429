package dev.floe.iceberg.sink;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.iceberg.DecodedMessages;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;
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
  private final Table table;
  private final SinkConfig config;
  private final NativeFileWriterFactory factory;
  private final NativeJsonDecoder decoder;
  /** Decodes batches a step ahead of the writer thread; null without decodeAhead. */
  private final ExecutorService decodeStage;
  /** Encodes into the task writer, completes and aborts it: the only thread touching its files. */
  private final ExecutorService writeStage;
  private final Semaphore inFlight;
  private final DeadLetters deadLetters;
  private final SinkMetrics metrics;
  private final ArrayDeque<MessageBatch> spare = new ArrayDeque<>();
  /**
   * Offsets the table holds for this sink's partitions, as last seen (loaded or committed):
   * updated by the commit thread, read by the consumer thread.
   */
  private final Map<TopicPartition, Long> stored = new ConcurrentHashMap<>();
  private MessageBatch open;
  /** Payload bytes of the fullest batch handed over so far (consumer thread); -1 before the first. */
  private long fullestBatchBytes = -1;
  /** The cycle being filled: made and sealed by the consumer thread, written by the stages. */
  private Cycle cycle;
  private long cycleRecords;
  /** The first failure of any cycle: the consumer thread stops on it. */
  private volatile Throwable failure;

  /**
   * One commit cycle's task writer and the first failure of its batches. A failed cycle writes
   * no more batches and is never completed; other cycles are not affected by it (a batch of the
   * next cycle may fail while this one's last batches still wait for the writer thread).
   */
  private static final class Cycle {
    final NativeTaskWriter writer;
    volatile Throwable failure;

    Cycle(NativeTaskWriter writer) {
      this.writer = writer;
    }
  }

  TableChannel(
      TableIdentifier id,
      Table table,
      SinkConfig config,
      BufferAllocator allocator,
      Semaphore inFlight,
      DeadLetters deadLetters,
      SinkMetrics metrics) {
    this.id = id;
    this.table = table;
    this.config = config;
    this.factory =
        NativeFileWriterFactory.forTable(table, allocator, 0, System.nanoTime())
            .withEncodeThreads(config.encodeThreads());
    if (config.upsert()) {
      factory.newUpsertTaskWriter().abort(); // checks now that the table supports upserts
    }
    this.decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
    this.decodeStage = config.decodeAhead() ? stage("floe-decode-" + id) : null;
    this.writeStage = stage("floe-writer-" + id);
    this.inFlight = inFlight;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
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

  Map<TopicPartition, Long> stored() {
    return stored;
  }

  /** Records added in this commit cycle. */
  long cycleRecords() {
    return cycleRecords;
  }

  /** Adds one record to the open batch; hands the batch to the worker when it is full. */
  void add(ByteBuffer value, String topic, int partition, long offset) {
    throwIfFailed();
    if (open == null) {
      synchronized (spare) {
        open = spare.isEmpty() ? newBatch() : spare.pop();
      }
    }
    open.add(value, topic, partition, offset);
    cycleRecords++;
    if (open.size() >= config.batchRecords() || open.byteSize() >= config.batchBytes()) {
      flushBatch();
    }
  }

  /**
   * A batch with room for a full batch, so filling it never reallocates: batchRecords messages
   * and batchBytes, or, once batches have been handed over, only as many bytes as the fullest one
   * held (small records fill batchRecords long before batchBytes; the room is zeroed and resident).
   * Batches are reused and keep any capacity they grew to.
   */
  private MessageBatch newBatch() {
    long bytes = Math.clamp(config.batchBytes(), 0, MAX_PRESIZED_BYTES);
    if (fullestBatchBytes >= 0) {
      bytes = Math.min(bytes, fullestBatchBytes);
    }
    int messages = Math.clamp(config.batchRecords(), 1, MAX_PRESIZED_MESSAGES);
    return new MessageBatch(bytes + LAST_MESSAGE_ROOM, messages);
  }

  /** Hands the open batch to the stages, waiting while too many bytes are in flight. */
  void flushBatch() {
    if (open == null || open.size() == 0) {
      return;
    }
    MessageBatch batch = open;
    open = null;
    fullestBatchBytes = Math.max(fullestBatchBytes, batch.byteSize());
    // One permit per payload byte, at most the whole budget (a huge batch still goes through).
    int held = (int) Math.max(1, Math.min(batch.byteSize(), inFlightBudget()));
    inFlight.acquireUninterruptibly(held);
    if (cycle == null) {
      cycle = new Cycle(config.upsert() ? factory.newUpsertTaskWriter() : factory.newTaskWriter());
    }
    Cycle filling = cycle;
    if (decodeStage == null) {
      writeStage.execute(() -> {
        try {
          if (filling.failure == null) {
            written(filling.writer.write(decoder, batch, policy()));
          }
        } catch (Throwable t) {
          fail(filling, t);
        } finally {
          inFlight.release(held);
          recycle(batch);
        }
      });
      return;
    }
    decodeStage.execute(() -> {
      DecodedMessages decoded = null;
      try {
        if (filling.failure == null) {
          decoded = filling.writer.decode(decoder, batch, policy());
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
      writeStage.execute(() -> {
        try (rows) {
          if (filling.failure == null) {
            written(filling.writer.write(rows));
          }
        } catch (Throwable t) {
          fail(filling, t);
        } finally {
          inFlight.release(held);
        }
      });
    });
  }

  private long inFlightBudget() {
    return Math.min(Integer.MAX_VALUE, config.maxInFlightBytes());
  }

  private BadRecordPolicy policy() {
    return config.badRecords() == BadRecordMode.FAIL ? BadRecordPolicy.FAIL : BadRecordPolicy.COLLECT;
  }

  private void recycle(MessageBatch batch) {
    batch.clear();
    synchronized (spare) {
      spare.push(batch);
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

  /** On the writer thread: counts a written batch and hands its bad records on. */
  private void written(DecodeStats stats) {
    metrics.rowsWritten(stats.rows());
    for (RejectedMessage rejected : stats.rejected()) {
      badRecord(rejected);
    }
  }

  /** Skips or dead-letters one bad record (FAIL never gets here: it stops the sink). */
  void badRecord(RejectedMessage rejected) {
    metrics.badRecord();
    if (config.badRecords() == BadRecordMode.DEAD_LETTER) {
      deadLetters.send(rejected);
      metrics.deadLettered();
    } else if (metrics.badRecords() <= 10) {
      LOG.warn("skipped bad record {}: {}", rejected.source(), rejected.reason());
    }
  }

  /**
   * Ends the cycle: once the stages have written its last batch, the writer thread completes its
   * task writer (an empty result if nothing was written). Returns at once; the next record starts
   * a new cycle, written after this one. A cycle with a failed batch completes exceptionally and
   * its files are deleted.
   */
  CompletableFuture<WriteResult> seal() {
    flushBatch();
    Cycle sealed = cycle;
    cycle = null;
    cycleRecords = 0;
    if (sealed == null) {
      return CompletableFuture.completedFuture(WriteResult.builder().build());
    }
    CompletableFuture<WriteResult> result = new CompletableFuture<>();
    Runnable complete = () -> {
      try {
        if (sealed.failure != null) {
          throw sealed.failure;
        }
        result.complete(sealed.writer.complete());
      } catch (Throwable t) {
        abort(sealed.writer);
        result.completeExceptionally(t);
      }
    };
    // Each decoded batch queues its write before the decode stage takes its next task, so the
    // completion queued from there runs after the cycle's last write.
    if (decodeStage == null) {
      writeStage.execute(complete);
    } else {
      decodeStage.execute(() -> writeStage.execute(complete));
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
      writeStage.submit(() -> abort(aborting)).get();
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
      abort(cycle.writer);
    }
  }

  private static void abort(NativeTaskWriter writer) {
    try {
      writer.abort();
    } catch (RuntimeException e) {
      LOG.warn("could not delete every uncommitted file: {}", e.getMessage());
    }
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
    writeStage.execute(() -> abort(aborting));
    writeStage.shutdown();
    awaitTermination(writeStage);
    decoder.close();
    if (open != null) {
      open.close();
    }
    synchronized (spare) {
      spare.forEach(MessageBatch::close);
      spare.clear();
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
