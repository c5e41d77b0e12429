package dev.floe.flink.sink;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.KafkaPayload;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.iceberg.io.WriteResult;

/**
 * A Flink sink that writes an Iceberg table through libfloe, exactly once with Flink's
 * checkpoints. The topology is Iceberg's own {@code IcebergSink}'s: writers (one per subtask)
 * close their files at each checkpoint, one aggregator gathers them into one committable, and the
 * committer commits it once the checkpoint is complete, naming the job, operator and checkpoint in
 * the snapshot summary under Iceberg's keys ({@code flink.job-id}, {@code flink.operator-id},
 * {@code flink.max-committed-checkpoint-id}): a restored job commits what was pending and skips
 * what already landed.
 *
 * <p>The raw path: Kafka payloads straight from a {@code KafkaSource} (with {@link
 * dev.floe.flink.KafkaPayloadDeserializer}), decoded natively a batch at a time.
 *
 * <pre>{@code
 * env.enableCheckpointing(1_000);
 * DataStream<KafkaPayload> events = env.fromSource(kafkaSource, WatermarkStrategy.noWatermarks(), "events");
 * FloeIcebergSink.forKafkaPayloads(IcebergTableRef.of("prod", catalogProperties, tableId)).append(events);
 * }</pre>
 */
public final class FloeIcebergSink
    implements Sink<KafkaPayload>,
        SupportsCommitter<FloeCommittable>,
        SupportsPreCommitTopology<WriteResult, FloeCommittable> {
  private static final long serialVersionUID = 1L;

  private final IcebergTableRef table;
  private final PayloadWriterSettings settings;
  private final String uidSuffix;

  private FloeIcebergSink(IcebergTableRef table, PayloadWriterSettings settings, String uidSuffix) {
    this.table = table;
    this.settings = settings;
    this.uidSuffix = uidSuffix;
  }

  /** A sink for raw Kafka payloads into {@code table}, whose schema the JSON must match. */
  public static Builder forKafkaPayloads(IcebergTableRef table) {
    return new Builder(table);
  }

  @Override
  public SinkWriter<KafkaPayload> createWriter(WriterInitContext context) {
    return new PayloadWriter(
        table,
        settings,
        context.getTaskInfo().getIndexOfThisSubtask(),
        context.getTaskInfo().getAttemptNumber(),
        context.metricGroup());
  }

  @Override
  public Committer<FloeCommittable> createCommitter(CommitterInitContext context) {
    return new CheckpointCommitter(table, context.metricGroup());
  }

  @Override
  public SimpleVersionedSerializer<FloeCommittable> getCommittableSerializer() {
    return new FloeCommittable.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<WriteResult> getWriteResultSerializer() {
    return new WriteResults();
  }

  /**
   * One aggregator between writers and committer. Both hops are {@code global()}: every writer's
   * files reach the one aggregator, and its committables reach committer subtask 0 only, so each
   * checkpoint is one commit however many committer subtasks Flink starts.
   */
  @Override
  public DataStream<CommittableMessage<FloeCommittable>> addPreCommitTopology(
      DataStream<CommittableMessage<WriteResult>> writeResults) {
    var aggregated =
        writeResults
            .global()
            .transform(
                "floe-iceberg aggregator",
                CommittableMessageTypeInfo.of(FloeCommittable.Serializer::new),
                new CheckpointAggregator());
    if (uidSuffix != null) {
      // Flink then requires a uid on the sink too: Builder#append sets both
      aggregated.uid("floe-iceberg aggregator: " + uidSuffix);
    }
    return aggregated
        .setParallelism(1)
        .setMaxParallelism(1)
        .global();
  }

  /** Settings of a {@link FloeIcebergSink}; the defaults suit most jobs. */
  public static final class Builder {
    private final IcebergTableRef table;
    private BadRecordPolicy policy = BadRecordPolicy.FAIL;
    private int batchMessages = PayloadWriterSettings.DEFAULT_BATCH_MESSAGES;
    private long batchBytes = PayloadWriterSettings.DEFAULT_BATCH_BYTES;
    private String uidSuffix;

    private Builder(IcebergTableRef table) {
      this.table = table;
    }

    /** {@code FAIL} (default: the task fails, naming the record) or {@code SKIP} (counted as rejected). */
    public Builder badRecordPolicy(BadRecordPolicy policy) {
      this.policy = policy;
      return this;
    }

    /** Messages per native decode call (default 8192); a batch also ends at 8 MiB. */
    public Builder batchMessages(int messages) {
      this.batchMessages = messages;
      return this;
    }

    /**
     * Gives the sink's operators stable uids ({@code floe-iceberg: <suffix>} and derived ones), so
     * a savepoint restores into them after the job changes. Use {@link #append} then, which sets
     * the sink's own uid as Flink requires.
     */
    public Builder uidSuffix(String suffix) {
      this.uidSuffix = suffix;
      return this;
    }

    public FloeIcebergSink build() {
      return new FloeIcebergSink(table, new PayloadWriterSettings(policy, batchMessages, batchBytes), uidSuffix);
    }

    /**
     * Builds the sink and adds it to {@code input} with uids from {@link #uidSuffix} (default: the
     * table's name), the way to keep a job's savepoints restorable.
     */
    public DataStreamSink<KafkaPayload> append(DataStream<KafkaPayload> input) {
      if (uidSuffix == null) {
        uidSuffix = table.toString();
      }
      String uid = "floe-iceberg: " + uidSuffix;
      return input.sinkTo(build()).uid(uid).name(uid);
    }
  }
}
