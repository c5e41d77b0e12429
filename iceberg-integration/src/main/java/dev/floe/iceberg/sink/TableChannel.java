package dev.floe.iceberg.sink;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * message batches; a worker thread of its own decodes and encodes them natively into the cycle's
 * task writer, so the consumer keeps fetching meanwhile. Batches in flight are bounded by bytes
 * (a semaphore shared by all tables): a slow writer slows the consumer instead of filling memory.
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
  private final ExecutorService worker;
  private final Semaphore inFlight;
  private final DeadLetters deadLetters;
  private final SinkMetrics metrics;
  private final ArrayDeque<MessageBatch> spare = new ArrayDeque<>();
  /** Offsets the table holds for this sink's partitions, as last seen (loaded or committed). */
  private final Map<TopicPartition, Long> stored = new HashMap<>();
  private MessageBatch open;
  /** Payload bytes of the fullest batch handed over so far (consumer thread); -1 before the first. */
  private long fullestBatchBytes = -1;
  private NativeTaskWriter writer; // the worker's; null between cycles
  private long cycleRecords;
  private volatile Throwable failure;

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
    this.worker =
        Executors.newSingleThreadExecutor(r -> {
          Thread t = new Thread(r, "floe-writer-" + id);
          t.setDaemon(true);
          return t;
        });
    this.inFlight = inFlight;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
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

  /** Hands the open batch to the worker, waiting while too many bytes are in flight. */
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
    worker.execute(() -> {
      try {
        if (failure == null) {
          write(batch);
        }
      } catch (Throwable t) {
        failure = t;
      } finally {
        inFlight.release(held);
        batch.clear();
        synchronized (spare) {
          spare.push(batch);
        }
      }
    });
  }

  private long inFlightBudget() {
    return Math.min(Integer.MAX_VALUE, config.maxInFlightBytes());
  }

  private void write(MessageBatch batch) {
    if (writer == null) {
      writer = config.upsert() ? factory.newUpsertTaskWriter() : factory.newTaskWriter();
    }
    BadRecordPolicy policy = config.badRecords() == BadRecordMode.FAIL ? BadRecordPolicy.FAIL : BadRecordPolicy.COLLECT;
    DecodeStats stats;
    try {
      stats = writer.write(decoder, batch, policy);
    } catch (BadRecordException e) {
      throw new SinkException("bad record for table " + id + ": " + e.getMessage(), e);
    }
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
   * Finishes the cycle: waits for the worker to write every batch, then completes the task
   * writer. Returns the files written (empty if nothing was).
   */
  WriteResult complete() {
    flushBatch();
    Future<WriteResult> done =
        worker.submit(() -> {
          throwIfFailed();
          if (writer == null) {
            return WriteResult.builder().build();
          }
          NativeTaskWriter finishing = writer;
          writer = null;
          return finishing.complete();
        });
    try {
      WriteResult result = done.get();
      cycleRecords = 0;
      return result;
    } catch (ExecutionException e) {
      throw SinkException.wrap(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while completing the files of " + id, e);
    }
  }

  /** Drops the cycle: batches not yet written are skipped, the open files deleted. */
  void abortCycle() {
    if (open != null) {
      open.clear();
    }
    Future<?> done =
        worker.submit(() -> {
          if (writer != null) {
            writer.abort();
            writer = null;
          }
        });
    try {
      done.get();
    } catch (ExecutionException | InterruptedException e) {
      throw SinkException.wrap(e instanceof ExecutionException ee ? ee.getCause() : e);
    }
    cycleRecords = 0;
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
    worker.submit(() -> {
      if (writer != null) {
        writer.abort();
        writer = null;
      }
    });
    worker.shutdown();
    try {
      worker.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    decoder.close();
    if (open != null) {
      open.close();
    }
    synchronized (spare) {
      spare.forEach(MessageBatch::close);
      spare.clear();
    }
  }
}
