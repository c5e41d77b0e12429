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
import dev.floe.iceberg.CycleFiles;
import dev.floe.iceberg.CycleWriters;
import dev.floe.iceberg.DecodedMessages;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.TableEvolution;
import dev.floe.iceberg.UnknownFieldNotes;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.PartitionSpec;
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
 * <p>With schema evolution ({@code evolveSchema}), fields the payloads carry and the table lacks
 * become columns and values too wide for theirs widen them, within the checkpoint: the batch that
 * needed it is decoded again for the evolved schema and written by a writer for it ({@link
 * CycleWriters}, {@link TableEvolution}), and every writer's files go to the same commit. Each
 * subtask evolves on its own; a schema commit that meets another's re-reads the table and plans
 * again.
 *
 * <p>A message the decoder rejects fails the task under {@code FAIL} (the exception names the
 * topic, partition, offset and field; the job restarts from its last checkpoint, so nothing is
 * lost) and is counted and dropped under {@code SKIP}, the first {@value #LOGGED_SKIPS} of each
 * writer logged with where they were and why. A tombstone (null value) is skipped and counted.
 *
 * <p>In upsert mode ({@code upsert}) each row replaces the row of its key (the table's identifier
 * fields), and a tombstone deletes the row of its Kafka key, read as a JSON object of the
 * identifier fields ({@code {"id": 7}}), in order with the key's other changes; a tombstone without
 * a key is a bad record. The sink's input is keyed by the records' Kafka keys, so every change of a
 * key reaches one writer ({@code FloeIcebergSink.PayloadBuilder#upsert}).
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
  /** The partition specs this writer wrote with before the current one, by id. */
  private final Map<Integer, PartitionSpec> ownSpecs = new TreeMap<>();
  private NativeJsonDecoder decoder;
  /** Decoders describe what evolution needs, or only count nothing (without evolution). */
  private final JsonDecoderConfig decoding;
  /** Schema evolution, or null without. */
  private final TableEvolution evolution;
  /** Fields evolution left out (a name differing from a column only in case): counted and named once. */
  private final UnknownFieldNotes unknownFields;
  private final BadRecordPolicy policy;
  private final int batchMessages;
  private final long batchBytes;
  private final MessageBatch batch;
  /** Upsert mode: tombstones' keys, deleted in order with the values around them; null appends. */
  private final MessageBatch keys;
  /** Upsert mode: the decoder of tombstones' keys for {@link #files}' schema. */
  private NativeJsonDecoder keyDecoder;
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
  /** The checkpoint's writers; null before its first batch. */
  private CycleWriters writers;

  PayloadWriter(IcebergTableRef tableRef, PayloadWriterSettings settings, int subtask, long attempt, MetricGroup metrics) {
    this.catalog = tableRef.openCatalog();
    try {
      this.table = catalog.loadTable(tableRef.identifier());
      String refusal = settings.upsert() ? NativeFileWriterFactory.keyedWritesRefusal(table) : null;
      if (refusal != null) {
        throw new IllegalArgumentException("upserts into " + tableRef + " cannot be written: " + refusal);
      }
      this.subtask = subtask;
      this.attempt = attempt;
      this.files = NativeFileWriterFactory.forTable(table, allocator, subtask, attempt);
      this.decoding = settings.evolveSchema() ? TableEvolution.DESCRIBING : JsonDecoderConfig.defaults();
      this.decoder = NativeJsonDecoder.create(files.arrowSchema(), decoding);
      this.policy = settings.policy();
      this.batchMessages = settings.batchMessages();
      this.batchBytes = settings.batchBytes();
      this.batch = new MessageBatch(batchBytes + (1 << 20), batchMessages);
      if (settings.upsert()) {
        this.keys = new MessageBatch();
        this.keyDecoder = NativeJsonDecoder.create(files.equalityDeleteArrowSchema(), JsonDecoderConfig.defaults());
      } else {
        this.keys = null;
      }
      MetricGroup group = metrics.addGroup("floe");
      this.rows = group.counter("rows");
      this.rejected = group.counter("rejected");
      this.tombstonesSkipped = group.counter("tombstonesSkipped");
      this.bytes = group.counter("bytes");
      this.dataFiles = group.counter("dataFiles");
      Counter schemaEvolutions = group.counter("schemaEvolutions");
      Counter unknownFieldValues = group.counter("unknownFieldValues");
      this.evolution = settings.evolveSchema()
          ? new TableEvolution(() -> catalog.loadTable(tableRef.identifier()),
              evolved -> NativeFileWriterFactory.forTable(evolved, allocator, subtask, attempt),
              nanos -> schemaEvolutions.inc())
          : null;
      this.unknownFields = new UnknownFieldNotes(tableRef.identifier(), unknownFieldValues::inc);
    } catch (RuntimeException | Error e) {
      closeAfterFailedStart(e); // Flink gets no writer to close
      throw e;
    }
  }

  @Override
  public void write(KafkaPayload payload, Context context) {
    if (payload.value() == null) {
      if (keys == null) {
        skipTombstone(payload);
      } else {
        addKey(payload);
      }
      return;
    }
    if (keys != null && keys.size() > 0) {
      deleteKeys(); // values and keys take turns: every change of a key lands in order
    }
    batch.add(payload.value(), source(payload.topic(), payload.partition()), payload.offset());
    if (batch.size() >= batchMessages || batch.byteSize() >= batchBytes) {
      writeBatch();
    }
  }

  /** Upsert mode: a tombstone deletes the row of its key (a JSON object of the identifier fields). */
  private void addKey(KafkaPayload payload) {
    if (payload.key() == null) {
      String where = "topic " + payload.topic() + ", partition " + payload.partition() + ", offset " + payload.offset();
      String reason = "a tombstone (null value) without a key: nothing says which row to delete";
      if (policy == BadRecordPolicy.FAIL) {
        throw new IllegalArgumentException("bad record at " + where + ": " + reason);
      }
      rejected.inc();
      logSkipped(where, reason);
      return;
    }
    writeBatch();
    keys.add(payload.key(), source(payload.topic(), payload.partition()), payload.offset());
    if (keys.size() >= batchMessages || keys.byteSize() >= batchBytes) {
      deleteKeys();
    }
  }

  /** Upsert mode: deletes the rows of the keys gathered, through the writer that takes rows now. */
  private void deleteKeys() {
    if (keys.size() == 0) {
      return;
    }
    openWriters();
    DecodeStats stats = writers.deleteKeys(keys, decodePolicy(), allocator);
    counted(stats);
    keys.clear();
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
    openWriters();
    bytes.inc(batch.byteSize());
    DecodeStats stats;
    if (evolution == null) {
      stats = writers.firstWriter().write(decoder, batch, decodePolicy());
    } else {
      try (DecodedMessages decoded = writers.decode(batch, decodePolicy(), unknownFields)) {
        stats = writers.write(writers.decodingWriter(), decoded);
      }
    }
    counted(stats);
    batch.clear();
  }

  /** The checkpoint's writers, made with the table's schema and spec as they are now. */
  private void openWriters() {
    if (writers == null) {
      followTable();
      writers = new CycleWriters(files, decoder, keyDecoder, evolution);
    }
  }

  /** Under SKIP the rejects are collected too, to say which records were dropped. */
  private BadRecordPolicy decodePolicy() {
    return policy == BadRecordPolicy.SKIP ? BadRecordPolicy.DEAD_LETTER : policy;
  }

  private void counted(DecodeStats stats) {
    rows.inc(stats.rows());
    rejected.inc(stats.rejectedCount());
    for (RejectedMessage bad : stats.rejected()) {
      logSkipped(bad.describe(), bad.reason());
    }
  }

  private void logSkipped(String where, String reason) {
    if (loggedSkips < LOGGED_SKIPS) {
      loggedSkips++;
      LOG.warn("skipped bad record at {}: {}{}", where, reason,
          loggedSkips == LOGGED_SKIPS ? " (later ones are counted in the rejected metric, not logged)" : "");
    }
  }

  /** Writes with the table's current schema and spec from now on, if either changed. */
  private void followTable() {
    table.refresh();
    if (files.isCurrentFor(table) && files.deletesInOlderSpecsOf(table)) {
      return;
    }
    // Upserts delete in every spec this writer wrote data in too: a checkpoint's files land only
    // after the next one's writers are made, so the table may not show that data yet.
    ownSpecs.put(files.spec().specId(), files.spec());
    NativeFileWriterFactory next =
        NativeFileWriterFactory.forTable(table, allocator, subtask, attempt).alsoDeletingIn(ownSpecs.values());
    NativeJsonDecoder nextDecoder = NativeJsonDecoder.create(next.arrowSchema(), decoding);
    decoder.close(); // this writer decodes on its own thread, between batches
    decoder = nextDecoder;
    if (keyDecoder != null) {
      NativeJsonDecoder nextKeys = NativeJsonDecoder.create(next.equalityDeleteArrowSchema(), JsonDecoderConfig.defaults());
      keyDecoder.close();
      keyDecoder = nextKeys;
    }
    files = next;
  }

  @Override
  public void flush(boolean endOfInput) {
    writePending();
  }

  /** Writes the batch gathered (values or, in upsert mode, tombstones' keys: only one holds any). */
  private void writePending() {
    writeBatch();
    if (keys != null) {
      deleteKeys();
    }
  }

  @Override
  public Collection<WrittenFiles> prepareCommit() {
    writePending();
    if (writers == null) {
      return List.of();
    }
    CycleWriters done = writers;
    writers = null;
    done.closeOwnDecoders();
    CycleFiles written = done.complete(table.io());
    WriteResult result = written.files();
    dataFiles.inc(result.dataFiles().length);
    if (evolution != null) {
      table.refresh(); // the specs of files written after an evolution (another writer may have changed the spec)
    }
    return List.of(WrittenFiles.of(result, table.specs(), written.schemas()));
  }

  private void closeAfterFailedStart(Throwable failure) {
    try {
      close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  @Override
  public void close() throws Exception {
    NativeJsonDecoder current = decoder;
    NativeJsonDecoder currentKeys = keyDecoder;
    try (allocator;
        batch;
        current;
        MessageBatch keyBatch = keys;
        currentKeys) {
      if (writers != null) {
        writers.abort();
        writers.closeOwnDecoders();
      }
    } finally {
      IcebergTableRef.close(catalog);
    }
  }
}
