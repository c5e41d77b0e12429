package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.nexmark.NexmarkEngine;
import dev.floe.flink.nexmark.NexmarkQuery;
import dev.floe.flink.nexmark.NexmarkSuite;
import dev.floe.flink.nexmark.NexmarkTopic;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.TableFingerprint;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The CI-sized Nexmark suite: every query, q0 to q22, on a small corpus ({@value #EVENTS} events in
 * a 4-partition topic of a real broker) through both engines -- Flink's {@code json} format into
 * Iceberg's connector, and {@code floe-json} into {@code floe-iceberg} -- with the same SQL; the
 * two output tables must agree (see each query's {@code -- check:}) and must not be empty (but for
 * q12's processing-time windows, see {@link dev.floe.flink.nexmark.OutputCheck}). This
 * proves every query path, not speed: {@code scripts/bench-nexmark} times them.
 */
class NexmarkSuiteTest {
  private static final int EVENTS = 20_000;
  static final List<String> QUERIES = NexmarkQuery.NAMES;

  @TempDir static Path work;
  private static LocalKafkaBroker kafka;
  private static NexmarkSuite suite;
  private static long bids;

  @BeforeAll
  static void loadTopic() throws Exception {
    kafka = LocalKafkaBroker.start(work.resolve("broker"));
    bids = NexmarkTopic.load(kafka, "nexmark", EVENTS, 7);
    suite = NexmarkSuite.start(kafka.bootstrapServers(), "nexmark", work);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      suite.close();
    } finally {
      kafka.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @FieldSource("QUERIES")
  void bothEnginesWriteTheSameTable(String name) throws Exception {
    NexmarkQuery query = NexmarkQuery.load(name);
    NexmarkSuite.Run stock = suite.run(query, NexmarkEngine.STOCK);
    NexmarkSuite.Run floe = suite.run(query, NexmarkEngine.FLOE);
    TableFingerprint both = NexmarkSuite.verify(stock, floe, bids);
    System.out.printf("%s: stock %.1f s, floe %.1f s, %s%n", name, stock.seconds(), floe.seconds(), both);
    assertTrue(both.rows() > 0 || !query.check().alwaysWrites(), name + " wrote nothing on either engine");
  }

  /** The check catches a difference: q2 on one engine against q2 selecting other auctions on the other. */
  @Test
  void theCheckFailsWhenTheEnginesDisagree() throws Exception {
    NexmarkQuery q2 = NexmarkQuery.load("q2");
    NexmarkQuery otherAuctions =
        new NexmarkQuery(q2.name(), q2.createSink(), q2.views(), q2.insert().replace("123", "124"), q2.bucketColumn(), q2.check());
    NexmarkSuite.Run stock = suite.run(q2, NexmarkEngine.STOCK);
    NexmarkSuite.Run floe = suite.run(otherAuctions, NexmarkEngine.FLOE);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> NexmarkSuite.verify(stock, floe, bids));
    assertTrue(e.getMessage().startsWith("q2: floe wrote"), e.getMessage());
  }
}
