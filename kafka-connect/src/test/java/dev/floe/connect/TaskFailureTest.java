package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.record;
import static dev.floe.connect.InJvmTasks.records;
import static dev.floe.connect.InJvmTasks.withTaskIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.management.ObjectName;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A task that fails must not commit the cycle it was filling. After a call into the task throws,
 * Connect still calls {@code preCommit} and {@code close} on it (its closing offset commit), and
 * the task's timer may still tick: none of them may commit records past the failure, whose own
 * records never reached the table. Each test then finds the table without those records and
 * without offsets past them, so the partition's next owner reads them again.
 */
class TaskFailureTest extends InJvmTaskTest {
  private TableIdentifier id;

  @BeforeEach
  void createTable() {
    id = InJvmTasks.createTable(catalog, "events");
  }

  @Test
  void aRecordRefusedUnderToleranceNoneCommitsNothingOfItsCycle() throws Exception {
    FloeIcebergSinkTask task = start(new RecordingContext(), config(10));
    try {
      task.open(List.of(TP));
      List<SinkRecord> batch = new ArrayList<>(records(0, 5));
      batch.add(record(5, 42)); // an Integer value: not JSON bytes
      batch.addAll(records(6, 8));
      ConnectException refused = assertThrows(ConnectException.class, () -> task.put(batch));
      assertTrue(refused.getMessage().contains("partition 0, offset 5"), refused.getMessage());

      closeAsConnectDoes(task);
      assertNothingCommitted();
    } finally {
      task.stop();
    }
  }

  @Test
  void aFailedBackgroundCommitIsNotFollowedByTheNextCycle() throws Exception {
    CompletableFuture<Void> deadLetter = new CompletableFuture<>();
    RecordingContext context = new RecordingContext((record, error) -> deadLetter);
    Map<String, String> config = config(10);
    config.put("errors.tolerance", "all");
    FloeIcebergSinkTask task = start(context, config);
    try {
      task.open(List.of(TP));
      List<SinkRecord> first = new ArrayList<>(records(0, 3));
      first.add(record(3, "{not json".getBytes(StandardCharsets.UTF_8)));
      first.addAll(records(4, 10));
      task.put(first); // a full cycle: its commit waits for the bad record's dead letter ...
      task.put(records(10, 15)); // ... while the next cycle fills
      deadLetter.completeExceptionally(new IllegalStateException("dead-letter queue unreachable"));

      ConnectException failed = awaitPreCommitFailure(task);
      assertTrue(failed.getMessage().contains("dead-letter"), failed.getMessage());
      closeAsConnectDoes(task);
      assertNothingCommitted();
      assertThrows(ConnectException.class, () -> task.put(records(15, 16)), "the task stays failed");
    } finally {
      task.stop();
    }
  }

  @Test
  void aFenceFoundWhileClosingDoesNotRewindTheRevokedPartition() throws Exception {
    revokeFromAZombie(config(10), zombie -> {
      zombie.put(records(0, 5)); // not a full cycle: close commits it, and is fenced
      zombie.close(List.of(TP));
    });
  }

  /**
   * Connect revokes a partition with a closing offset commit, then close. A fence the closing
   * preCommit finds asks Connect for no seek either: preCommit cannot tell a revocation from a
   * periodic commit, and a seek of a revoked partition fails the task (before, preCommit asked for it).
   */
  @Test
  void aFenceFoundByTheClosingPreCommitDoesNotRewindTheRevokedPartition() throws Exception {
    revokeFromAZombie(config(10), zombie -> {
      zombie.put(records(0, 10)); // a full cycle: sealed, and fenced in the background
      awaitFencedCycles(1);
      closeAsConnectRevokes(zombie);
    });
  }

  /**
   * The same with the commit interval passed: the closing preCommit commits (an empty cycle), and
   * awaiting the fenced commit before it finds the fence there. Before, that path still asked
   * Connect to seek the revoked partition (helper-39 reproduced it).
   */
  @Test
  void aFenceFoundByTheClosingPreCommitsOwnCommitDoesNotRewindTheRevokedPartition() throws Exception {
    Map<String, String> everyMillisecond = config(10);
    everyMillisecond.put("iceberg.control.commit.interval-ms", "1");
    revokeFromAZombie(everyMillisecond, zombie -> {
      zombie.put(records(0, 10)); // sealed and committed in the background, to be fenced
      closeAsConnectRevokes(zombie);
    });
  }

  private interface ZombieSteps {
    void run(FloeIcebergSinkTask zombie) throws Exception;
  }

  /**
   * A successor commits the partition's first 10 records; then the zombie (task 1, made from
   * {@code zombieConfig}), which also owns it, takes {@code revoked} steps, ending with the
   * partition's revocation: it must ask Connect for no seek, and the table keeps the successor's
   * cycle alone.
   */
  private void revokeFromAZombie(Map<String, String> zombieConfig, ZombieSteps revoked) throws Exception {
    RecordingContext zombieContext = new RecordingContext();
    FloeIcebergSinkTask successor = start(new RecordingContext(), config(10));
    FloeIcebergSinkTask zombie = start(zombieContext, withTaskIndex(zombieConfig, 1));
    try {
      successor.open(List.of(TP));
      zombie.open(List.of(TP));
      successor.put(records(0, 10));
      awaitCommitted(successor, 10);

      revoked.run(zombie);
      assertEquals(List.of(), zombieContext.rewinds, "Connect cannot seek a partition the task no longer owns");
      assertEquals(ids(0, 10), ids(catalog.loadTable(id)), "only the successor's cycle is in the table");
    } finally {
      zombie.stop();
      successor.stop();
    }
  }

  /** Connect's revocation: the closing offset commit, then close. */
  private static void closeAsConnectRevokes(FloeIcebergSinkTask task) {
    task.preCommit(Map.of(TP, new OffsetAndMetadata(10)));
    task.close(List.of(TP));
  }

  /** Waits until task 1's JMX counts {@code cycles} fenced cycles (its timer took the commit's outcome). */
  private static void awaitFencedCycles(long cycles) throws Exception {
    ObjectName name = new ObjectName("dev.floe:type=FloeIcebergSinkTask,connector=failures,task=1");
    long deadline = System.nanoTime() + 30_000_000_000L;
    while ((Long) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "FencedCycles") < cycles) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no fenced cycle within 30 s");
      }
      Thread.sleep(20);
    }
  }

  private Map<String, String> config(int cycleRecords) {
    return InJvmTasks.config("failures", warehouse(), id, cycleRecords);
  }

  private static FloeIcebergSinkTask start(RecordingContext context, Map<String, String> config) {
    FloeIcebergSinkTask task = new FloeIcebergSinkTask();
    task.initialize(context);
    task.start(config);
    return task;
  }

  /** What Connect's {@code WorkerSinkTask} does with a task whose call threw: a closing offset commit, then close. */
  private static void closeAsConnectDoes(FloeIcebergSinkTask task) {
    try {
      task.preCommit(Map.of());
    } catch (RuntimeException ignored) {
      // Connect logs a failed closing commit and goes on to close
    }
    task.close(List.of(TP));
  }

  private static ConnectException awaitPreCommitFailure(FloeIcebergSinkTask task) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      try {
        task.preCommit(Map.of());
      } catch (ConnectException e) {
        return e;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the failed commit did not reach preCommit within 30 s");
  }

  private void assertNothingCommitted() throws Exception {
    Table table = catalog.loadTable(id);
    assertNull(table.currentSnapshot(), "no snapshot: nothing of the failed cycles, nor of the one after, was committed");
    assertEquals(Map.of(), ids(table));
  }
}
