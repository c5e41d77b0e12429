package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.record;
import static dev.floe.connect.InJvmTasks.records;
import static dev.floe.connect.InJvmTasks.run;
import static dev.floe.connect.InJvmTasks.started;
import static dev.floe.connect.InJvmTasks.withTaskIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A task riding out outages of its tables' catalog (the in-JVM task, Connect's calls made by the
 * test, {@link OutageCatalog} failing reads or commits on demand), where the records to read again
 * come from several places: a fenced cycle, a partition assigned during the outage, a commit whose
 * outcome was unknown, a cycle that landed in one table and not in another. Each test checks that
 * every record lands once. Written by helper-72 and helper-73, whose reviews found these losing
 * records before the fixes.
 */
class TaskOutageTest extends InJvmTaskTest {
  private static final TopicPartition P0 = new TopicPartition("events", 0);
  private static final TopicPartition P1 = new TopicPartition("events", 1);
  private static final TopicPartition P2 = new TopicPartition("events", 2);

  @AfterEach
  void storeUp() {
    OutageCatalog.refreshDown = false;
    OutageCatalog.commitDown = false;
    OutageCatalog.commitUnknown = false;
    OutageCatalog.commitDownTable = null;
  }

  /**
   * A zombie owns P0 (which its successor also owns) and P1 (a partition no table holds yet). Its
   * background commit of P0 0-4 + P1 0-4 is fenced; taking that outcome, it reads the tables again,
   * which fails on an outage: ridden out. Before the fix, the fenced cycle's first offsets were
   * lost with that failure, the resume sought P0 only, Connect's consumer went on at P1 offset 5,
   * and P1 0-4 never landed.
   */
  @Test
  void aFenceTakenWhileTheTablesCannotBeReadStillReadsTheFencedCycleAgain() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "fence_outage");
    Map<String, String> config = outageConfig("fence-outage", id, 10);
    RecordingContext zombieContext = new RecordingContext();
    FloeIcebergSinkTask successor = started(withTaskIndex(config, 0), new RecordingContext());
    FloeIcebergSinkTask zombie = started(withTaskIndex(config, 1), zombieContext);
    try {
      successor.open(List.of(P0));
      zombie.open(List.of(P0, P1)); // the table holds nothing
      successor.put(recordsOf(P0, 0, 5));
      successor.close(List.of(P0)); // P0 up to 5 lands

      List<SinkRecord> both = new ArrayList<>(recordsOf(P0, 0, 5));
      both.addAll(recordsOf(P1, 0, 5));
      zombie.put(both); // a full cycle, committed in the background: fenced on P0
      awaitCommitEnded(zombie);

      OutageCatalog.refreshDown = true;
      zombie.put(List.of()); // takes the fence; reading the tables again fails: ridden out
      OutageCatalog.refreshDown = false;
      Thread.sleep(1_300);
      zombie.put(List.of()); // the wait is over: resumes from the tables

      Map<TopicPartition, Long> seek = zombieContext.rewinds.get(zombieContext.rewinds.size() - 1);
      long p0 = seek.getOrDefault(P0, 5L); // Connect's consumer is at 5 on both unless sought
      long p1 = seek.getOrDefault(P1, 5L);
      List<SinkRecord> again = new ArrayList<>(recordsOf(P0, p0, 8));
      again.addAll(recordsOf(P1, p1, 8));
      zombie.put(again);
      zombie.close(List.of(P0, P1));

      Map<Long, Integer> expected = new TreeMap<>(ids(0, 8));
      expected.putAll(ids(1000, 1008));
      assertEquals(expected, ids(catalog.loadTable(id)), "every record once");
    } finally {
      zombie.stop();
      successor.stop();
    }
  }

  /**
   * The topic was recreated (the table holds offset 100 past the new log's end). The task is
   * assigned the partition during an outage: open() skips the seek to the table's offset, Connect's
   * consumer resets to the new log's start, and the records it delivers are dropped and remembered.
   * The resume seeks it to the table's 100, as open() would, so the consumer's reset below that
   * shows the reuse and the new records land (before the fix it sought to 0, and they were skipped
   * as held), as they do without an outage (TaskOffsetsReusedTest).
   */
  @Test
  void aReuseOfAPartitionAssignedDuringTheOutageIsFoundAndTheNewRecordsLand() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "reuse_outage");
    Map<String, String> config = outageConfig("reuse-outage", id, 10);
    run(config, 100, records(0, 100)); // the old topic

    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      OutageCatalog.refreshDown = true;
      task.open(List.of(TP)); // reading the table fails: ridden out
      task.put(newTopic(0, 10)); // the consumer reset to the new log's start: dropped, remembered
      OutageCatalog.refreshDown = false;
      Thread.sleep(1_300);
      task.put(List.of()); // resumes
      long seek = lastSeek(context, TP);
      long from = seek > 30 ? 0 : seek; // the new log ends at 30: past it, the consumer resets to its start
      task.put(newTopic(from, 30));
      task.close(List.of(TP));
    } finally {
      task.stop();
    }
    Map<Long, Integer> expected = new TreeMap<>(ids(0, 100));
    expected.putAll(ids(1_000, 1_030));
    assertEquals(expected, ids(catalog.loadTable(id)), "the old topic's records and the new one's, each once");
  }

  /** A commit that landed but reported its outcome unknown is ridden out without duplicates. */
  @Test
  void aCommitThatLandedWithItsOutcomeUnknownIsNotWrittenTwice() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "unknown_outage");
    Map<String, String> config = outageConfig("unknown-outage", id, 10);
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      task.open(List.of(TP));
      OutageCatalog.commitUnknown = true;
      task.put(records(0, 10));
      awaitCommitEnded(task);
      OutageCatalog.commitUnknown = false;
      OutageCatalog.refreshDown = false;
      task.put(records(10, 12)); // takes the failed commit: ridden out
      resumeAndReadTo(task, context, 1_300, 15);
    } finally {
      task.stop();
    }
    assertEquals(ids(0, 15), ids(catalog.loadTable(id)), "every record once");
  }

  /**
   * A failed commit of a partition no table holds, whose first re-read of the tables fails too: its
   * records are still read again (helper-71 found them lost in the first try at riding outages out).
   */
  @Test
  void aFailedCommitWhoseFirstReReadFailsTooIsReadAgain() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "reread_outage");
    Map<String, String> config = outageConfig("reread-outage", id, 10);
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      task.open(List.of(TP));
      OutageCatalog.commitDown = true;
      task.put(records(0, 10));
      awaitCommitEnded(task);
      OutageCatalog.refreshDown = true;
      task.put(records(10, 12)); // ridden out
      Thread.sleep(1_300);
      task.put(List.of()); // the re-read fails too
      assertEquals(Map.of(), task.preCommit(Map.of()), "nothing reported");
      OutageCatalog.commitDown = false;
      OutageCatalog.refreshDown = false;
      resumeAndReadTo(task, context, 2_300, 15);
    } finally {
      task.stop();
    }
    assertEquals(ids(0, 15), ids(catalog.loadTable(id)), "every record once");
  }

  /**
   * A cycle landed in table x and failed in table y (the task before failed at it:
   * floe.storage.retry.timeout.ms=0), so x holds the partition at 10, y holds nothing, and the
   * group never got past 0. The next task meets an outage: the partition is assigned while the
   * tables cannot be read ({@code opened-during-outage}), or another partition's commit fails
   * after it was assigned ({@code outage-after-open}); {@code no-outage} is the control. Before the
   * fix, the resume sought the partition to x's 10, where open() leaves it at the group's 0 (not
   * every table holds it), and y's records 1-9 were lost.
   */
  @ParameterizedTest
  @ValueSource(strings = {"opened-during-outage", "outage-after-open", "no-outage"})
  void aPartitionThatOneTableHoldsAndAnotherDoesNotIsReadAgainForTheOther(String when) throws Exception {
    TableIdentifier x = InJvmTasks.createTable(catalog, "x");
    TableIdentifier y = InJvmTasks.createTable(catalog, "y");
    Map<String, String> config =
        InJvmTasks.throughCatalog(InJvmTasks.routedConfig("partial", warehouse(), 10, x, y), OutageCatalog.class);
    java.util.function.LongFunction<String> route = offset -> offset % 2 == 0 ? "x" : "y";

    Map<String, String> failFast = new java.util.HashMap<>(config);
    failFast.put("floe.storage.retry.timeout.ms", "0");
    FloeIcebergSinkTask before = started(failFast, new RecordingContext());
    try {
      before.open(List.of(TP));
      OutageCatalog.commitDownTable = "y";
      before.put(InJvmTasks.routed(0, 10, route)); // the cycle: x lands, y fails
      awaitCommitEnded(before);
      org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> before.put(List.of()));
    } finally {
      OutageCatalog.commitDownTable = null;
      before.stop();
    }
    assertEquals(ids(0, 10).keySet().stream().filter(i -> i % 2 == 0).count(), ids(catalog.loadTable(x)).size(),
        "setup: x holds the cycle");
    assertEquals(Map.of(), ids(catalog.loadTable(y)), "setup: y does not");

    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      if (when.equals("opened-during-outage")) {
        OutageCatalog.refreshDown = true;
        task.open(List.of(TP)); // the tables cannot be read: ridden out
        task.put(List.of()); // paused before anything of the partition was fetched
      } else if (when.equals("outage-after-open")) {
        task.open(List.of(TP, P1)); // no seek for TP: not every table holds it
        OutageCatalog.commitDownTable = "x";
        task.put(recordsOfRouted(P1, 0, 10, "x")); // another partition's cycle fails: ridden out
        awaitCommitEnded(task);
        task.put(List.of());
        OutageCatalog.commitDownTable = null;
      } else { // control: no outage
        task.open(List.of(TP));
      }
      OutageCatalog.refreshDown = false;
      Thread.sleep(1_300);
      task.put(List.of()); // resumes
      long from = context.rewinds.isEmpty() ? 0 : context.rewinds.get(context.rewinds.size() - 1).getOrDefault(TP, 0L);
      task.put(InJvmTasks.routed(from, 20, route)); // the consumer from the seek, or from the group's 0
      task.close(new ArrayList<>(context.rewinds.isEmpty() || !context.rewinds.get(0).containsKey(P1) ? List.of(TP) : List.of(TP, P1)));
    } finally {
      task.stop();
    }
    Map<Long, Integer> odd = new TreeMap<>();
    for (long i = 1; i < 20; i += 2) {
      odd.put(i, 1);
    }
    assertEquals(odd, ids(catalog.loadTable(y)), "y: each of its records once");
  }

  /**
   * The topic was recreated: the table holds P0 at 100, the new log ends at 30. The task opens P0
   * normally (seek to 100); the consumer resets to 0. The put that hands over the reset records
   * first takes another partition's failed commit: ridden out, the records dropped. Before the
   * fix (helper-73) they were dropped without checkSeek, the resume sought P0 to 0 (the dropped
   * records' first), the reuse was never found, and the new records below 100 were skipped as held.
   */
  @Test
  void aResetSeenInRecordsDroppedByAnOutageIsNotLost() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "reset_dropped");
    Map<String, String> config = outageConfig("reset-dropped", id, 10);
    run(config, 100, records(0, 100)); // the old topic

    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      task.open(List.of(TP, P2)); // seeks TP to 100
      OutageCatalog.commitDown = true;
      task.put(recordsOf(P2, 0, 10)); // a full cycle of P2, its commit fails in the background
      awaitCommitEnded(task);
      OutageCatalog.commitDown = false;
      task.put(newTopic(0, 10)); // the consumer reset TP to 0; the put first takes the failed commit: ridden out
      resumeAfterTheReset(task, context, 1_300);
    } finally {
      task.stop();
    }
    assertTheOldAndNewTopicsLandedOnce(id);
  }

  /**
   * As above, but the outage is the timer's (P2's cycle, committed on the interval, fails): the
   * task holds, and the next put -- the first records of TP since open() sought it to 100, reset
   * to the new log's start -- is dropped by holdForOutage (before the fix, without checkSeek).
   */
  @Test
  void aResetSeenInRecordsDroppedDuringAHoldIsNotLost() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "reset_held");
    Map<String, String> config = outageConfig("reset-held", id, 100);
    run(config, 100, records(0, 100)); // the old topic
    config.put("floe.commit.records", "1000");
    config.put("iceberg.control.commit.interval-ms", "300");

    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      task.open(List.of(TP, P2)); // seeks TP to 100
      OutageCatalog.commitDown = true;
      task.put(recordsOf(P2, 0, 10)); // committed by the timer: fails, the timer rides it out
      Thread.sleep(1_000);
      OutageCatalog.commitDown = false;
      task.put(newTopic(0, 10)); // the consumer reset TP to 0: dropped during the hold
      resumeAfterTheReset(task, context, 2_300);
    } finally {
      task.stop();
    }
    assertTheOldAndNewTopicsLandedOnce(id);
  }

  /**
   * After the wait, the put that resumes; then what Connect's consumer delivers from the seeks
   * asked for: the new log of TP (it ends at 30: a seek past its end resets to its start) and the
   * rest of P2.
   */
  private static void resumeAfterTheReset(FloeIcebergSinkTask task, RecordingContext context, long waitMs)
      throws InterruptedException {
    Thread.sleep(waitMs);
    task.put(List.of());
    Map<TopicPartition, Long> seek = context.rewinds.get(context.rewinds.size() - 1);
    long tp = seek.getOrDefault(TP, 10L);
    List<SinkRecord> again = new ArrayList<>(newTopic(tp > 30 ? 0 : tp, 30));
    again.addAll(recordsOf(P2, seek.getOrDefault(P2, 10L), 10));
    task.put(again);
    task.close(List.of(TP, P2));
  }

  private void assertTheOldAndNewTopicsLandedOnce(TableIdentifier id) throws Exception {
    Map<Long, Integer> expected = new TreeMap<>(ids(0, 100));
    expected.putAll(ids(1_000, 1_030));
    expected.putAll(ids(2_000, 2_010));
    assertEquals(expected, ids(catalog.loadTable(id)), "the old topic's records, the new one's and P2's, each once");
  }

  /**
   * A quiet topic: an outage met while the partition is assigned (nothing to write), ridden out;
   * then a whole commit interval with nothing to write, and well past the timeout a second,
   * separate outage (a commit that fails). It starts its own clock and is ridden out too, and the
   * records land once. Before, only a commit that landed ended an outage, and a quiet topic never
   * commits: the second outage was taken for the first one going on, and failed the task at once.
   */
  @Test
  void aQuietIntervalAfterAnOutageEndsItSoALaterOneIsRiddenOutToo() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "quiet_outages");
    Map<String, String> config = outageConfig("quiet-outages", id, 10);
    config.put("floe.storage.retry.timeout.ms", "1500");
    config.put("iceberg.control.commit.interval-ms", "300");
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      OutageCatalog.refreshDown = true;
      task.open(List.of(TP)); // the first outage: ridden out
      OutageCatalog.refreshDown = false;
      Thread.sleep(1_300);
      task.put(List.of()); // resumes
      Thread.sleep(400);
      task.put(List.of()); // a whole interval with nothing to write: nothing left to redo
      Thread.sleep(1_000); // past the timeout since the first outage began

      OutageCatalog.commitDown = true;
      task.put(records(0, 10)); // a full cycle: its commit fails in the background
      awaitCommitEnded(task);
      OutageCatalog.commitDown = false;
      task.put(records(10, 12)); // takes the failure: a new outage, ridden out (before: the task failed)
      resumeAndReadTo(task, context, 1_300, 15);
    } finally {
      task.stop();
    }
    assertEquals(ids(0, 15), ids(catalog.loadTable(id)), "every record once");
  }

  /**
   * An idle table's commit without files (due after {@code floe.idle.commit.cycles} cycles) fails on
   * an outage. After the resume it is due again in the first cycle: before the fix (helper-76) its
   * count was cleared when it fell due, so it waited another two cycles, and a quiet cycle between
   * could end the outage whose only failing work it was.
   */
  @Test
  void anIdleTablesFailedCommitWithoutFilesIsDueAgainInTheNextCycle() throws Exception {
    TableIdentifier busy = InJvmTasks.createTable(catalog, "busy");
    TableIdentifier rare = InJvmTasks.createTable(catalog, "rare");
    Map<String, String> config =
        InJvmTasks.throughCatalog(InJvmTasks.routedConfig("idle-retry", warehouse(), 5, busy, rare), OutageCatalog.class);
    config.put(ConnectorSettings.IDLE_COMMIT_CYCLES, "2");
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      task.open(List.of(TP));
      task.put(InJvmTasks.routed(0, 10, offset -> offset % 2 == 0 ? "busy" : "rare")); // both hold 10
      awaitCommitEnded(task);
      task.put(InJvmTasks.routed(10, 15, offset -> "busy")); // rare idle: 1 cycle
      awaitCommitEnded(task);
      OutageCatalog.commitDownTable = "rare";
      task.put(InJvmTasks.routed(15, 20, offset -> "busy")); // 2 cycles: rare's commit without files fails
      awaitCommitEnded(task);
      OutageCatalog.commitDownTable = null;
      task.put(List.of()); // takes the failure: ridden out
      assertEquals(10L, storedOffset(rare, "connect-idle-retry"), "setup: rare's commit failed");

      Thread.sleep(1_300);
      task.put(List.of()); // resumes from the tables
      long from = lastSeek(context, TP);
      task.put(InJvmTasks.routed(from, from + 5, offset -> "busy")); // one cycle, nothing for rare
      awaitCommitEnded(task);
      assertEquals(from + 5, storedOffset(rare, "connect-idle-retry"),
          "rare stores the offsets reached in the first cycle after the resume");
      task.close(List.of(TP));
    } finally {
      task.stop();
    }
    assertEquals(ids(0, 10).keySet().stream().filter(i -> i % 2 == 1).count(), ids(catalog.loadTable(rare)).size(),
        "rare: its records once");
  }

  private long storedOffset(TableIdentifier id, String group) {
    org.apache.iceberg.Table table = catalog.loadTable(id);
    return dev.floe.kafka.sink.SnapshotOffsets.latest(
        ((org.apache.iceberg.HasTableOperations) table).operations().current(), group, List.of(TP)).get(TP).next();
  }

  /** A task's config, one partition's records into {@code id}, through {@link OutageCatalog}. */
  private Map<String, String> outageConfig(String connector, TableIdentifier id, int cycleRecords) {
    return InJvmTasks.throughCatalog(InJvmTasks.config(connector, warehouse(), id, cycleRecords), OutageCatalog.class);
  }

  /**
   * After the outage's wait ({@code waitMs}), the put that resumes the task; then the partition's
   * records from where the task asked Connect to seek it up to {@code to}, and its revocation.
   */
  private static void resumeAndReadTo(FloeIcebergSinkTask task, RecordingContext context, long waitMs, long to)
      throws InterruptedException {
    Thread.sleep(waitMs);
    task.put(List.of());
    task.put(records(lastSeek(context, TP), to));
    task.close(List.of(TP));
  }

  /** Where the task last asked Connect to seek {@code tp}. */
  private static long lastSeek(RecordingContext context, TopicPartition tp) {
    return context.rewinds.get(context.rewinds.size() - 1).get(tp);
  }

  static void awaitCommitEnded(FloeIcebergSinkTask task) throws Exception {
    Field f = FloeIcebergSinkTask.class.getDeclaredField("metrics");
    f.setAccessible(true);
    TaskMetrics metrics = (TaskMetrics) f.get(task);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (metrics.getUncommittedRecords() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    Thread.sleep(200);
  }

  static List<SinkRecord> recordsOf(TopicPartition tp, long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      byte[] value = ("{\"id\":" + (tp.partition() * 1000L + offset) + ",\"name\":\"x\"}").getBytes(StandardCharsets.UTF_8);
      out.add(new SinkRecord(tp.topic(), tp.partition(), null, null, null, value, offset));
    }
    return out;
  }

  static List<SinkRecord> recordsOfRouted(TopicPartition tp, long from, long to, String table) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      byte[] value = ("{\"id\":" + (tp.partition() * 1000L + offset) + ",\"name\":\"x\",\"to\":\"" + table + "\"}")
          .getBytes(StandardCharsets.UTF_8);
      out.add(new SinkRecord(tp.topic(), tp.partition(), null, null, null, value, offset));
    }
    return out;
  }

  static List<SinkRecord> newTopic(long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      out.add(record(offset, ("{\"id\":" + (1_000 + offset) + ",\"name\":\"new\"}").getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }
}
