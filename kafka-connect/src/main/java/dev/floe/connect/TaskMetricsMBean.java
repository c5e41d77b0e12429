package dev.floe.connect;

/**
 * One task's figures over the worker's JMX, as {@code
 * dev.floe:type=FloeIcebergSinkTask,connector=<name>,task=<index>} (the name quoted only where JMX
 * needs it). Consumer lag is Connect's own
 * ({@code kafka.consumer:type=consumer-fetch-manager-metrics,client-id=connector-consumer-<name>-<task>},
 * {@code records-lag-max}); these say how far the tables are behind what the task has read.
 */
public interface TaskMetricsMBean {
  long getRecordsPut();

  long getRowsWritten();

  long getBadRecords();

  /** Values of fields the records had and their table lacks (not written; each named once in the log). */
  long getUnknownFieldValues();

  /** Batches that moved their table's cycle to a new schema (iceberg.tables.evolve-schema-enabled). */
  long getSchemaEvolutions();

  long getTombstonesSkipped();

  long getCommits();

  long getCommittedFiles();

  long getCommittedBytes();

  /** How long the last commit took, from its cycle's end to its commit. */
  long getLastCommitMillis();

  /** Cycles whose commit was refused because another task had moved their partitions' offsets (a zombie's). */
  long getFencedCycles();

  /**
   * Failures of the tables' storage or catalog the task rode out ({@code
   * floe.storage.retry.timeout.ms}): each dropped what was not committed, or was a failed attempt
   * to read the tables again, and was followed by a wait with the partitions paused.
   */
  long getOutageRetries();

  /**
   * Tables the task has loaded and keeps (with their offsets): with dynamic routing, one idle past
   * floe.table.idle.ms is let go until its next record.
   */
  int getOpenTables();

  /** Records the task has read whose offsets are not committed to the tables yet (a cycle being committed too). */
  long getUncommittedRecords();

  /** Milliseconds since the last commit (or since the task started); it grows on a task with nothing to commit. */
  long getMillisSinceLastCommit();
}
