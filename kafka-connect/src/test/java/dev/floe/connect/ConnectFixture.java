package dev.floe.connect;

import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.corpus.SyntheticGenerator;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalConnectWorker;
import dev.floe.kafka.RoundRobinProducer;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * What the connector tests share: the corpora and their 4-bucket tables, connector configs for
 * floe's and Iceberg's connector on the embedded catalog, workers on the packaged plugin, and
 * waiting for a table to hold a count of rows.
 */
final class ConnectFixture {
  static final String FLOE = FloeIcebergSinkConnector.class.getName();
  static final String ICEBERG = "org.apache.iceberg.connect.IcebergSinkConnector";
  static final Schema NEXMARK = SchemaParser.fromJson(CorpusSchemas.nexmarkJson());
  static final Schema SYNTHETIC = SchemaParser.fromJson(CorpusSchemas.syntheticJson());

  private ConnectFixture() {}

  /** The plugin folder the package phase built (a worker's plugin.path). */
  static Path pluginPath() {
    return requiredPath("floe.connect.plugin.path");
  }

  static Path workerClasspath() {
    return requiredPath("floe.connect.classpath");
  }

  private static Path requiredPath(String property) {
    String value = System.getProperty(property);
    if (value == null || !Files.exists(Path.of(value))) {
      fail("system property " + property + " names no file (" + value + "): run the tests through Maven (mvn verify)");
    }
    return Path.of(value);
  }

  /** A worker on floe's plugin, with the JVM flags floe needs. */
  static LocalConnectWorker.Builder worker(Path dir, String bootstrap) {
    List<String> flags = new ArrayList<>(Arrays.asList(System.getProperty("floe.jvm.flags", "").trim().split("\\s+")));
    flags.add("-Xmx1g");
    return LocalConnectWorker.builder(dir, workerClasspath(), bootstrap).pluginPath(pluginPath()).jvmOptions(flags);
  }

  static Table createTable(Catalog catalog, TableIdentifier id, Schema schema, String bucketColumn) {
    PartitionSpec spec = PartitionSpec.builderFor(schema).bucket(bucketColumn, 4).build();
    return catalog.createTable(id, schema, spec, Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  /** A config either connector runs: one topic into one table of the embedded catalog, commits every second. */
  static Map<String, String> config(String connectorClass, String topic, TableIdentifier table, Path warehouse) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", connectorClass);
    c.put("tasks.max", "1");
    c.put("topics", topic);
    c.put("iceberg.tables", table.toString());
    c.put("iceberg.catalog", Catalogs.EMBEDDED_NAME);
    // A config Iceberg's connector runs too: its plugin has no floe classes, so the catalog keeps
    // Iceberg's default FileIO instead of the embedded catalog's LocalFileIO.
    Catalogs.embeddedProperties(warehouse).forEach((k, v) -> {
      if (!k.equals(CatalogProperties.FILE_IO_IMPL)) {
        c.put("iceberg.catalog." + k, v);
      }
    });
    c.put("iceberg.control.topic", "control-" + topic);
    c.put("iceberg.control.commit.interval-ms", "1000");
    return c;
  }

  static List<byte[]> nexmark(long seed, int count) {
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(NexmarkJson.toBytes(generator.next()));
    }
    return out;
  }

  static TableFingerprint nexmarkFingerprint(long seed, int count) {
    return nexmarkFingerprint(seed, count, Set.of());
  }

  /** The fingerprint of the first {@code count} events but those at the indexes {@code left out}. */
  static TableFingerprint nexmarkFingerprint(long seed, int count, Set<Integer> leftOut) {
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    List<String> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String row = Canonical.nexmark(generator.next());
      if (!leftOut.contains(i)) {
        rows.add(row);
      }
    }
    return TableFingerprint.ofCanonical(rows);
  }

  /** id -> seq of every row the table holds, read by Iceberg's generic reader; fails on two rows with one id. */
  static Map<Long, Long> seqById(Table table) throws IOException {
    table.refresh();
    Map<Long, Long> out = new HashMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record r : rows) {
        Long previous = out.put((Long) r.getField("id"), (Long) r.getField("seq"));
        if (previous != null) {
          fail("two rows for id " + r.getField("id"));
        }
      }
    }
    return out;
  }

  /** Produces message i to partition {@code partitions.get(i)}. */
  static void produceTo(String bootstrap, String topic, List<Integer> partitions, List<byte[]> messages) {
    RoundRobinProducer.sendTo(bootstrap, topic, partitions, messages);
  }

  static List<byte[]> synthetic(long seed, int count) {
    SyntheticGenerator generator = new SyntheticGenerator(seed);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(generator.nextBytes());
    }
    return out;
  }

  static TableFingerprint syntheticFingerprint(List<byte[]> messages) {
    return TableFingerprint.ofCanonical(messages.stream().map(Canonical::synthetic).toList());
  }

  static void produce(String bootstrap, String topic, int partitions, List<byte[]> messages) {
    RoundRobinProducer.send(bootstrap, topic, partitions, messages);
  }

  /** Rows the table's current snapshot holds (its summary's total). */
  static long rows(Table table) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return 0;
    }
    String total = current.summary().get(SnapshotSummary.TOTAL_RECORDS_PROP);
    return total == null ? 0 : Long.parseLong(total);
  }

  /** Waits until the table holds {@code expected} rows; fails on a failed connector, more rows, or the timeout. */
  static void awaitRows(LocalConnectWorker worker, String connector, Table table, long expected, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long rows = rows(table);
      if (rows == expected) {
        return;
      }
      if (rows > expected) {
        fail(table.name() + " holds " + rows + " rows, more than the " + expected + " written");
      }
      String failure = worker.failure(connector);
      if (failure != null) {
        fail("connector " + connector + " failed: " + failure);
      }
      if (System.nanoTime() > deadline) {
        fail(table.name() + " holds " + rows + " of " + expected + " rows after " + timeout + "; see " + worker.log());
      }
      Thread.sleep(200);
    }
  }
}
