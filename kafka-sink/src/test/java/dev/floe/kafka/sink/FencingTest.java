package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.CountingTableOperations;
import dev.floe.iceberg.ForwardingTableOperations;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zombie fencing: a sink whose view of the table's offsets is stale -- another sink took its
 * partitions over and committed -- is refused, its files are deleted, and no offset is ever
 * committed twice, also when the two commits race.
 */
class FencingTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);

  @TempDir Path warehouse;
  private Catalog catalog;
  private Table table;

  @BeforeEach
  void setUp() {
    catalog = Catalogs.embedded(warehouse);
    table = catalog.createTable(TableIdentifier.of("t"), SCHEMA, PartitionSpec.unpartitioned());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
  }

  /** A real (empty) file registered as a data file, so deletion on fencing can be observed. */
  private WriteResult files(String name) throws Exception {
    Path file = Files.createFile(warehouse.resolve(name + ".parquet"));
    DataFile data =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath(file.toString())
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(1)
            .withRecordCount(1)
            .build();
    return WriteResult.builder().addDataFiles(data).build();
  }

  @Test
  void aSinkWithAStaleViewOfTheOffsetsIsFenced() throws Exception {
    TableCommitter committer = new TableCommitter("g");
    committer.commit(table, files("a1"), at(P0, 100L, P1, 10L), Map.of());
    // Another sink took partition 0 over and committed up to 150.
    committer.commit(table, files("b1"), at(P0, 150L), at(P0, 100L));

    // The zombie still believes partition 0 is at 100.
    WriteResult zombie = files("a2");
    FencedException e =
        assertThrows(
            FencedException.class,
            () -> committer.commit(table, zombie, at(P0, 200L, P1, 20L), at(P0, 100L, P1, 10L)));
    assertTrue(e.getMessage().contains("t-0=Position[next=150"), e.getMessage());
    assertFalse(Files.exists(Path.of(zombie.dataFiles()[0].location())), "the zombie's files are deleted");
    table.refresh();
    assertEquals(2, snapshots().size(), "the zombie committed nothing");
    assertEquals(150L, SnapshotOffsets.latest(current(), "g", List.of(P0)).get(P0).next());
    assertEquals(10L, SnapshotOffsets.latest(current(), "g", List.of(P1)).get(P1).next());
  }

  @Test
  void ofTwoRacingCommitsForTheSameOffsetsExactlyOneLands() throws Exception {
    TableCommitter committer = new TableCommitter("g");
    committer.commit(table, files("start"), at(P0, 100L), Map.of());
    int racers = 6;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(racers);
    List<Future<Boolean>> outcomes = new ArrayList<>();
    for (int i = 0; i < racers; i++) {
      WriteResult result = files("racer" + i);
      long next = 200 + i;
      outcomes.add(threads.submit(() -> {
        go.await();
        try {
          committer.commit(catalog.loadTable(TableIdentifier.of("t")), result, at(P0, next), at(P0, 100L));
          return true;
        } catch (FencedException fenced) {
          return false;
        }
      }));
    }
    go.countDown();
    int landed = 0;
    for (Future<Boolean> outcome : outcomes) {
      landed += outcome.get() ? 1 : 0;
    }
    threads.shutdown();
    assertEquals(1, landed, "exactly one of the sinks that expected offset 100 commits");
    table.refresh();
    assertEquals(2, snapshots().size());
  }

  /**
   * Writers on partitions of their own (a connector's tasks) whose commits collide more often than
   * Iceberg retries -- none at all here -- still all land, each once.
   */
  @Test
  void writersInOneProcessTakeTurnsAndNeverLoseARace() throws Exception {
    table.updateProperties().set("commit.retry.num-retries", "0").commit(); // a lost race would show
    int writers = 6;
    int rounds = 3;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    List<Future<Integer>> attempts = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      TopicPartition tp = new TopicPartition("t", w);
      int writer = w;
      attempts.add(threads.submit(() -> {
        Table loaded = catalog.loadTable(TableIdentifier.of("t"));
        CountingTableOperations ops = new CountingTableOperations(((HasTableOperations) loaded).operations());
        Table own = new BaseTable(ops, loaded.name());
        TableCommitter committer = new TableCommitter("g");
        Map<TopicPartition, Position> expected = Map.of();
        go.await();
        for (int round = 1; round <= rounds; round++) {
          Map<TopicPartition, Position> offsets = at(tp, round * 10L);
          committer.commit(own, files("turn-w" + writer + "r" + round), offsets, expected);
          expected = offsets;
        }
        return ops.commits();
      }));
    }
    go.countDown();
    for (Future<Integer> f : attempts) {
      assertEquals(rounds, f.get(), "one catalog commit per cycle: no lost race, no retry");
    }
    threads.shutdown();
    table.refresh();
    assertEquals(writers * rounds, snapshots().size(), "every commit landed once");
  }

  @Test
  void aCommitThatHangsHoldingTheTurnDoesNotHoldUpTheOthers() throws Exception {
    CountDownLatch hanging = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Table loaded = catalog.loadTable(TableIdentifier.of("t"));
    Table stuck = new BaseTable(new ForwardingTableOperations(((HasTableOperations) loaded).operations()) {
      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        hanging.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        super.commit(base, metadata);
      }
    }, loaded.name());
    ExecutorService threads = Executors.newFixedThreadPool(1);
    try {
      Future<?> first = threads.submit(() -> {
        new TableCommitter("g").commit(stuck, files("stuck"), at(P0, 10), Map.of());
        return null;
      });
      assertTrue(hanging.await(30, TimeUnit.SECONDS));

      long start = System.nanoTime();
      new TableCommitter("g").commit(catalog.loadTable(TableIdentifier.of("t")), files("other"), at(P1, 10), Map.of());
      long waitedMs = (System.nanoTime() - start) / 1_000_000;
      assertTrue(waitedMs >= TableCommitter.TURN_WAIT_MS - 100, "it waited for the turn first: " + waitedMs + " ms");

      release.countDown();
      first.get(30, TimeUnit.SECONDS); // lost the race to the other one, then landed on a retry
    } finally {
      release.countDown();
      threads.shutdownNow();
    }
    table.refresh();
    assertEquals(2, snapshots().size());
    assertEquals(10L, SnapshotOffsets.latest(current(), "g", List.of(P0)).get(P0).next());
    assertEquals(10L, SnapshotOffsets.latest(current(), "g", List.of(P1)).get(P1).next());
  }

  @Test
  void writersOnTheirOwnPartitionsAllLandPastIcebergsRetries() throws Exception {
    table.updateProperties()
        .set("commit.retry.num-retries", "0")
        .set("commit.retry.min-wait-ms", "5")
        .set("commit.retry.max-wait-ms", "100")
        .commit();
    int writers = 6;
    int rounds = 4;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      TopicPartition tp = new TopicPartition("t", w);
      int writer = w;
      done.add(threads.submit(() -> {
        go.await();
        // Racing as committers in separate processes do (the process's turns would queue them).
        TableCommitter committer = new TableCommitter("g", false);
        Table own = catalog.loadTable(TableIdentifier.of("t"));
        Map<TopicPartition, Position> expected = Map.of();
        for (int round = 1; round <= rounds; round++) {
          Map<TopicPartition, Position> offsets = at(tp, round * 10L);
          committer.commit(own, files("w" + writer + "r" + round), offsets, expected);
          expected = offsets;
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : done) {
      f.get();
    }
    threads.shutdown();
    table.refresh();
    assertEquals(writers * rounds, snapshots().size(), "every commit landed once");
    for (int w = 0; w < writers; w++) {
      TopicPartition tp = new TopicPartition("t", w);
      assertEquals(rounds * 10L, SnapshotOffsets.latest(current(), "g", List.of(tp)).get(tp).next());
    }
  }

  /** Positions of topic {@code t} (no topic id). */
  static Map<TopicPartition, Position> at(TopicPartition tp, long next) {
    return Map.of(tp, new Position(next, null));
  }

  static Map<TopicPartition, Position> at(TopicPartition a, long nextA, TopicPartition b, long nextB) {
    return Map.of(a, new Position(nextA, null), b, new Position(nextB, null));
  }

  private org.apache.iceberg.TableMetadata current() {
    return ((org.apache.iceberg.HasTableOperations) table).operations().current();
  }

  private List<Snapshot> snapshots() {
    List<Snapshot> out = new ArrayList<>();
    table.snapshots().forEach(out::add);
    return out;
  }
}
