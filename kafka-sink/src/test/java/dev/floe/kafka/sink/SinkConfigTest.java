package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Budgets and cycle bounds are checked when the configuration is built, not when the sink runs out. */
class SinkConfigTest {
  @TempDir Path warehouse;

  private SinkConfig build(UnaryOperator<SinkConfig.Builder> settings) throws Exception {
    Catalog catalog = Catalogs.embedded(warehouse);
    try {
      return settings.apply(SinkConfig.builder(catalog, "localhost:9092", "g").route("t", TableIdentifier.of("t"))).build();
    } finally {
      ((AutoCloseable) catalog).close();
    }
  }

  private void assertRefused(String expected, UnaryOperator<SinkConfig.Builder> settings) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> build(settings));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void invalidBudgetsAndBoundsAreRefused() {
    assertRefused("maxInFlightBytes must be positive, got 0", b -> b.batches(100, 1 << 20, 0));
    assertRefused("maxInFlightBytes must be at most", b -> b.batches(100, 1 << 20, 3L << 30));
    assertRefused("batchRecords must be positive, got -1", b -> b.batches(-1, 1 << 20, 1 << 20));
    assertRefused("batchBytes must be positive, got 0", b -> b.batches(100, 0, 1 << 20));
    assertRefused("commitRecords must be positive, got 0", b -> b.commitEvery(Duration.ofSeconds(1), 0, 1));
    assertRefused("commitBytes must be positive, got -5", b -> b.commitEvery(Duration.ofSeconds(1), 1, -5));
    assertRefused("commitInterval must be positive", b -> b.commitEvery(Duration.ZERO, 1, 1));
  }

  /** A topic or value regex routed twice: the second route would take nothing, without a word (helper-92). */
  @Test
  void aRouteGivenTwiceIsRefused() {
    assertRefused("topic 't' is routed twice (to t and db.other)", b -> b.route("t", TableIdentifier.of("db", "other")));
    assertRefused("value regex 'bid' is routed twice", b -> b.topics(java.util.List.of("t")).routeField("kind")
        .routeValue("bid", TableIdentifier.of("db", "a")).routeValue("bid", TableIdentifier.of("db", "b")));
  }

  @Test
  void aCycleIsBoundedByBytesByDefault() throws Exception {
    assertEquals(256L << 20, build(b -> b).commitBytes());
  }

  @Test
  void settingsByNameReachTheConfigAndTheirDefaultsAreTheBuilders() throws Exception {
    SinkConfig defaults = build(b -> b);
    SinkConfig fromDefinition = build(b -> b.settings(Map.of()));
    assertEquals(defaults.toString(), fromDefinition.toString(), "an empty settings map changes nothing");
    assertEquals(Duration.ofSeconds(10), defaults.commitInterval());
    assertEquals(1_000_000, defaults.commitRecords());

    SinkConfig set = build(b -> b.settings(Map.of(
        SinkSettings.COMMIT_INTERVAL, "500ms",
        SinkSettings.COMMIT_BYTES, "64MiB",
        SinkSettings.ON_ERROR, "dlq",
        SinkSettings.DLQ_TOPIC, "dead",
        SinkSettings.DECODE_AHEAD, "false",
        SinkSettings.ENCODE_AHEAD, "false",
        SinkSettings.ROUTE, "a=db.a,b=db.b",
        SinkSettings.SCHEMA, "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\","
            + "\"required\":true,\"type\":\"long\"}]}",
        SinkSettings.PARTITION_BY, "bucket(4,id)")));
    assertEquals(Duration.ofMillis(500), set.commitInterval());
    assertEquals(64L << 20, set.commitBytes());
    assertEquals(BadRecordPolicy.DEAD_LETTER, set.badRecords());
    assertEquals("dead", set.deadLetterTopic());
    assertEquals(false, set.decodeAhead());
    assertEquals(true, defaults.encodeAhead());
    assertEquals(false, set.encodeAhead());
    assertEquals(List.of("t", "a", "b"), set.topics());
    assertEquals(TableIdentifier.of("db", "b"), set.routes().get(2).table());
    assertEquals("[1000: id_bucket: bucket[4](1)]", set.createSpec().fields().toString());
  }

  @Test
  void aWrongOrUnknownSettingIsNamed() {
    ConfigException wrong = assertThrows(ConfigException.class,
        () -> build(b -> b.settings(Map.of(SinkSettings.COMMIT_BYTES, "lots"))));
    assertTrue(wrong.getMessage().contains("commit.bytes") && wrong.getMessage().contains("'lots' is not a size"),
        wrong.getMessage());
    ConfigException unknown = assertThrows(ConfigException.class,
        () -> build(b -> b.settings(Map.of("commit.seconds", "5", SinkSettings.UPSERT, "true"))));
    assertTrue(unknown.getMessage().startsWith("not sink settings: [commit.seconds]"), unknown.getMessage());
    ConfigException policy = assertThrows(ConfigException.class,
        () -> build(b -> b.settings(Map.of(SinkSettings.ON_ERROR, "ignore"))));
    assertTrue(policy.getMessage().contains("on.error"), policy.getMessage());
    // a dead-letter topic with another policy would not be used: refused, not ignored
    IllegalArgumentException unused = assertThrows(IllegalArgumentException.class,
        () -> build(b -> b.settings(Map.of(SinkSettings.DLQ_TOPIC, "dead", SinkSettings.ON_ERROR, "skip"))));
    assertTrue(unused.getMessage().contains("dlq.topic = dead") && unused.getMessage().contains("on.error = dlq"),
        unused.getMessage());
  }

  @Test
  void aDeadLetterTopicGivenAloneSendsBadRecordsToIt() throws Exception {
    SinkConfig config = build(b -> b.settings(Map.of(SinkSettings.DLQ_TOPIC, "dead")));
    assertEquals(BadRecordPolicy.DEAD_LETTER, config.badRecords());
    assertEquals("dead", config.deadLetterTopic());
    assertEquals(BadRecordPolicy.FAIL, build(b -> b.settings(Map.of())).badRecords(), "fail without one");
  }
}
