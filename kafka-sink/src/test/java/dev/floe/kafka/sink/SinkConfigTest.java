package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
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

  @Test
  void aCycleIsBoundedByBytesByDefault() throws Exception {
    assertEquals(256L << 20, build(b -> b).commitBytes());
  }
}
