package dev.floe.kafka.sink;

import java.time.Duration;

/**
 * How long the sink rides out an outage of its tables' storage or catalog ({@code
 * storage.retry.timeout}): after each failed cycle that an outage explains ({@link
 * StorageFailures}), the wait before reading it again -- 1 s, doubling up to 30 s -- until the
 * failures have gone on for the timeout; a cycle that lands ends the outage. Consumer thread only.
 */
final class OutageRetries {
  static final long FIRST_WAIT_MS = 1_000;
  static final long LONGEST_WAIT_MS = 30_000;

  private final Duration timeout;
  /** When the first failure of this outage came; -1 outside one. */
  private long firstFailureNanos = -1;
  private int retries;

  OutageRetries(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * The milliseconds to wait before reading the failed cycle again.
   *
   * @throws RuntimeException {@code failure} itself if no outage explains it, or a {@link
   *     SinkException} saying how long the outage lasted once that is past the timeout
   */
  long waitAfter(RuntimeException failure) {
    if (!StorageFailures.isOutage(failure) || timeout.isZero()) {
      throw failure;
    }
    long now = System.nanoTime();
    if (firstFailureNanos < 0) {
      firstFailureNanos = now;
    }
    Duration lasted = Duration.ofNanos(now - firstFailureNanos);
    if (lasted.compareTo(timeout) >= 0) {
      throw new SinkException("the tables' storage or catalog kept failing for " + lasted.toSeconds() + " s ("
          + retries + " cycles read again; storage.retry.timeout is " + timeout + "); the last failure: " + failure,
          failure);
    }
    long wait = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS << Math.min(retries, 20));
    retries++;
    return wait;
  }

  /** A cycle landed: the outage, if there was one, is over. */
  void landed() {
    firstFailureNanos = -1;
    retries = 0;
  }

  /** Cycles read again in the current outage. */
  int retries() {
    return retries;
  }
}
