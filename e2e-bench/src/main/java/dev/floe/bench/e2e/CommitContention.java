package dev.floe.bench.e2e;

import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.CountingTableOperations;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import dev.floe.kafka.sink.TableCommitter;
import dev.floe.testing.ReportNames;
import dev.floe.testing.WorkDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.TopicPartition;

/**
 * How per-task commits contend on one table: N committers (Connect tasks, each with a catalog of
 * its own and its own partition), all committing at the same moment, round after round (the worst
 * case: every task's cycle ends together), through the Kafka sink's {@link TableCommitter} on the
 * embedded catalog. Per N: the time until all N have committed, commit attempts per commit
 * (catalog conflicts retried), and commits that failed past the table's retries. Files are entries
 * only (no data is written: the catalog is what contends).
 *
 * <p>{@code scripts/bench-commit-contention [--tasks 1,2,4,8,16,32] [--rounds 20] [--out DIR]}
 */
public final class CommitContention {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  record Result(int tasks, int rounds, double medianRoundMs, double p90RoundMs, double attemptsPerCommit,
      int maxAttempts, int failed, double commitsPerSecond) {}

  public static void main(String[] args) throws Exception {
    List<Integer> taskCounts = List.of(1, 2, 4, 8, 16, 32);
    int rounds = 20;
    Path out = Path.of("docs/benchmarks/archive");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--tasks" -> taskCounts = Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; usage: [--tasks 1,2,4,8,16,32] [--rounds 20] [--out DIR]");
      }
    }
    List<Result> results = new ArrayList<>();
    try (WorkDirectory work = WorkDirectory.create("floe-commit-contention")) {
      for (int tasks : taskCounts) {
        Result r = run(work.path().resolve("n" + tasks), tasks, rounds);
        System.out.printf(Locale.ROOT, "%2d tasks: round median %.0f ms (p90 %.0f), %.2f attempts/commit (max %d), "
            + "%d failed, %.1f commits/s%n", r.tasks(), r.medianRoundMs(), r.p90RoundMs(), r.attemptsPerCommit(),
            r.maxAttempts(), r.failed(), r.commitsPerSecond());
        results.add(r);
      }
    }
    write(out, results, rounds);
  }

  static Result run(Path warehouse, int tasks, int rounds) throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "contention");
    try (AutoCloseableCatalog setup = new AutoCloseableCatalog(Catalogs.embedded(warehouse))) {
      ((SupportsNamespaces) setup.catalog).createNamespace(Namespace.of("db"));
      setup.catalog.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    }
    CyclicBarrier barrier = new CyclicBarrier(tasks);
    long[][] roundEnds = new long[rounds][tasks];
    long[] roundStarts = new long[rounds];
    int[] maxAttempts = new int[tasks];
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < tasks; t++) {
      int task = t;
      threads.add(Thread.ofPlatform().name("committer-" + t).start(() -> {
        try (AutoCloseableCatalog own = new AutoCloseableCatalog(Catalogs.embedded(warehouse))) {
          Table loaded = own.catalog.loadTable(id);
          CountingTableOperations ops = new CountingTableOperations(((HasTableOperations) loaded).operations());
          Table table = new BaseTable(ops, loaded.name());
          TableCommitter committer = new TableCommitter("contention");
          TopicPartition tp = new TopicPartition("events", task);
          Map<TopicPartition, Position> expected = new HashMap<>();
          for (int round = 0; round < rounds; round++) {
            barrier.await();
            if (task == 0) {
              roundStarts[round] = System.nanoTime();
            }
            Map<TopicPartition, Position> offsets = Map.of(tp, new Position((round + 1) * 1000L, null));
            int before = ops.commits();
            try {
              table.refresh();
              committer.commit(table, WriteResult.builder().addDataFiles(entry(loaded)).build(), offsets, expected);
              expected = new HashMap<>(offsets);
            } catch (RuntimeException e) {
              failed.incrementAndGet();
              System.err.println("task " + task + " round " + round + ": " + e);
            }
            int made = ops.commits() - before;
            attempts.addAndGet(made);
            maxAttempts[task] = Math.max(maxAttempts[task], made);
            roundEnds[round][task] = System.nanoTime();
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    for (Thread thread : threads) {
      thread.join();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double[] roundMs = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      roundMs[r] = (Arrays.stream(roundEnds[r]).max().orElseThrow() - roundStarts[r]) / 1e6;
    }
    Arrays.sort(roundMs);
    int commits = tasks * rounds - failed.get();
    verify(warehouse, id, commits);
    return new Result(tasks, rounds, roundMs[rounds / 2], roundMs[(int) Math.min(rounds - 1, Math.ceil(rounds * 0.9) - 1)],
        attempts.get() / (double) (tasks * rounds), Arrays.stream(maxAttempts).max().orElse(0), failed.get(),
        commits / seconds);
  }

  /** Every commit that says it landed is in the table, once. */
  private static void verify(Path warehouse, TableIdentifier id, int commits) throws Exception {
    try (AutoCloseableCatalog check = new AutoCloseableCatalog(Catalogs.embedded(warehouse))) {
      Table table = check.catalog.loadTable(id);
      int snapshots = 0;
      for (Snapshot ignored : table.snapshots()) {
        snapshots++;
      }
      long files = Long.parseLong(table.currentSnapshot().summary().get("total-data-files"));
      if (snapshots != commits || files != commits) {
        throw new IllegalStateException(commits + " commits succeeded, but the table has " + snapshots
            + " snapshots and " + files + " files");
      }
    }
  }

  private static DataFile entry(Table table) {
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/" + UUID.randomUUID() + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1 << 20)
        .withRecordCount(1000)
        .build();
  }

  private static void write(Path dir, List<Result> results, int rounds) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Commit contention: per-task commits to one table\n\n")
        .append("`scripts/bench-commit-contention`, ").append(LocalDate.now(ZoneOffset.UTC)).append(", this machine (")
        .append(Runtime.getRuntime().availableProcessors()).append(" cores). N committers, each a Connect task's ")
        .append("commit path (a catalog of its own, its own partition, the Kafka sink's `TableCommitter` with ")
        .append("fencing), all committing at the same moment, ").append(rounds).append(" rounds, to one v2 table ")
        .append("in the embedded catalog (JDBC on SQLite, local warehouse), Iceberg's default `commit.retry.*`. ")
        .append("A round ends when all N have committed. Attempts per commit count catalog commits tried ")
        .append("(1 = no conflict).\n\n")
        .append("| tasks | round median (ms) | round p90 (ms) | attempts / commit | max attempts | failed | commits/s |\n")
        .append("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Result r : results) {
      md.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.2f | %d | %d | %.1f |%n", r.tasks(),
          r.medianRoundMs(), r.p90RoundMs(), r.attemptsPerCommit(), r.maxAttempts(), r.failed(), r.commitsPerSecond()));
    }
    Files.createDirectories(dir);
    Path file = dir.resolve(ReportNames.today(dir, "commit-contention") + ".md");
    Files.writeString(file, md);
    System.out.println("wrote " + file);
  }

  /** A catalog closed after use (the JDBC catalog holds connections). */
  private record AutoCloseableCatalog(Catalog catalog) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }
}
