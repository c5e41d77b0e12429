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
    OutageRetries retries = new OutageRetries(Duration.ofMillis(300), "storage.retry.timeout", 10, 200);
    assertEquals(10, retries.waitAfter(OUTAGE));
    assertEquals(20, retries.waitAfter(OUTAGE));
    assertEquals(40, retries.waitAfter(OUTAGE));
    assertEquals(80, retries.waitAfter(OUTAGE));
    assertEquals(160, retries.waitAfter(OUTAGE));
    assertEquals(200, retries.waitAfter(OUTAGE));
    assertEquals(200, retries.waitAfter(OUTAGE));
    Thread.sleep(310); // past the timeout
    OutageRetries.Outlasted outlasted = assertThrows(OutageRetries.Outlasted.class, () -> retries.waitAfter(OUTAGE));
    assertTrue(outlasted.getMessage().contains("(7 cycles read again; storage.retry.timeout is PT0.3S)"),
        outlasted.getMessage());
    assertSame(OUTAGE, outlasted.getCause());
  }

  @Test
  void aCommitThatLandsOrACycleWithNothingToRedoEndsTheOutage() throws Exception {
    OutageRetries retries = new OutageRetries(Duration.ofMillis(200), "storage.retry.timeout", 10, 40);
    assertEquals(10, retries.waitAfter(OUTAGE));
    assertEquals(20, retries.waitAfter(OUTAGE));
    retries.landed();
    assertEquals(10, retries.waitAfter(OUTAGE), "a new outage starts at the first wait");
    // helper-70: with nothing landing (a quiet table), a failure long after the last one counted
    // as the same outage, and stopped the sink at once
    retries.nothingToRedo();
    Thread.sleep(250);
    assertEquals(10, retries.waitAfter(OUTAGE), "after a cycle with nothing to redo, a later failure is a new outage");
  }

  /**
   * Failures far apart with neither a commit nor a quiet cycle between are one outage, however far
   * apart the clients make them: helper-71 saw cycles that take longer than the timeout to fill,
   * helper-74 a full outage whose failures came 95 s apart (after Iceberg's own retries of a
   * metadata read), and before, each counted as a new outage and the timeout never came.
   */
  @Test
  void failuresFarApartWithNothingBetweenAreOneOutage() throws Exception {
    OutageRetries retries = new OutageRetries(Duration.ofMillis(100), "storage.retry.timeout", 1, 1);
    retries.waitAfter(OUTAGE);
    Thread.sleep(400); // four times the timeout, and far past any wait
    assertThrows(OutageRetries.Outlasted.class, () -> retries.waitAfter(OUTAGE));
  }

  @Test
  void whatNoOutageExplainsIsThrownAsItIs() {
    RuntimeException bad = new SinkException("bad record", null);
    assertSame(bad, assertThrows(SinkException.class, () -> new OutageRetries(Duration.ofMinutes(5), "x").waitAfter(bad)));
    assertSame(OUTAGE, assertThrows(UncheckedIOException.class,
        () -> new OutageRetries(Duration.ZERO, "x").waitAfter(OUTAGE)), "a zero timeout rides out nothing");
  }
}
