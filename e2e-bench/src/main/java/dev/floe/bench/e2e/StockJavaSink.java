package dev.floe.bench.e2e;

import dev.floe.bench.stock.JacksonRecordDecoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitionedFanoutWriter;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.UnpartitionedWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A plain Java Kafka -> Iceberg sink, built the way one is built from stock parts: one {@link
 * KafkaConsumer} thread, Jackson decoding each message into an Iceberg {@link Record} ({@link
 * JacksonRecordDecoder}), Iceberg's generic Parquet appenders behind a {@link
 * PartitionedFanoutWriter} (one open file per partition), and an Iceberg append commit every
 * interval or N records, then the consumer group's offsets. It does not store offsets in the
 * table (no exactly-once); floe's sink does that extra work.
 *
 * <p>Lifecycle: {@link #run()} once, then {@link #close()}; the instance owns its consumer.
 */
final class StockJavaSink implements AutoCloseable {
  private final Table table;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String topic;
  private final Duration commitInterval;
  private final long commitRecords;
  private final long deadline;
  private final JacksonRecordDecoder decoder;
  private final GenericAppenderFactory appenders;
  private final long targetFileSize;
  private int writerId;
  private TaskWriter<Record> writer;
  private long rowsWritten;
  private long bytesConsumed;

  StockJavaSink(Table table, Map<String, Object> consumerConfig, String topic, RunSpec.CommitCadence cadence,
      Duration timeout) {
    this.table = table;
    this.topic = topic;
    this.commitInterval = cadence.interval();
    this.commitRecords = cadence.records();
    this.deadline = System.nanoTime() + timeout.toNanos();
    this.decoder = new JacksonRecordDecoder(table.schema());
    this.appenders = new GenericAppenderFactory(table.schema(), table.spec());
    this.targetFileSize =
        PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    this.consumer = new KafkaConsumer<>(consumerConfig);
  }

  /** Reads to the end offsets seen at assignment, committing on the cadence, then commits the rest. */
  void run() throws IOException {
    TopicEnd end = new TopicEnd(consumer);
    consumer.subscribe(List.of(topic), end);
    writer = newWriter();
    long cycleRecords = 0;
    long cycleStart = System.nanoTime();
    while (!end.reached() && System.nanoTime() < deadline) {
      ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(200));
      for (ConsumerRecord<byte[], byte[]> r : polled) {
        bytesConsumed += r.value().length;
        writer.write(decoder.decode(r.value()));
      }
      cycleRecords += polled.count();
      if (cycleRecords >= commitRecords || System.nanoTime() - cycleStart >= commitInterval.toNanos()) {
        commit();
        cycleRecords = 0;
        cycleStart = System.nanoTime();
      }
    }
    commit();
  }

  private void commit() throws IOException {
    WriteResult result = writer.complete();
    writer = newWriter();
    if (result.dataFiles().length > 0) {
      AppendFiles append = table.newAppend();
      for (DataFile file : result.dataFiles()) {
        append.appendFile(file);
        rowsWritten += file.recordCount();
      }
      append.commit();
    }
    consumer.commitSync();
  }

  private TaskWriter<Record> newWriter() {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, ++writerId).format(FileFormat.PARQUET).build();
    PartitionSpec spec = table.spec();
    if (spec.isUnpartitioned()) {
      return new UnpartitionedWriter<>(spec, FileFormat.PARQUET, appenders, files, table.io(), targetFileSize);
    }
    return new BucketFanout(spec, table.schema(), appenders, files, table, targetFileSize);
  }

  long rowsWritten() {
    return rowsWritten;
  }

  long bytesConsumed() {
    return bytesConsumed;
  }

  @Override
  public void close() {
    if (writer != null) {
      try {
        writer.abort(); // only an unfinished cycle's files; committed ones are the table's
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    consumer.close();
  }

  /** Iceberg's fanout writer, keyed by the row's partition (values in Iceberg's internal form). */
  private static final class BucketFanout extends PartitionedFanoutWriter<Record> {
    private final PartitionKey key;
    private final InternalRecordWrapper wrapper;

    BucketFanout(PartitionSpec spec, Schema schema, GenericAppenderFactory appenders, OutputFileFactory files,
        Table table, long targetFileSize) {
      super(spec, FileFormat.PARQUET, appenders, files, table.io(), targetFileSize);
      this.key = new PartitionKey(spec, schema);
      this.wrapper = new InternalRecordWrapper(schema.asStruct());
    }

    @Override
    protected PartitionKey partition(Record row) {
      key.partition(wrapper.wrap(row));
      return key;
    }
  }
}
