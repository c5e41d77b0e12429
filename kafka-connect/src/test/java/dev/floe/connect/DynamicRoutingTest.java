package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static dev.floe.connect.InJvmTasks.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Dynamic routing to a table that does not exist (auto-create off): the record is a bad record
 * under {@code errors.tolerance} (reported, the rest lands), not the end of the task.
 */
class DynamicRoutingTest extends InJvmTaskTest {
  @Test
  void aRecordForATableThatIsNotThereIsABadRecord() throws Exception {
    TableIdentifier present = InJvmTasks.createTable(catalog, "present");
    Map<String, String> config = InJvmTasks.config("dynamic", warehouse(), present, 6);
    config.remove("iceberg.tables");
    config.put("iceberg.tables.dynamic-enabled", "true");
    config.put("iceberg.tables.route-field", "to");
    config.put("errors.tolerance", "all");
    List<Long> reported = new CopyOnWriteArrayList<>();
    RecordingContext context = new RecordingContext((record, error) -> {
      assertTrue(error.getMessage().contains("table db.absent does not exist"), error.getMessage());
      reported.add(record.kafkaOffset());
      return CompletableFuture.completedFuture(null);
    });
    FloeIcebergSinkTask task = new FloeIcebergSinkTask();
    task.initialize(context);
    task.start(config);
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
}
