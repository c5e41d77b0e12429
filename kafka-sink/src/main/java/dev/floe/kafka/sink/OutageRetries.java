package dev.floe.kafka.sink;

import java.time.Duration;

/**
 * How long the sink rides out an outage of its tables' storage or catalog ({@code
 * storage.retry.timeout}): after each failed cycle that an outage explains ({@link
 * StorageFailures}), the wait before reading it again -- 1 s, doubling up to 30 s -- until the
 * failures have gone on for the timeout. Consumer thread only (in the Connect connector: its
 * task's threads, under its cycle lock).
 *
 * <p>An outage ends on evidence that nothing is left to redo, never on the time between failures,
 * which the clients decide (helper-74 saw a full outage's failures 95 s apart, after Iceberg's own
 * retries of a metadata read, and each counted as a new outage; helper-75 found calls that take up
 * to 10 minutes to fail): a commit that lands ({@link #landed}), or a whole commit cycle with no
 * records to write after the sink resumed ({@link #nothingToRedo}), so that a later, separate
 * outage of a quiet topic starts its own clock. The timeout is checked when a failure comes, so a
 * call that blocks inside its client's retries may take it past the timeout by that call's time.
 */
public final class OutageRetries {
  private static final long FIRST_WAIT_MS = 1_000;
  private static final long LONGEST_WAIT_MS = 30_000;

  private final Duration timeout;
  private final long firstWaitMs;
  private final long longestWaitMs;
  /** The timeout's setting, as the failure past it names it. */
  private final String setting;
  /** When the first failure of this outage came; -1 outside one. */
  private long firstFailureNanos = -1;
  private int retries;

  /** @param setting the name of the setting that gave {@code timeout}, for the failure past it */
  public OutageRetries(Duration timeout, String setting) {
    this(timeout, setting, FIRST_WAIT_MS, LONGEST_WAIT_MS);
  }

  /** With other waits (tests). */
  OutageRetries(Duration timeout, String setting, long firstWaitMs, long longestWaitMs) {
    this.timeout = timeout;
    this.setting = setting;
    this.firstWaitMs = firstWaitMs;
    this.longestWaitMs = longestWaitMs;
  }

  /**
   * The milliseconds to wait before reading the failed cycle again.
   *
   * @throws RuntimeException {@code failure} itself if no outage explains it, or an {@link
   *     Outlasted} saying how long the outage lasted once that is past the timeout
   */
  public long waitAfter(RuntimeException failure) {
    if (!StorageFailures.isOutage(failure) || timeout.isZero()) {
      throw failure;
    }
    long now = System.nanoTime();
    if (firstFailureNanos < 0) {
      firstFailureNanos = now;
    }
    Duration lasted = Duration.ofNanos(now - firstFailureNanos);
    if (lasted.compareTo(timeout) >= 0) {
      throw new Outlasted("the tables' storage or catalog kept failing for " + lasted.toSeconds() + " s ("
          + retries + " cycles read again; " + setting + " is " + timeout + "); the last failure: " + failure,
          failure);
    }
    long wait = Math.min(longestWaitMs, firstWaitMs << Math.min(retries, 20));
    retries++;
    return wait;
  }

  /** A cycle was committed to a table: the outage, if there was one, is over. */
  public void landed() {
    firstFailureNanos = -1;
    retries = 0;
  }

  /**
   * A whole commit cycle since the sink last resumed passed without a record to write and without
   * a failure: whatever failed before has nothing left to redo, and the outage, if there was one,
   * is over (a quiet topic commits nothing that could say so).
   */
  public void nothingToRedo() {
    landed();
  }

  /** Cycles read again in the current outage. */
  public int retries() {
    return retries;
  }

  /** An outage went on past the timeout: the sink stops (not to be ridden out again). */
  public static final class Outlasted extends SinkException {
    Outlasted(String message, Throwable lastFailure) {
      super(message, lastFailure);
    }
  }
}
