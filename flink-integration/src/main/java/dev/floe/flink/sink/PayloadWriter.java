package dev.floe.flink.sink;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.MessageSource;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.KafkaPayload;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.WriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The raw path's writer: gathers Kafka payloads into a {@link MessageBatch}, and each full batch
 * is decoded and written by libfloe in one call -- the JSON never becomes Java objects. At each
 * checkpoint the open files are closed and handed on ({@link #prepareCommit()}); the next batch
 * opens new ones, with the table's schema and partition spec as they are then (an {@code ALTER
 * TABLE} while the job runs applies from the next checkpoint; columns are matched by field id).
 *
 * <p>A message the decoder rejects fails the task under {@code FAIL} (the exception names the
 * topic, partition, offset and field; the job restarts from its last checkpoint, so nothing is
 * lost) and is counted and dropped under {@code SKIP}, the first {@value #LOGGED_SKIPS} of each
 * writer logged with where they were and why. A tombstone (null value) is skipped and counted.
 */
final class PayloadWriter implements CommittingSinkWriter<KafkaPayload, WrittenFiles> {
  private static final Logger LOG = LoggerFactory.getLogger(PayloadWriter.class);
  /** Skipped records logged one by one; later ones are only counted (metric {@code rejected}). */
  static final int LOGGED_SKIPS = 10;
  private final Catalog catalog;
  private final BufferAllocator allocator = new RootAllocator();
  /** Refreshed when a checkpoint's first batch opens files, to follow the table's schema and spec. */
  private final Table table;
  private final int subtask;
  private final long attempt;
  private NativeFileWriterFactory files;
  private NativeJsonDecoder decoder;
  private final BadRecordPolicy policy;
  private final int batchMessages;
  private final long batchBytes;
  private final MessageBatch batch;
  private final Map<String, Map<Integer, MessageSource>> sources = new HashMap<>();
  // Records come in runs from one partition: the last one's source saves the map lookups.
  private String lastTopic;
  private int lastPartition = -1;
  private MessageSource lastSource;
  private long loggedSkips;
  private final Counter rows;
  private final Counter rejected;
  private final Counter tombstonesSkipped;
  private final Counter bytes;
  private final Counter dataFiles;
  private NativeTaskWriter writer;

  PayloadWriter(IcebergTableRef tableRef, PayloadWriterSettings settings, int subtask, long attempt, MetricGroup metrics) {
    this.catalog = tableRef.openCatalog();
    this.table = catalog.loadTable(tableRef.identifier());
    this.subtask = subtask;
    this.attempt = attempt;
    this.files = NativeFileWriterFactory.forTable(table, allocator, subtask, attempt);
    this.decoder = NativeJsonDecoder.create(files.arrowSchema(), JsonDecoderConfig.defaults());
    this.policy = settings.policy();
    this.batchMessages = settings.batchMessages();
    this.batchBytes = settings.batchBytes();
    this.batch = new MessageBatch(batchBytes + (1 << 20), batchMessages);
    MetricGroup group = metrics.addGroup("floe");
    this.rows = group.counter("rows");
    this.rejected = group.counter("rejected");
    this.tombstonesSkipped = group.counter("tombstonesSkipped");
    this.bytes = group.counter("bytes");
    this.dataFiles = group.counter("dataFiles");
  }

  @Override
  public void write(KafkaPayload payload, Context context) {
    if (payload.value() == null) {
      skipTombstone(payload);
      return;
    }
    batch.add(payload.value(), source(payload.topic(), payload.partition()), payload.offset());
    if (batch.size() >= batchMessages || batch.byteSize() >= batchBytes) {
      writeBatch();
    }
  }

  /**
   * A record with a null value (a tombstone, as compacted topics have): nothing to append, so it is
   * skipped and counted, as the Kafka sink and the Connect sinks skip it in append mode.
   */
  private void skipTombstone(KafkaPayload payload) {
    if (tombstonesSkipped.getCount() == 0) {
      LOG.info("skipping records with a null value (tombstones), first at topic {}, partition {}, offset {};"
          + " the tombstonesSkipped metric counts them", payload.topic(), payload.partition(), payload.offset());
    }
    tombstonesSkipped.inc();
  }

  private MessageSource source(String topic, int partition) {
    if (partition != lastPartition || !topic.equals(lastTopic)) {
      lastSource =
          sources
              .computeIfAbsent(topic, t -> new HashMap<>())
              .computeIfAbsent(partition, p -> offset -> "topic " + topic + ", partition " + p + ", offset " + offset);
      lastTopic = topic;
      lastPartition = partition;
    }
    return lastSource;
  }

  private void writeBatch() {
    if (batch.size() == 0) {
      return;
    }
    if (writer == null) {
      followTable();
      writer = files.newTaskWriter();
    }
    bytes.inc(batch.byteSize());
    // Under SKIP the rejects are collected too, to say which records were dropped.
    DecodeStats stats = writer.write(decoder, batch, policy == BadRecordPolicy.SKIP ? BadRecordPolicy.DEAD_LETTER : policy);
    rows.inc(stats.rows());
    rejected.inc(stats.rejectedCount());
    for (RejectedMessage bad : stats.rejected()) {
      if (loggedSkips < LOGGED_SKIPS) {
        loggedSkips++;
        LOG.warn("skipped bad record at {}: {}{}", bad.describe(), bad.reason(),
            loggedSkips == LOGGED_SKIPS ? " (later ones are counted in the rejected metric, not logged)" : "");
      }
    }
    batch.clear();
  }

  /** Writes with the table's current schema and spec from now on, if either changed. */
  private void followTable() {
    table.refresh();
    if (files.writesCurrentSchemaOf(table)) {
      return;
    }
    NativeFileWriterFactory next = NativeFileWriterFactory.forTable(table, allocator, subtask, attempt);
    NativeJsonDecoder nextDecoder = NativeJsonDecoder.create(next.arrowSchema(), JsonDecoderConfig.defaults());
    decoder.close(); // this writer decodes on its own thread, between batches
    decoder = nextDecoder;
    files = next;
  }

  @Override
  public void flush(boolean endOfInput) {
    writeBatch();
  }

  @Override
  public Collection<WrittenFiles> prepareCommit() {
    writeBatch();
    if (writer == null) {
      return List.of();
    }
    WriteResult result = writer.complete();
    writer = null;
    dataFiles.inc(result.dataFiles().length);
    return List.of(WrittenFiles.of(result, table.specs()));
  }

  @Override
  public void close() throws Exception {
    NativeJsonDecoder current = decoder;
    try (allocator;
        batch;
        current) {
      if (writer != null) {
        writer.abort();
      }
    } finally {
      IcebergTableRef.close(catalog);
    }
  }
}
