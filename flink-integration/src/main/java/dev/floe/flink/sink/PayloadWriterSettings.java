package dev.floe.flink.sink;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.KafkaPayload;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * How a raw-path writer batches and what it does with a message the decoder rejects.
 *
 * @param batchMessages messages per native decode call (a batch also ends at {@code batchBytes})
 * @param policy {@code FAIL} or {@code SKIP}; a Flink job has no dead-letter topic of floe's
 * @param evolveSchema evolve the table from the payloads (fields it lacks, values too wide)
 * @param upsert replace rows by the table's identifier fields; a tombstone deletes its key's row
 */
record PayloadWriterSettings(BadRecordPolicy policy, int batchMessages, long batchBytes, boolean evolveSchema,
    boolean upsert)
    implements WriterFactory<KafkaPayload> {
  static final int DEFAULT_BATCH_MESSAGES = 8192;
  static final long DEFAULT_BATCH_BYTES = 8L << 20;

  PayloadWriterSettings {
    if (policy == BadRecordPolicy.DEAD_LETTER) {
      throw new IllegalArgumentException("a Flink sink fails or skips a bad record; dead letters are the Kafka sink's");
    }
    if (batchMessages <= 0 || batchBytes <= 0) {
      throw new IllegalArgumentException("batches need room: " + batchMessages + " messages, " + batchBytes + " bytes");
    }
  }

  @Override
  public CommittingSinkWriter<KafkaPayload, WrittenFiles> create(IcebergTableRef table, WriterInitContext context) {
    return new PayloadWriter(
        table,
        this,
        context.getTaskInfo().getIndexOfThisSubtask(),
        context.getTaskInfo().getAttemptNumber(),
        context.metricGroup());
  }
}
