package dev.floe.flink.sink;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.KafkaPayload;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.SnapshotExpiry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;

/**
 * A Flink sink that writes an Iceberg table through libfloe, exactly once with Flink's
 * checkpoints. The topology is Iceberg's own {@code IcebergSink}'s: writers (one per subtask)
 * close their files at each checkpoint, one aggregator gathers them into one committable, and the
 * committer commits it once the checkpoint is complete, naming the job, operator and checkpoint in
 * the snapshot summary under Iceberg's keys ({@code flink.job-id}, {@code flink.operator-id},
 * {@code flink.max-committed-checkpoint-id}): a restored job commits what was pending and skips
 * what already landed.
 *
 * <p>Two input paths, the same commits:
 *
 * <ul>
 *   <li>{@link #forKafkaPayloads}: raw Kafka payloads straight from a {@code KafkaSource} (with
 *       {@link dev.floe.flink.KafkaPayloadDeserializer}), decoded natively a batch at a time -- for
 *       jobs that only land a topic;
 *   <li>{@link #forRowData}: {@code RowData} of any DataStream or Table pipeline, appended, or
 *       applied as a changelog on the table's identifier fields (inserts and deletes by key, or
 *       upserts in upsert mode), as Iceberg's Flink sink writes them ({@link RowWriteMode}); the
 *       raw-payload path appends.
 * </ul>
 *
 * <pre>{@code
 * env.enableCheckpointing(1_000);
 * DataStream<KafkaPayload> events = env.fromSource(kafkaSource, WatermarkStrategy.noWatermarks(), "events");
 * FloeIcebergSink.forKafkaPayloads(IcebergTableRef.of("prod", catalogProperties, tableId)).append(events);
 *
 * DataStream<RowData> changes = ...;
 * FloeIcebergSink.forRowData(tableRef).upsert(true).append(changes);
 * }</pre>
 */
