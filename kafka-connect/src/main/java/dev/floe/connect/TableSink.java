package dev.floe.connect;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What one task writes into one table during one commit cycle. The task thread packs record
 * values into off-heap message batches; a writer thread of the table's own decodes and encodes
 * each full batch natively into the cycle's task writer while the task thread goes on (two
 * batches per table: one filling, one writing). In upsert mode a tombstone deletes its key's row:
 * its key goes into a batch of keys, written in record order with the values around it.
 *
 * <p>Bad records: under {@code errors.tolerance=none} the first one fails the cycle, naming topic,
 * partition, offset and reason; under {@code all} each is handed to Connect's {@link
 * BadRecords} (dead-letter queue, log) and the rest of its batch is written.
 */
final class TableSink implements AutoCloseable {
  private final TableIdentifier id;
  private final Table table;
  private final NativeFileWriterFactory factory;
  private final NativeJsonDecoder decoder;
  private final NativeJsonDecoder keyDecoder;
  private final BufferAllocator allocator;
  private final boolean upsert;
  private final int batchRecords;
  private final long batchBytes;
  private final long bufferBytes;
  private final BadRecords badRecords;
  private final TaskMetrics metrics;
  private final ExecutorService writerThread;
  /** Spare batches; taking one waits while both are in use (the writer thread is a batch behind). */
  private final BlockingQueue<Batch> spare = new LinkedBlockingQueue<>();
  private final Map<TopicPartition, PartitionSource> sources = new HashMap<>();
  private Batch open;
  private NativeTaskWriter writer;
  /** The cycle's first failure on the writer thread; the cycle then writes nothing more. */
  private volatile Throwable failure;

  /** One decode batch: values (or, in upsert mode, the keys of tombstones) and their records. */
  private static final class Batch {
    final MessageBatch messages = new MessageBatch();
    final List<SinkRecord> records = new ArrayList<>();
    boolean keys;

    void clear() {
      messages.clear();
      records.clear();
    }
  }

  TableSink(TableIdentifier id, Table table, ConnectorSettings settings, int taskIndex,
      BufferAllocator allocator, BadRecords badRecords, TaskMetrics metrics) {
    this.id = id;
    this.table = table;
    this.allocator = allocator;
    this.upsert = settings.upsert();
    this.factory = NativeFileWriterFactory.forTable(table, allocator, taskIndex, System.nanoTime(),
        settings.writeProperties());
    if (upsert) {
      factory.newUpsertTaskWriter().abort(); // checks now that the table has identifier fields
    }
    this.decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
    this.keyDecoder = upsert ? NativeJsonDecoder.create(factory.equalityDeleteArrowSchema(), JsonDecoderConfig.defaults()) : null;
    this.batchRecords = settings.batchRecords();
    this.batchBytes = settings.batchBytes();
    this.bufferBytes = settings.bufferBytes();
    this.badRecords = badRecords;
    this.metrics = metrics;
    this.writerThread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "floe-connect-writer-" + id);
      t.setDaemon(true);
      return t;
    });
    spare.add(new Batch());
    spare.add(new Batch());
  }

  TableIdentifier id() {
    return id;
  }

  Table table() {
    return table;
  }

  /** Adds a record (of partition {@code tp}); in upsert mode a null value adds its key, to be deleted. */
  void add(SinkRecord record, TopicPartition tp, byte[] value, byte[] key) {
    throwIfFailed();
    boolean keys = value == null;
    if (open != null && open.keys != keys) {
      flush();
    }
    if (open == null) {
      open = take();
      open.keys = keys;
    }
    PartitionSource source = sources.computeIfAbsent(tp, PartitionSource::new);
    open.messages.add(keys ? key : value, source, record.kafkaOffset());
    open.records.add(record);
    if (open.messages.size() >= batchRecords || open.messages.byteSize() >= batchBytes) {
      flush();
    }
  }

  private Batch take() {
    try {
      return spare.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while waiting for table " + id + "'s writer", e);
    }
  }

  /** Hands the open batch to the writer thread. */
  void flush() {
    Batch batch = open;
    open = null;
    if (batch == null || batch.messages.size() == 0) {
      if (batch != null) {
        spare.add(batch);
      }
      return;
    }
    if (writer == null) {
      writer = upsert ? factory.newUpsertTaskWriter() : factory.newTaskWriter();
    }
    NativeTaskWriter cycle = writer;
    writerThread.execute(() -> {
      try {
        if (failure == null) {
          write(cycle, batch);
        }
      } catch (Throwable t) {
        if (failure == null) {
          failure = t;
        }
      } finally {
        batch.clear();
        spare.add(batch);
      }
    });
  }

  private void write(NativeTaskWriter cycle, Batch batch) {
    BadRecordPolicy policy = badRecords.tolerated() ? BadRecordPolicy.DEAD_LETTER : BadRecordPolicy.FAIL;
    List<RejectedMessage> rejected;
    long rows;
    if (batch.keys) {
      try (DecodedBatch keys = keyDecoder.decode(batch.messages, policy, allocator)) {
        cycle.deleteKeys(keys.root());
        rejected = keys.rejected();
        rows = keys.root().getRowCount();
      }
    } else {
      DecodeStats stats = cycle.write(decoder, batch.messages, policy);
      rejected = stats.rejected();
      rows = stats.rows();
    }
    metrics.rowsWritten(rows);
    for (RejectedMessage bad : rejected) {
      badRecords.report(batch.records.get(bad.index()), "table " + id + ": " + bad.reason());
    }
    if (cycle.bufferedBytes() > bufferBytes) {
      cycle.flushBuffered();
    }
  }

  /**
   * Ends the cycle: waits for the writer thread, closes the cycle's files and returns them (empty
   * if nothing was written). A failed cycle's files are deleted and its failure thrown.
   */
  WriteResult complete() {
    flush();
    NativeTaskWriter cycle = writer;
    writer = null;
    Future<WriteResult> done = writerThread.submit(() -> {
      if (failure != null) {
        if (cycle != null) {
          cycle.abort();
        }
        return null;
      }
      return cycle == null ? WriteResult.builder().build() : cycle.complete();
    });
    WriteResult result = await(done);
    if (result == null) {
      Throwable t = failure;
      failure = null;
      throw failed(t);
    }
    return result;
  }

  /** Drops the cycle: unwritten batches and the files written so far (nothing of it was committed). */
  void abort() {
    if (open != null) {
      open.clear();
      spare.add(open);
      open = null;
    }
    NativeTaskWriter cycle = writer;
    writer = null;
    await(writerThread.submit(() -> {
      if (cycle != null) {
        cycle.abort();
      }
      failure = null;
      return null;
    }));
  }

  private <T> T await(Future<T> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      throw failed(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while waiting for table " + id + "'s writer", e);
    }
  }

  void throwIfFailed() {
    Throwable t = failure;
    if (t != null) {
      throw failed(t);
    }
  }

  private ConnectException failed(Throwable t) {
    if (t instanceof BadRecordException bad) {
      return new ConnectException("bad record for table " + id + " (errors.tolerance=none): " + bad.getMessage(), bad);
    }
    return t instanceof ConnectException c ? c : new ConnectException("writing table " + id + " failed: " + t, t);
  }

  @Override
  public void close() {
    try {
      abort();
    } finally {
      writerThread.shutdown();
      decoder.close();
      if (keyDecoder != null) {
        keyDecoder.close();
      }
      for (Batch b : spare) {
        b.messages.close();
      }
    }
  }
}
