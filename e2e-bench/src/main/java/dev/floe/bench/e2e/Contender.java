package dev.floe.bench.e2e;

import java.util.OptionalLong;

/**
 * One side of the comparison: reads the whole loaded topic into the run's table (or, for the
 * bare-consume ceiling, nowhere) and says how long that took. The harness creates the table before
 * and checks it after; a contender only moves records. Implementations may keep state across runs
 * (a worker process); {@link #close()} releases it.
 */
public interface Contender extends AutoCloseable {
  /** Short name used in reports: floe, stock-java, kafka-connect, bare-consume. */
  String id();

  /** One sentence on what runs, for the report. */
  String description();

  /** False for a contender that only reads (its counts are checked instead of a table). */
  default boolean writesTable() {
    return true;
  }

  /**
   * Moves every record of {@code run.topic()} into {@code run.table()} and returns once all of
   * them are committed (or the run's deadline passed: the harness then finds the table short).
   */
  Outcome run(RunSpec run) throws Exception;

  /**
   * Starts the process this contender runs in, if it has one of its own and it is not running
   * (untimed, before a run, against the broker at {@code bootstrapServers}), and returns its id so
   * that the harness can account its CPU; empty for a contender in the driver's JVM.
   */
  default OptionalLong startProcess(String bootstrapServers) throws Exception {
    return OptionalLong.empty();
  }

  @Override
  default void close() throws Exception {}

  /**
   * What one run measured.
   *
   * @param nanos the measured time: from the contender's start (sink created, connector
   *     submitted) to every record committed (Kafka Connect: put, see its contender)
   * @param records records the contender counted (consumed, or written), or -1
   * @param bytes payload bytes it counted, or -1 when it does not count them
   * @param committedNanos from the start until every record was committed in the table
   * @param note anything the report should say about this run, or null
   */
  record Outcome(long nanos, long records, long bytes, long committedNanos, String note) {
    /** An outcome whose measured time is the time to the last commit. */
    Outcome(long nanos, long records, long bytes, String note) {
      this(nanos, records, bytes, nanos, note);
    }
  }
}
