package dev.floe.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.Catalogs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two tasks own the same partition at once (a zombie and its successor, as after a rebalance the
 * zombie missed): the successor's background commit lands, the zombie's is fenced. The zombie must
 * drop its cycle -- the one committing and the one it is filling -- ask Connect to read again from
 * the tables, skip what they hold, and in the end every record is in the table exactly once. The
 * tasks run in this JVM on the embedded catalog; Connect's part (the task context) only records
 * what the task asks of it.
 */
class TaskFencingTest {
  private static final TopicPartition TP = new TopicPartition("events", 0);
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  @TempDir
  Path dir;

  @Test
  void aFencedBackgroundCommitDropsBothCyclesAndTheTaskResumesFromTheTable() throws Exception {
    Path warehouse = dir.resolve("warehouse");
    TableIdentifier id = TableIdentifier.of("db", "fenced");
    Catalog catalog = Catalogs.embedded(warehouse);
    try {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
      catalog.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
      Map<String, String> config = new LinkedHashMap<>();
      config.put("name", "fencing");
      config.put("connector.class", FloeIcebergSinkConnector.class.getName());
      config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
      config.put("iceberg.tables", id.toString());
      config.put("iceberg.catalog", Catalogs.EMBEDDED_NAME);
      Catalogs.embeddedProperties(warehouse).forEach((k, v) -> config.put("iceberg.catalog." + k, v));
      config.put("iceberg.control.commit.interval-ms", "600000"); // only the record count ends a cycle
      config.put("floe.commit.records", "10");

      RecordingContext successorContext = new RecordingContext();
      RecordingContext zombieContext = new RecordingContext();
      FloeIcebergSinkTask successor = new FloeIcebergSinkTask();
      FloeIcebergSinkTask zombie = new FloeIcebergSinkTask();
      successor.initialize(successorContext);
      zombie.initialize(zombieContext);
      successor.start(withTaskIndex(config, 0));
      zombie.start(withTaskIndex(config, 1)); // (its metrics need a name of their own)
      try {
        successor.open(List.of(TP));
        zombie.open(List.of(TP)); // both found nothing in the table

        successor.put(records(0, 10)); // a full cycle: committed in the background
        awaitCommitted(successor, 10);

        zombie.put(records(0, 10)); // its full cycle is sealed and fenced in the background ...
        zombie.put(records(10, 13)); // ... while it fills the next
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (zombieContext.rewinds.isEmpty() && System.nanoTime() < deadline) {
          zombie.preCommit(Map.of());
          Thread.sleep(20);
        }
        assertEquals(List.of(Map.of(TP, 0L)), zombieContext.rewinds,
            "the zombie reads the partition again from its dropped cycles' first record");
        assertEquals(Map.of(), zombie.preCommit(Map.of()), "the zombie reports nothing it did not commit");
        assertEquals(ids(0, 10), ids(catalog.loadTable(id)), "only the successor's cycle is in the table");

        // Connect reads again from offset 0: the zombie skips what the table holds and commits the rest.
        zombie.put(records(0, 15));
        zombie.close(List.of(TP)); // revoked: commits and waits
        assertEquals(ids(0, 15), ids(catalog.loadTable(id)), "every record once");
        assertTrue(successorContext.rewinds.isEmpty(), "the successor was never fenced");
      } finally {
        zombie.stop();
        successor.stop();
      }
    } finally {
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  private static Map<String, String> withTaskIndex(Map<String, String> config, int index) {
    Map<String, String> out = new HashMap<>(config);
    out.put(ConnectorSettings.TASK_INDEX, Integer.toString(index));
    return out;
  }

  private static void awaitCommitted(FloeIcebergSinkTask task, long next) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      OffsetAndMetadata committed = task.preCommit(Map.of()).get(TP);
      if (committed != null && committed.offset() == next) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the task did not report offset " + next + " as committed within 30 s");
  }

  private static List<SinkRecord> records(long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      byte[] value = ("{\"id\":" + offset + ",\"name\":\"n" + offset + "\"}").getBytes(StandardCharsets.UTF_8);
      out.add(new SinkRecord(TP.topic(), TP.partition(), null, null, null, value, offset));
    }
    return out;
  }

  /** id -> how many rows have it. */
  private static Map<Long, Integer> ids(Table table) throws IOException {
    table.refresh();
    Map<Long, Integer> out = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        out.merge((Long) row.getField("id"), 1, Integer::sum);
      }
    }
    return out;
  }

  private static Map<Long, Integer> ids(long from, long to) {
    Map<Long, Integer> out = new TreeMap<>();
    for (long id = from; id < to; id++) {
      out.put(id, 1);
    }
    return out;
  }

  /** Connect's side of a task, as far as these tasks use it: the rewinds they ask for. */
  private static final class RecordingContext implements SinkTaskContext {
    final List<Map<TopicPartition, Long>> rewinds = new ArrayList<>();

    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
      rewinds.add(new HashMap<>(offsets));
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
      offset(Map.of(tp, offset));
    }

    @Override
    public void timeout(long timeoutMs) {}

    @Override
    public Set<TopicPartition> assignment() {
      return Set.of(TP);
    }

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
