package dev.floe.kafka.sink;

import java.time.Duration;

/**
 * How long the sink rides out an outage of its tables' storage or catalog ({@code
 * storage.retry.timeout}): after each failed cycle that an outage explains ({@link
 * StorageFailures}), the wait before reading it again -- 1 s, doubling up to 30 s -- until the
 * failures have gone on for the timeout; a commit that goes through ends the outage. Consumer
 * thread only (in the Connect connector: its task's threads, under its cycle lock).
 */
public final class OutageRetries {
  private static final long FIRST_WAIT_MS = 1_000;
  private static final long LONGEST_WAIT_MS = 30_000;
  /**
   * The longest one call may take to fail inside its own client's retries: Iceberg retries a
   * table's metadata read for about 90 s (20 tries, waits up to 5 s) before the failure reaches
   * the sink, so during a full outage the failures come that far apart.
   */
  private static final long LONGEST_CALL_MS = 120_000;

  private final Duration timeout;
  /**
   * A failure this long after the last one, with no commit between, starts a new outage: within
   * one, failures come at most a wait, a cycle's time and one call's own retries apart.
   */
  private final long newOutageAfterNanos;
  private final long firstWaitMs;
  private final long longestWaitMs;
  /** The timeout's setting, as the failure past it names it. */
  private final String setting;
  /** When the first failure of this outage came; -1 outside one. */
  private long firstFailureNanos = -1;
  /** When its last failure came. */
  private long lastFailureNanos;
  private int retries;

  /**
   * @param setting the name of the setting that gave {@code timeout}, for the failure past it
   * @param cycle the longest a cycle takes to fill (the commit interval)
   */
  public OutageRetries(Duration timeout, String setting, Duration cycle) {
    this(timeout, setting, cycle, FIRST_WAIT_MS, LONGEST_WAIT_MS, LONGEST_CALL_MS);
  }

  /** With other waits (tests). */
  OutageRetries(Duration timeout, String setting, Duration cycle, long firstWaitMs, long longestWaitMs,
      long longestCallMs) {
    this.timeout = timeout;
    this.setting = setting;
    this.firstWaitMs = firstWaitMs;
    this.longestWaitMs = longestWaitMs;
    // helper-71: without the cycle's time, failures of cycles longer than the timeout each
    // counted as a new outage, and the timeout never came; helper-74: the same for a full outage
    // without a call's own retries (failures 95 s apart, each a new outage past a 61 s gap)
    this.newOutageAfterNanos =
        Math.max(timeout.toNanos(), 2_000_000 * longestWaitMs) + cycle.toNanos() + longestCallMs * 1_000_000;
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
    if (firstFailureNanos >= 0 && now - lastFailureNanos > newOutageAfterNanos) {
      landed(); // a quiet table's next failure, long after this outage's last one
    }
    if (firstFailureNanos < 0) {
      firstFailureNanos = now;
    }
    lastFailureNanos = now;
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
