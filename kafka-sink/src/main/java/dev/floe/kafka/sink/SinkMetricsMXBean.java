package dev.floe.kafka.sink;

/** What a running sink exposes over JMX ({@code dev.floe:type=KafkaIcebergSink,group=<group>}). */
public interface SinkMetricsMXBean {
  long getRecordsConsumed();

  long getBytesConsumed();

  long getRowsWritten();

  long getBadRecords();

  long getDeadLettered();

  /** Records with a null value (tombstones) in append mode: nothing to append, so skipped. */
  long getTombstonesSkipped();

  /**
   * Values of fields the records had and their table's schema lacks: they were not written.
   * Each such field is also named once in the log.
   */
  long getUnknownFieldValues();

  /**
   * Batches that moved their table's cycle to a new schema, after evolving the table (or finding
   * it evolved by another writer) for what they carried ({@code evolve.schema}).
   */
  long getSchemaEvolutions();

  /** Time those batches were held up by it: schema commits, new writers, decodes again. */
  double getSchemaEvolutionMillis();

  long getCommits();

  /** Cycles dropped because another sink had committed their partitions' offsets first. */
  long getFencedCycles();

  /**
   * Cycles dropped and read again because they failed on an outage of the tables' storage or
   * catalog ({@code storage.retry.timeout}).
   */
  long getOutageRetries();

  /**
   * Times a partition was found to reuse offsets the tables already hold (its log was truncated,
   * e.g. by an unclean leader election): the records from its end on are read as new ones. A
   * truncation found again after a fenced commit counts again.
   */
  long getReusedOffsets();

  long getDataFiles();

  long getDataFileBytes();

  long getLastCommitMillis();

  long getLag();

  double getRecordsPerSecond();

  double getBytesPerSecond();
}
