package dev.floe.kafka.sink;

/** What a running sink exposes over JMX ({@code dev.floe:type=KafkaIcebergSink,group=<group>}). */
public interface SinkMetricsMXBean {
  long getRecordsConsumed();

  long getBytesConsumed();

  long getRowsWritten();

  long getBadRecords();

  long getDeadLettered();

  long getCommits();

  /** Cycles dropped because another sink had committed their partitions' offsets first. */
  long getFencedCycles();

  long getDataFiles();

  long getDataFileBytes();

  long getLastCommitMillis();

  long getLag();

  double getRecordsPerSecond();

  double getBytesPerSecond();
}
