package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.record;
import static dev.floe.connect.InJvmTasks.records;
import static dev.floe.connect.InJvmTasks.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * A topic deleted and created again under its name (or a log truncated) while the table holds
 * offsets past the new log's end. On restart the task asks Connect to seek there; Connect's
 * consumer finds no such offset and resets to the log's start (its default {@code
 * auto.offset.reset}), so the first records come back below the seek. They are new records, and
 * must land, not be skipped as ones the table already holds.
 */
class TaskOffsetsReusedTest extends InJvmTaskTest {
  @Test
  void recordsReadAfterTheConsumerResetBelowTheTablesOffsetsLand() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "reused");
    Map<String, String> config = InJvmTasks.config("reused", warehouse(), id, 10);

    run(config, 100, records(0, 100)); // the old topic
    // the consumer reset to the new log's start
    assertEquals(List.of(Map.of(TP, 100L)), run(config, 30, newTopic(0, 20), newTopic(20, 30)),
        "the task seeks to where the table left off");

    Map<Long, Integer> expected = new TreeMap<>(ids(0, 100));
    expected.putAll(ids(1_000, 1_030));
    assertEquals(expected, ids(catalog.loadTable(id)), "the old topic's records and the new one's, each once");

    // Started again, the task seeks to the offset the table now holds, and skips what it holds.
    assertEquals(List.of(Map.of(TP, 30L)), run(config, 40, newTopic(30, 40)),
        "the stored offset moved back to the new topic's");
    expected.putAll(ids(1_030, 1_040));
    assertEquals(expected, ids(catalog.loadTable(id)));
  }

  /**
   * With a route field, a table that takes none of the records read after the reset moves its
   * offset back too (a commit without files): started again, the task reads the partition from the
   * lowest of the tables' offsets, where nothing shows the reuse, and a table that kept its old
   * offset skipped its new records below it. Before, the second table's records at offsets 20-59
   * were skipped (the Kafka sink had the same gap, found in review).
   */
  @Test
  void aRoutedTableThatTookNoneOfTheNewRecordsMovesItsOffsetBackToo() throws Exception {
    TableIdentifier first = InJvmTasks.createTable(catalog, "reused_first");
    TableIdentifier second = InJvmTasks.createTable(catalog, "reused_second");
    Map<String, String> config = InJvmTasks.routedConfig("reused-routed", warehouse(), 10, first, second);

    run(config, 100, InJvmTasks.routed(0, 100, offset -> offset % 2 == 0 ? "reused_first" : "reused_second"));
    // the consumer reset to the new log's start; its first records are the first table's only
    run(config, 20, newRouted(0, 20, "reused_first"));
    // started again: the second table's records at the reused offsets 20-59
    run(config, 60, newRouted(20, 60, "reused_second"));

    assertEquals(oldAndNew(1, 1_020, 1_060), ids(catalog.loadTable(second)),
        "the second table's old records and new ones, each once");
    assertEquals(oldAndNew(0, 1_000, 1_020), ids(catalog.loadTable(first)));
  }

  /**
   * A fence in the cycle that found the reuse: the fenced table comes before a table whose offset
   * moves back, which is then not committed and keeps its old, higher offset. Read again from the
   * dropped cycle's start, the records are still new for that table. Before, the task forgot the
   * reuse at the fence and skipped the second table's new records below its old offset 100.
   */
  @Test
  void aFenceInTheCycleThatFoundTheReuseKeepsItForTheTablesNotCommitted() throws Exception {
    TableIdentifier fenced = InJvmTasks.createTable(catalog, "reused_fenced");
    TableIdentifier idle = InJvmTasks.createTable(catalog, "reused_idle");
    Map<String, String> config = InJvmTasks.routedConfig("reused-fence", warehouse(), 10, fenced, idle);
    run(config, 100, InJvmTasks.routed(0, 100, offset -> offset % 2 == 0 ? "reused_fenced" : "reused_idle"));

    InJvmTasks.RecordingContext context = new InJvmTasks.RecordingContext();
    FloeIcebergSinkTask task = InJvmTasks.started(InJvmTasks.withTaskIndex(config, 1), context);
    try {
      task.open(List.of(TP)); // both tables hold offset 100
      // Another task of the group, routing to the first table only, finds the reuse as well and
      // commits the new records 0-4 to it: the first table now holds offset 5.
      Map<String, String> other = InJvmTasks.routedConfig("reused-fence", warehouse(), 5, fenced);
      run(other, 5, newRouted(0, 5, "reused_fenced"));

      task.put(newRouted(0, 10, "reused_fenced")); // reset below the seek; the cycle is fenced on the first table
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (context.rewinds.size() < 2 && System.nanoTime() < deadline) {
        task.preCommit(Map.of());
        task.put(List.of());
        Thread.sleep(20);
      }
      assertEquals(List.of(Map.of(TP, 100L), Map.of(TP, 0L)), context.rewinds,
          "the task seeks to the tables' offset, then back to its dropped cycle's start");

      task.put(newRouted(0, 10, "reused_fenced"));
      task.put(newRouted(10, 60, "reused_idle"));
      task.close(List.of(TP));
    } finally {
      task.stop();
    }

    assertEquals(oldAndNew(1, 1_010, 1_060), ids(catalog.loadTable(idle)),
        "the second table's old records and new ones, each once");
    assertEquals(oldAndNew(0, 1_000, 1_010), ids(catalog.loadTable(fenced)),
        "the first table's new records once, the other task's too");
  }

  /**
   * Each id once: the old topic's ids 0-99 of one parity ({@code parity}, as {@link
   * InJvmTasks#routed} split them between two tables), and the new ids {@code from..to-1}.
   */
  private static Map<Long, Integer> oldAndNew(int parity, long from, long to) {
    Map<Long, Integer> out = new TreeMap<>();
    for (long id = parity; id < 100; id += 2) {
      out.put(id, 1);
    }
    out.putAll(ids(from, to));
    return out;
  }

  /** Records {@code from..to-1} of the recreated topic for {@code table}: ids 1000 + offset. */
  private static List<SinkRecord> newRouted(long from, long to, String table) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      out.add(record(offset, ("{\"id\":" + (1_000 + offset) + ",\"name\":\"new\",\"to\":\"" + table + "\"}")
          .getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  /** Records {@code from..to-1} of the recreated topic: ids 1000 + offset, unlike the old topic's. */
  private static List<SinkRecord> newTopic(long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      out.add(record(offset, ("{\"id\":" + (1_000 + offset) + ",\"name\":\"new\"}").getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }
}
