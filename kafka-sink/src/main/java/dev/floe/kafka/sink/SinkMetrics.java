package dev.floe.kafka.sink;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** The sink's counters, read by its log lines and over JMX. Thread-safe. */
final class SinkMetrics implements SinkMetricsMXBean {
  private final long started = System.nanoTime();
  private final LongAdder recordsConsumed = new LongAdder();
  private final LongAdder bytesConsumed = new LongAdder();
  private final LongAdder rowsWritten = new LongAdder();
  private final LongAdder badRecords = new LongAdder();
  private final LongAdder deadLettered = new LongAdder();
  private final LongAdder tombstonesSkipped = new LongAdder();
  private final LongAdder unknownFieldValues = new LongAdder();
  private final LongAdder schemaEvolutions = new LongAdder();
  private final LongAdder schemaEvolutionNanos = new LongAdder();
  private final LongAdder commits = new LongAdder();
  private final LongAdder fencedCycles = new LongAdder();
  private final LongAdder outageRetries = new LongAdder();
  private final LongAdder reusedOffsets = new LongAdder();
  private final LongAdder dataFiles = new LongAdder();
  private final LongAdder dataFileBytes = new LongAdder();
  private final AtomicLong lastCommitMillis = new AtomicLong();
  private final AtomicLong lag = new AtomicLong();
  private ObjectName registered;

  void consumed(long records, long bytes) {
    recordsConsumed.add(records);
    bytesConsumed.add(bytes);
  }

  void rowsWritten(long rows) {
    rowsWritten.add(rows);
  }

  void badRecord() {
    badRecords.increment();
  }

  void deadLettered() {
    deadLettered.increment();
  }

  void tombstoneSkipped() {
    tombstonesSkipped.increment();
  }

  void unknownFieldValues(long values) {
    unknownFieldValues.add(values);
  }

  void schemaEvolved(long nanos) {
    schemaEvolutions.increment();
    schemaEvolutionNanos.add(nanos);
  }

  void committed(long files, long bytes, long millis) {
    commits.increment();
    dataFiles.add(files);
    dataFileBytes.add(bytes);
    lastCommitMillis.set(millis);
  }

  void fenced() {
    fencedCycles.increment();
  }

  void outageRetried() {
    outageRetries.increment();
  }

  void offsetsReused() {
    reusedOffsets.increment();
  }

  void lag(long value) {
    lag.set(value);
  }

  long badRecords() {
    return badRecords.sum();
  }

  void register(String group) {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName("dev.floe:type=KafkaIcebergSink,group=" + ObjectName.quote(group));
      if (!server.isRegistered(name)) {
        server.registerMBean(this, name);
        registered = name;
      }
    } catch (JMException e) {
      // Metrics are optional: a sink without JMX still runs and logs.
    }
  }

  void unregister() {
    if (registered != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(registered);
      } catch (JMException ignored) {
        // already gone
      }
      registered = null;
    }
  }

  private double seconds() {
    return Math.max(1e-9, (System.nanoTime() - started) / 1e9);
  }

  @Override
  public long getRecordsConsumed() {
    return recordsConsumed.sum();
  }

  @Override
  public long getBytesConsumed() {
    return bytesConsumed.sum();
  }

  @Override
  public long getRowsWritten() {
    return rowsWritten.sum();
  }

  @Override
  public long getBadRecords() {
    return badRecords.sum();
  }

  @Override
  public long getDeadLettered() {
    return deadLettered.sum();
  }

  @Override
  public long getTombstonesSkipped() {
    return tombstonesSkipped.sum();
  }

  @Override
  public long getUnknownFieldValues() {
    return unknownFieldValues.sum();
  }

  @Override
  public long getSchemaEvolutions() {
    return schemaEvolutions.sum();
  }

  @Override
  public double getSchemaEvolutionMillis() {
    return schemaEvolutionNanos.sum() / 1e6;
  }

  @Override
  public long getCommits() {
    return commits.sum();
  }

  @Override
  public long getFencedCycles() {
    return fencedCycles.sum();
  }

  @Override
  public long getOutageRetries() {
    return outageRetries.sum();
  }

  @Override
  public long getReusedOffsets() {
    return reusedOffsets.sum();
  }

  @Override
  public long getDataFiles() {
    return dataFiles.sum();
  }

  @Override
  public long getDataFileBytes() {
    return dataFileBytes.sum();
  }

  @Override
  public long getLastCommitMillis() {
    return lastCommitMillis.get();
  }

  @Override
  public long getLag() {
    return lag.get();
  }

  @Override
  public double getRecordsPerSecond() {
    return getRecordsConsumed() / seconds();
  }

  @Override
  public double getBytesPerSecond() {
    return getBytesConsumed() / seconds();
  }
}
