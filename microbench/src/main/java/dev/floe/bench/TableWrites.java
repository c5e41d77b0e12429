package dev.floe.bench;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.bench.stock.IcebergJavaFanoutWriter;
import dev.floe.bench.stock.JacksonRecordDecoder;
import dev.floe.iceberg.Commits;
import dev.floe.iceberg.DecodedMessages;
import dev.floe.iceberg.IcebergJavaUpsertWriter;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;

/**
 * The measured paths of the table benchmark: a list of Kafka message values in, one committed
 * snapshot out. Each call is a whole sink task on its own -- it builds its decoder and writers,
 * writes every message, and commits once (append, or a row delta for upserts).
 */
final class TableWrites {
  /** Messages per native decode call (one Kafka poll's worth in a sink). */
  static final int BATCH_MESSAGES = 8192;

  /**
   * Batches the decode thread may run ahead. The writer encodes in bursts (each file holds a
   * column run of 65,536 rows, then encodes it), so the decode thread needs room to keep going
   * through a burst: 32 batches of ~2 MB is what the sink's default 64 MiB in flight allows.
   */
  static final int DECODED_AHEAD = 32;

  /** Plain appends, or upserts by the table's identifier fields. */
  enum WriteMode {
    APPEND,
    UPSERT;

    static WriteMode of(String name) {
      return valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
  }

  private TableWrites() {}

  /**
   * floe: messages packed into {@link MessageBatch}es, decoded natively and written by floe's
   * task writer -- for appends the batch is decoded, regrouped by partition and encoded without
   * crossing back into Java; for upserts it is decoded into Java Arrow first (the keys are read
   * from it), then regrouped and encoded natively.
   */
  static Snapshot floe(
      Table table, WriteMode mode, List<byte[]> messages, BufferAllocator allocator, int encodeThreads) {
    NativeFileWriterFactory factory =
        NativeFileWriterFactory.forTable(table, allocator).withEncodeThreads(encodeThreads);
    try (NativeJsonDecoder decoder =
            NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer =
            mode == WriteMode.UPSERT ? factory.newUpsertTaskWriter() : factory.newTaskWriter()) {
      for (int start = 0; start < messages.size(); start += BATCH_MESSAGES) {
        batch.clear();
        int end = Math.min(messages.size(), start + BATCH_MESSAGES);
        for (int i = start; i < end; i++) {
          batch.add(messages.get(i));
        }
        writer.write(decoder, batch, BadRecordPolicy.FAIL);
      }
      return commit(table, mode, writer.complete());
    }
  }

  /**
   * floe as its Kafka sink runs it: a second thread decodes (and regroups) batch N+1 while this
   * thread encodes batch N ({@link NativeTaskWriter#decode} / {@link
   * NativeTaskWriter#write(DecodedMessages)}); up to {@link #DECODED_AHEAD} decoded batches wait.
   */
  static Snapshot floeDecodeAhead(
      Table table, WriteMode mode, List<byte[]> messages, BufferAllocator allocator) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    ExecutorService decodeThread = Executors.newSingleThreadExecutor();
    try (NativeJsonDecoder decoder =
            NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer =
            mode == WriteMode.UPSERT ? factory.newUpsertTaskWriter() : factory.newTaskWriter()) {
      ArrayDeque<Future<DecodedMessages>> ahead = new ArrayDeque<>();
      for (int start = 0; start < messages.size(); start += BATCH_MESSAGES) {
        List<byte[]> slice = messages.subList(start, Math.min(messages.size(), start + BATCH_MESSAGES));
        ahead.add(
            decodeThread.submit(() -> {
              batch.clear();
              slice.forEach(batch::add);
              return writer.decode(decoder, batch, BadRecordPolicy.FAIL);
            }));
        if (ahead.size() > DECODED_AHEAD) {
          writer.write(ahead.poll().get());
        }
      }
      while (!ahead.isEmpty()) {
        writer.write(ahead.poll().get());
      }
      return commit(table, mode, writer.complete());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      decodeThread.shutdownNow();
    }
  }

  /**
   * The stock path: Jackson parses each message into an Iceberg {@code GenericRecord}, which goes
   * straight into Iceberg Java's writer (no list of records in between).
   */
  static Snapshot icebergJava(Table table, WriteMode mode, List<byte[]> messages) throws IOException {
    JacksonRecordDecoder jackson = new JacksonRecordDecoder(table.schema());
    TaskWriter<Record> writer = stockWriter(table, mode);
    try {
      for (byte[] message : messages) {
        writer.write(jackson.decode(message));
      }
      return commit(table, mode, writer.complete());
    } catch (IOException | RuntimeException e) {
      writer.abort();
      throw e;
    }
  }

  /** The stock writers alone, fed records decoded before the measurement. */
  static Snapshot icebergJavaFromRecords(Table table, WriteMode mode, List<Record> records)
      throws IOException {
    TaskWriter<Record> writer = stockWriter(table, mode);
    try {
      for (Record record : records) {
        writer.write(record);
      }
      return commit(table, mode, writer.complete());
    } catch (IOException | RuntimeException e) {
      writer.abort();
      throw e;
    }
  }

  /**
   * Appends: Iceberg's partitioned fanout writer over the generic appender factory. Upserts: the
   * equality-delta writer per partition (equality delete for a key's first row, position delete
   * when the key comes again), as Iceberg's Flink sink upserts.
   */
  private static TaskWriter<Record> stockWriter(Table table, WriteMode mode) {
    return mode == WriteMode.UPSERT
        ? new IcebergJavaUpsertWriter(table, 1)
        : IcebergJavaFanoutWriter.forTable(table, 1);
  }

  private static Snapshot commit(Table table, WriteMode mode, WriteResult result) {
    return mode == WriteMode.UPSERT
        ? Commits.rowDelta(table, result, Map.of())
        : Commits.append(table, result, Map.of());
  }
}
