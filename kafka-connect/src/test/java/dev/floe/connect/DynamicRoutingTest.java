package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static dev.floe.connect.InJvmTasks.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Dynamic routing to a table that does not exist (auto-create off): the record is a bad record
 * under {@code errors.tolerance} (reported, the rest lands), not the end of the task; a table
 * dropped while the task writes to it fails the task, and its records become bad records after.
 */
class DynamicRoutingTest extends InJvmTaskTest {
  @Test
  void aRecordForATableThatIsNotThereIsABadRecord() throws Exception {
    TableIdentifier present = InJvmTasks.createTable(catalog, "present");
    Map<String, String> config = dynamic("dynamic", 6);
    List<Long> reported = new CopyOnWriteArrayList<>();
    RecordingContext context = new RecordingContext((record, error) -> {
      assertTrue(error.getMessage().contains("table db.absent does not exist"), error.getMessage());
      reported.add(record.kafkaOffset());
      return CompletableFuture.completedFuture(null);
    });
    FloeIcebergSinkTask task = InJvmTasks.started(config, context);
    try {
      task.open(List.of(TP));
      List<SinkRecord> records = new ArrayList<>();
      for (long offset = 0; offset < 6; offset++) {
        String table = offset % 2 == 0 ? "db.present" : "db.absent";
        records.add(record(offset, ("{\"id\":" + offset + ",\"to\":\"" + table + "\"}").getBytes(StandardCharsets.UTF_8)));
      }
      task.put(records);
      awaitCommitted(task, 6);
    } finally {
      task.stop();
    }
    assertEquals(List.of(1L, 3L, 5L), reported);
    assertEquals(Map.of(0L, 1, 2L, 1, 4L, 1), InJvmTasks.ids(catalog.loadTable(present)));
  }

  /** A route value that names no table ("", ".", "db.") is a bad record too (before, the task failed on it). */
  @Test
  void aRouteValueThatIsNoTableNameIsABadRecord() throws Exception {
    TableIdentifier present = InJvmTasks.createTable(catalog, "present");
    Map<String, String> config = dynamic("unnamed", 4);
    List<String> reasons = new CopyOnWriteArrayList<>();
    RecordingContext context = new RecordingContext((record, error) -> {
      reasons.add(record.kafkaOffset() + ": " + error.getMessage());
      return CompletableFuture.completedFuture(null);
    });
    FloeIcebergSinkTask task = InJvmTasks.started(config, context);
    try {
      task.open(List.of(TP));
      List<SinkRecord> records = new ArrayList<>();
      String[] routes = {"db.present", "", ".", "db."};
      for (int offset = 0; offset < routes.length; offset++) {
        records.add(record(offset, ("{\"id\":" + offset + ",\"to\":\"" + routes[offset] + "\"}").getBytes(StandardCharsets.UTF_8)));
      }
      task.put(records);
      awaitCommitted(task, 4);
    } finally {
      task.stop();
    }
    assertEquals(3, reasons.size(), reasons.toString());
    for (int i = 0; i < 3; i++) {
      assertTrue(reasons.get(i).startsWith((i + 1) + ": ") && reasons.get(i).contains("is not a table name"), reasons.toString());
    }
    assertEquals(Map.of(0L, 1), InJvmTasks.ids(catalog.loadTable(present)));
  }

  /**
   * A dynamically routed table dropped while the task writes to it: the task fails saying so,
   * without committing the cycle (before: a bare NoSuchTableException); restarted, it reads the
   * cycle again and the dropped table's records are bad records, the other table's land once.
   */
  @Test
  void aTableDroppedWhileTheTaskWritesFailsItAndARestartMakesItsRecordsBadRecords() throws Exception {
    TableIdentifier kept = InJvmTasks.createTable(catalog, "kept");
    TableIdentifier dropped = InJvmTasks.createTable(catalog, "dropped");
    Map<String, String> config = dynamic("dropping", 10);
    List<Long> reported = new CopyOnWriteArrayList<>();
    RecordingContext context = new RecordingContext((record, error) -> {
      reported.add(record.kafkaOffset());
      return CompletableFuture.completedFuture(null);
    });
    FloeIcebergSinkTask task = InJvmTasks.started(config, context);
    try {
      task.open(List.of(TP));
      task.put(alternating(0, 10));
      awaitCommitted(task, 10);
      catalog.dropTable(dropped, false);
      ConnectException e = assertThrows(ConnectException.class, () -> task.put(alternating(10, 20)));
      assertTrue(e.getMessage().contains("dropped") && e.getMessage().contains("db.dropped"), e.getMessage());
    } finally {
      task.stop();
    }
    assertEquals(List.of(), reported);

    FloeIcebergSinkTask restarted = InJvmTasks.started(InJvmTasks.withTaskIndex(config, 1), context);
    try {
      restarted.open(List.of(TP));
      restarted.put(alternating(10, 20));
      awaitCommitted(restarted, 20);
    } finally {
      restarted.stop();
    }
    assertEquals(List.of(11L, 13L, 15L, 17L, 19L), reported);
    assertEquals(InJvmTasks.ids(0, 20).entrySet().stream().filter(id -> id.getKey() % 2 == 0)
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
        InJvmTasks.ids(catalog.loadTable(kept)));
  }

  /** Dynamic routing by the field {@code to}, bad records tolerated (reported). */
  private Map<String, String> dynamic(String connector, int cycleRecords) {
    Map<String, String> config = InJvmTasks.dynamicConfig(connector, warehouse(), cycleRecords);
    config.put("errors.tolerance", "all");
    return config;
  }

  /** Records {@code from..to-1}, even offsets to db.kept, odd ones to db.dropped. */
  private static List<SinkRecord> alternating(long from, long to) {
    List<SinkRecord> records = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      String table = offset % 2 == 0 ? "db.kept" : "db.dropped";
      records.add(record(offset, ("{\"id\":" + offset + ",\"to\":\"" + table + "\"}").getBytes(StandardCharsets.UTF_8)));
    }
    return records;
  }
}
