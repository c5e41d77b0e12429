package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutageRetriesTest {
  private static final RuntimeException OUTAGE = new UncheckedIOException(new IOException("503"));

  @Test
  void waitsDoubleUpToTheLongestThenTheOutageOutlastsTheTimeout() throws Exception {
    OutageRetries retries = new OutageRetries(Duration.ofMillis(300), "storage.retry.timeout", Duration.ZERO, 10, 200, 0);
    assertEquals(10, retries.waitAfter(OUTAGE));
    assertEquals(20, retries.waitAfter(OUTAGE));
    assertEquals(40, retries.waitAfter(OUTAGE));
    assertEquals(80, retries.waitAfter(OUTAGE));
    assertEquals(160, retries.waitAfter(OUTAGE));
    assertEquals(200, retries.waitAfter(OUTAGE));
    assertEquals(200, retries.waitAfter(OUTAGE));
    Thread.sleep(310); // past the timeout, within twice the longest wait of the last failure
    OutageRetries.Outlasted outlasted = assertThrows(OutageRetries.Outlasted.class, () -> retries.waitAfter(OUTAGE));
    assertTrue(outlasted.getMessage().contains("(7 cycles read again; storage.retry.timeout is PT0.3S)"),
        outlasted.getMessage());
    assertSame(OUTAGE, outlasted.getCause());
  }

  @Test
  void aCommitThatLandsOrALongQuietEndsTheOutage() throws Exception {
    OutageRetries retries = new OutageRetries(Duration.ofMillis(200), "storage.retry.timeout", Duration.ZERO, 10, 40, 0);
    assertEquals(10, retries.waitAfter(OUTAGE));
    retries.landed();
    assertEquals(10, retries.waitAfter(OUTAGE), "a new outage starts at the first wait");
    // helper-70: with nothing landing (a quiet table), a failure long after the last one counted
    // as the same outage, and stopped the sink at once
    Thread.sleep(250);
    assertEquals(10, retries.waitAfter(OUTAGE), "longer than the timeout and twice the longest wait since: a new one");
  }

  /**
   * helper-71: failures of cycles that take longer than the timeout to fill came further apart than
   * the new-outage gap, each counted as a new outage, and the sink never stopped.
   */
  @Test
  void failuresACycleApartAreOneOutage() throws Exception {
    OutageRetries retries = new OutageRetries(Duration.ofMillis(100), "storage.retry.timeout", Duration.ofMillis(300), 1, 1, 0);
    retries.waitAfter(OUTAGE);
    Thread.sleep(150); // a cycle's time, longer than the timeout
    assertThrows(OutageRetries.Outlasted.class, () -> retries.waitAfter(OUTAGE));
  }

  /**
   * helper-74: during a full outage each failure reached the connector's task only after Iceberg's
   * own retries of a metadata read (about 90 s), further apart than the new-outage gap (61 s with a
   * 4 s timeout): each counted as a new outage, and the task never failed.
   */
  @Test
  void failuresAStoreCallsOwnRetriesApartAreOneOutage() throws Exception {
    OutageRetries retries = new OutageRetries(Duration.ofMillis(100), "storage.retry.timeout", Duration.ZERO, 1, 1, 300);
    retries.waitAfter(OUTAGE);
    Thread.sleep(200); // one call's own retries, longer than the timeout
    assertThrows(OutageRetries.Outlasted.class, () -> retries.waitAfter(OUTAGE));
  }

  @Test
  void whatNoOutageExplainsIsThrownAsItIs() {
    RuntimeException bad = new SinkException("bad record", null);
    assertSame(bad, assertThrows(SinkException.class, () -> new OutageRetries(Duration.ofMinutes(5), "x", Duration.ZERO).waitAfter(bad)));
    assertSame(OUTAGE, assertThrows(UncheckedIOException.class,
        () -> new OutageRetries(Duration.ZERO, "x", Duration.ZERO).waitAfter(OUTAGE)), "a zero timeout rides out nothing");
  }
}