public final class FloeIcebergSink<T>
    implements Sink<T>,
        SupportsPreWriteTopology<T>,
        SupportsCommitter<FloeCommittable>,
        SupportsPreCommitTopology<WrittenFiles, FloeCommittable> {
  private static final long serialVersionUID = 1L;
  /**
   * Past this much metadata, a checkpoint's files go into manifests written ahead. Well under
   * Flink's 5 MiB in-memory checkpoint storage: the committer's state also holds the committables
   * of checkpoints that failed, until one completes.
   */
  static final long DEFAULT_MANIFEST_BYTES = 256L << 10;

  private final IcebergTableRef table;
  private final WriterFactory<T> writers;
  /** The key rows are shuffled by in front of the writers; null: they stay on their subtask. */
  private final KeySelector<T, ?> distribution;
  private final String uidSuffix;
  /** How often the committer expires the table's old snapshots; null: never. */
  private final Duration expireSnapshotsEvery;
  /** A checkpoint's files whose metadata passes this go into manifests written ahead. */
  private final long manifestBytes;
  /** Whether the files replace the partitions they fall into ({@code INSERT OVERWRITE}). */
  private final boolean overwrite;

  private FloeIcebergSink(IcebergTableRef table, WriterFactory<T> writers, KeySelector<T, ?> distribution,
      String uidSuffix, Duration expireSnapshotsEvery, long manifestBytes, boolean overwrite) {
    this.table = table;
    this.writers = writers;
    this.distribution = distribution;
    this.uidSuffix = uidSuffix;
    this.expireSnapshotsEvery = expireSnapshotsEvery;
    this.manifestBytes = manifestBytes;
    this.overwrite = overwrite;
  }

  /** A sink for raw Kafka payloads into {@code table}, whose schema the JSON must match. */
  public static PayloadBuilder forKafkaPayloads(IcebergTableRef table) {
    return new PayloadBuilder(table);
  }

  /** A sink for {@code RowData} into {@code table}; fields are matched to columns by name. */
  public static RowDataBuilder forRowData(IcebergTableRef table) {
    return new RowDataBuilder(table);
  }

  /**
   * The shuffle the table's writes need, as Iceberg's sink adds it: rows written by key are keyed
   * by identifier fields (every change of a key reaches one writer, in order), and under {@code
   * HASH} rows are keyed by partition. So {@code input.sinkTo(sink)} needs no {@code keyBy} of
   * its own.
   */
  @Override
  public DataStream<T> addPreWriteTopology(DataStream<T> input) {
    return distribution == null ? input : input.keyBy(distribution);
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) {
    return writers.create(table, context);
  }

  @Override
  public Committer<FloeCommittable> createCommitter(CommitterInitContext context) {
    return new CheckpointCommitter(table, context.metricGroup(), SnapshotExpiry.every(expireSnapshotsEvery), overwrite);
  }

  @Override
  public SimpleVersionedSerializer<FloeCommittable> getCommittableSerializer() {
    return new FloeCommittable.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<WrittenFiles> getWriteResultSerializer() {
    return new WrittenFiles.Serializer();
  }

  /**
   * One aggregator between writers and committer. Both hops are {@code global()}: every writer's
   * files reach the one aggregator, and its committables reach committer subtask 0 only, so each
   * checkpoint is one commit however many committer subtasks Flink starts.
   */
  @Override
  public DataStream<CommittableMessage<FloeCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<WrittenFiles>> writeResults) {
    var aggregated =
        writeResults
            .global()
            .transform(
                "floe-iceberg aggregator",
                CommittableMessageTypeInfo.of(FloeCommittable.Serializer::new),
                new CheckpointAggregator(table, manifestBytes));
    if (uidSuffix != null) {
      // Flink then requires a uid on the sink too: the builders' append sets both
      aggregated.uid("floe-iceberg aggregator: " + uidSuffix);
    }
    return aggregated
        .setParallelism(1)
        .setMaxParallelism(1)
        .global();
  }

  /** What both builders set: the table and the operators' uids. */
  private abstract static class BaseBuilder<T, B extends BaseBuilder<T, B>> {
    final IcebergTableRef table;
    String uidSuffix;
    Duration expireSnapshotsEvery;
    long manifestBytes = DEFAULT_MANIFEST_BYTES;

    BaseBuilder(IcebergTableRef table) {
      this.table = table;
    }

    abstract B self();

    /** The sink with what this builder was given, and the table where it decides. */
    abstract FloeIcebergSink<T> newSink();

    /** The table as it is now (when the job is built). */
    Table loadTable() {
      Catalog catalog = table.openCatalog();
      try {
        return catalog.loadTable(table.identifier());
      } finally {
        try {
          IcebergTableRef.close(catalog);
        } catch (Exception e) {
          throw new IllegalStateException("cannot close the catalog of " + table, e);
        }
      }
    }

    /** Refuses, when the job is built, upserts into a table that cannot be written by key (as Iceberg's sink does). */
    void requireKeyedWrites(Table loaded) {
      String refusal = NativeFileWriterFactory.keyedWritesRefusal(loaded);
      if (refusal != null) {
        throw new IllegalArgumentException("upserts into " + table + " cannot be written: " + refusal);
      }
    }

    /**
     * Gives the sink's operators stable uids ({@code floe-iceberg: <suffix>} and derived ones), so
     * a savepoint restores into them after the job changes. Use {@code append} then, which sets
     * the sink's own uid as Flink requires.
     */
    public B uidSuffix(String suffix) {
      this.uidSuffix = suffix;
      return self();
    }

    /**
     * Has the committer expire the table's old snapshots after a commit, at most once per {@code
     * interval} (and at its first commit), by the table's retention properties ({@code
     * history.expire.max-snapshot-age-ms}, default 5 days; {@code
     * history.expire.min-snapshots-to-keep}, default 1): a table committed to at every checkpoint
     * otherwise keeps every snapshot, and each commit rewrites them all. Null or zero: never (the
     * default, as in Iceberg's sink). See {@link SnapshotExpiry}.
     */
    public B expireSnapshotsEvery(Duration interval) {
      this.expireSnapshotsEvery = interval;
      return self();
    }

    /**
     * A checkpoint's files travel to the commit in Flink's state; when their metadata (Iceberg's
     * JSON form of each file, with its column metrics) passes {@code bytes}, default 256 KiB, they
     * are written ahead into Iceberg manifests in the table's metadata folder, as Iceberg's sink
     * always does, and the state keeps the manifests, which the commit deletes. Flink's in-memory
     * checkpoint storage takes 5 MiB in all; a checkpoint with thousands of files would pass it.
     */
    public B manifestsAbove(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("manifestsAbove must be >= 0 bytes, got " + bytes);
      }
      this.manifestBytes = bytes;
      return self();
    }

    /**
     * The sink, for {@code input.sinkTo(...)}: it shuffles its input itself as the table's writes
     * need ({@link FloeIcebergSink#addPreWriteTopology}). {@code append(input)} also sets uids.
     */
    public FloeIcebergSink<T> build() {
      return newSink();
    }

    /** Adds the sink to {@code input} with uids from {@link #uidSuffix} (default: the table's name). */
    DataStreamSink<T> sinkTo(DataStream<T> input) {
      if (uidSuffix == null) {
        uidSuffix = table.toString();
      }
      String uid = "floe-iceberg: " + uidSuffix;
      return input.sinkTo(newSink()).uid(uid).name(uid);
    }
  }

  /**
   * Keys a payload by its Kafka key's bytes (a hash: equal keys reach one writer), or, without a
   * key, by its topic and partition. A key's records from one partition arrive in order.
   */
  private static final class ByKafkaKey implements KeySelector<KafkaPayload, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer getKey(KafkaPayload payload) {
      return payload.key() != null
          ? java.util.Arrays.hashCode(payload.key())
          : 31 * payload.topic().hashCode() + payload.partition();
    }
  }

  /** Settings of the raw-payload path; the defaults suit most jobs. */
  public static final class PayloadBuilder extends BaseBuilder<KafkaPayload, PayloadBuilder> {
    private BadRecordPolicy policy = BadRecordPolicy.FAIL;
    private int batchMessages = PayloadWriterSettings.DEFAULT_BATCH_MESSAGES;
    private long batchBytes = PayloadWriterSettings.DEFAULT_BATCH_BYTES;
    private boolean evolveSchema;
    private boolean upsert;

    private PayloadBuilder(IcebergTableRef table) {
      super(table);
    }

    @Override
    PayloadBuilder self() {
      return this;
    }

    @Override
    FloeIcebergSink<KafkaPayload> newSink() {
      KeySelector<KafkaPayload, Integer> distribution = null;
      if (upsert) {
        requireKeyedWrites(loadTable());
        distribution = new ByKafkaKey();
      }
      return new FloeIcebergSink<>(table, new PayloadWriterSettings(policy, batchMessages, batchBytes, evolveSchema, upsert),
          distribution, uidSuffix, expireSnapshotsEvery, manifestBytes, false);
    }

    /**
     * Replace rows by the table's identifier fields instead of appending (default false; format v2
     * tables whose partition source columns are identifier fields, checked when the job is built),
     * as the Kafka sink's {@code upsert}: each payload replaces its key's row, and a tombstone (a
     * null value) deletes the row of its Kafka key, read as a JSON object of the identifier fields
     * ({@code {"id": 7}}); a tombstone without a key is a bad record. Payloads are keyed by their
     * Kafka key in front of the writers, so every change of a key reaches one writer, in order
     * within its partition: the writers' files land in one commit per checkpoint, where one
     * writer's equality deletes do not reach another's rows, so two writers must never take one
     * key. The Kafka key must therefore name the row (the JSON of its identifier fields, as
     * tombstones need); a record without one goes by its topic and partition, which is right only
     * where producers send a row's changes to one partition.
     */
    public PayloadBuilder upsert(boolean enabled) {
      this.upsert = enabled;
      return this;
    }

    /** {@code FAIL} (default: the task fails, naming the record) or {@code SKIP} (counted as rejected). */
    public PayloadBuilder badRecordPolicy(BadRecordPolicy policy) {
      this.policy = policy;
      return this;
    }

    /** Messages per native decode call (default 8192); a batch also ends at 8 MiB. */
    public PayloadBuilder batchMessages(int messages) {
      this.batchMessages = messages;
      return this;
    }

    /**
     * Evolve the table from the payloads (default false), as the Kafka sink's {@code
     * evolve.schema}: optional columns for the fields they carry and the table lacks (integer ->
     * long, other numbers -> double, objects -> structs, arrays -> lists), int, float and decimal
     * columns widened when values need it; the batch that needed it lands in the same checkpoint's
     * commit. Each subtask evolves the table as its payloads need.
     */
    public PayloadBuilder evolveSchema(boolean enabled) {
      this.evolveSchema = enabled;
      return this;
    }

    /**
     * Builds the sink and adds it to {@code input} with uids from {@link #uidSuffix} (default: the
     * table's name), the way to keep a job's savepoints restorable.
     */
    public DataStreamSink<KafkaPayload> append(DataStream<KafkaPayload> input) {
      return sinkTo(input);
    }
  }

  /**
   * Settings of the {@code RowData} path. Distribution follows Iceberg's Flink sink: rows written
   * by key ({@link RowWriteMode}: upserts, and rows of a table with identifier fields) are keyed by
   * identifier fields (or by partition, under {@code HASH}) so every change of a key reaches one
   * writer in order; appends under {@code HASH} are keyed by partition, so each writer
   * keeps few files open; otherwise rows stay on their subtask. Upsert and distribution mode not set
   * here come from the table's {@code write.upsert.enabled} and {@code write.distribution-mode}, as
   * in Iceberg's sink.
   */
  public static final class RowDataBuilder extends BaseBuilder<RowData, RowDataBuilder> {
    private RowType rowType;
    /** Null until set or read from the table ({@link #resolveModes}). */
    private Boolean upsert;
    /** Null until set or read from the table ({@link #resolveModes}). */
    private DistributionMode distribution;
    private int batchRows = RowDataWriterSettings.DEFAULT_BATCH_ROWS;
    private Integer writeParallelism;
    private boolean checkNullability = true;
    private boolean overwrite;
    private final Map<String, String> tableProperties = new HashMap<>();

    private RowDataBuilder(IcebergTableRef table) {
      super(table);
    }

    @Override
    RowDataBuilder self() {
      return this;
    }

    /** The rows' type (default: the table's schema as Iceberg's Flink module maps it). */
    public RowDataBuilder rowType(RowType rowType) {
      this.rowType = rowType;
      return this;
    }

    /**
     * Rows replace the table's row with the same identifier-field values; deletes remove it.
     * Default: the table's {@code write.upsert.enabled} (false if unset).
     */
    public RowDataBuilder upsert(boolean upsert) {
      this.upsert = upsert;
      return this;
    }

    /**
     * {@code NONE} or {@code HASH} (by partition); {@code RANGE} is not supported. Default: the
     * table's {@code write.distribution-mode} ({@code none} if unset; {@code range} is taken as
     * {@code hash}, which also clusters each writer's rows by partition).
     */
    public RowDataBuilder distributionMode(DistributionMode mode) {
      if (mode == DistributionMode.RANGE) {
        throw new IllegalArgumentException("floe's Flink sink distributes by NONE or HASH, not RANGE");
      }
      this.distribution = mode;
      return this;
    }

    /**
     * Whether a row field that may be null is refused, when the job is built, for a required
     * column (default true, as Iceberg's sink refuses it); false: such rows are written, and the
     * first null fails the job.
     */
    public RowDataBuilder checkNullability(boolean check) {
      this.checkNullability = check;
      return this;
    }

    /**
     * Each checkpoint's files replace the table's partitions they fall into (an unpartitioned
     * table: all of it), as Iceberg's sink commits {@code INSERT OVERWRITE}; for bounded input
     * (batch jobs), and not with upserts. Rows are inserted as given, never written by key: on a
     * table with identifier fields, rows that repeat a key all land (Iceberg's sink fails such a
     * commit).
     */
    public RowDataBuilder overwrite(boolean overwrite) {
      this.overwrite = overwrite;
      return this;
    }

    /** Rows per Arrow batch handed to the native writer (default 4096). */
    public RowDataBuilder batchRows(int rows) {
      this.batchRows = rows;
      return this;
    }

    /**
     * File-writing table properties ({@code write.parquet.compression-codec}, {@code
     * write.target-file-size-bytes}, ...) that take the place of the table's for this job.
     */
    public RowDataBuilder tableProperty(String key, String value) {
      tableProperties.put(key, value);
      return this;
    }

    /** The writers' parallelism in {@link #append} (default: the input's, as in Iceberg's sink). */
    public RowDataBuilder writeParallelism(int parallelism) {
      this.writeParallelism = parallelism;
      return this;
    }

    /** Reads the table once, when the job is built (in SQL: planned), not when its writers start. */
    @Override
    FloeIcebergSink<RowData> newSink() {
      Table loaded = loadTable();
      resolveModes(loaded);
      if (overwrite && upsert) {
        throw new IllegalArgumentException("table " + table + ": an overwrite replaces partitions and cannot upsert"
            + " (Iceberg's sink refuses it too); turn upsert off for it");
      }
      if (upsert) {
        requireKeyedWrites(loaded);
      }
      RowDataToArrow.requireFits(loaded.schema(), rowType, table.toString(), checkNullability);
      // An overwrite appends its rows as given, also into a table with identifier fields: writing by
      // key would hold every key of a batch job's one commit, and a repeated key would then fail it
      // (Iceberg's sink fails such a commit; floe's lands both rows, as a plain INSERT OVERWRITE does)
      RowWriteMode mode = overwrite ? RowWriteMode.APPEND : RowWriteMode.of(loaded, upsert);
      KeySelector<RowData, ?> distribution = null;
      if (this.distribution == DistributionMode.HASH && loaded.spec().isPartitioned()) {
        distribution = RowKeySelector.byPartition(loaded.schema(), loaded.spec(), rowType);
      }
      if (distribution == null && mode.byKey()) {
        distribution = RowKeySelector.byIdentifierFields(loaded.schema(), rowType);
      }
      return new FloeIcebergSink<>(table,
          new RowDataWriterSettings(rowType, mode, batchRows, tableProperties, loaded.schema().schemaId()),
          distribution, uidSuffix, expireSnapshotsEvery, manifestBytes, overwrite);
    }

    /** Fills in what was not set from {@code loaded}: the row type, upsert and distribution mode. */
    private void resolveModes(Table loaded) {
      if (rowType == null) {
        rowType = FlinkSchemaUtil.convert(loaded.schema());
      }
      if (upsert == null) {
        upsert = PropertyUtil.propertyAsBoolean(
            loaded.properties(), TableProperties.UPSERT_ENABLED, TableProperties.UPSERT_ENABLED_DEFAULT);
      }
      if (distribution == null) {
        String mode = loaded.properties().getOrDefault(
            TableProperties.WRITE_DISTRIBUTION_MODE, TableProperties.WRITE_DISTRIBUTION_MODE_NONE);
        distribution = DistributionMode.fromName(mode) == DistributionMode.RANGE
            ? DistributionMode.HASH
            : DistributionMode.fromName(mode);
      }
    }

    /**
     * Builds the sink and adds it to {@code input}, shuffled as the distribution mode and upsert
     * mode need, with uids from {@link #uidSuffix} (default: the table's name).
     */
    public DataStreamSink<RowData> append(DataStream<RowData> input) {
      DataStreamSink<RowData> sink = sinkTo(input);
      sink.setParallelism(writeParallelism != null ? writeParallelism : input.getParallelism());
      return sink;
    }
  }
}
