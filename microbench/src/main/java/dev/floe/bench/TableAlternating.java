package dev.floe.bench;

import dev.floe.bench.TableWrites.WriteMode;
import dev.floe.bench.corpus.NexmarkBidStream;
import dev.floe.corpus.NexmarkEvent;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * {@link TableWriteBenchmark}'s one-thread comparison with the two sides alternating operation by
 * operation in one JVM (floe first in even pairs, Iceberg Java first in odd ones), so that both
 * sides of a pair see the same machine within seconds: on a VM whose speed drifts, the ratio of
 * adjacent operations is steadier than one of runs minutes apart. Each operation also reports the
 * CPU time of its thread and of the whole process (JIT and GC threads included). The first pair
 * warms both sides up and is not counted; every commit's row count is checked.
 *
 * <pre>
 * scripts/bench-jmh table-alternating                    # 7 pairs of 2M-bid appends
 * scripts/bench-jmh table-alternating --pairs 5 --mode upsert --rows 500000
 * </pre>
 */
public final class TableAlternating {
  private static final long SEED = 42;

  private TableAlternating() {}

  public static void main(String[] args) throws IOException {
    Map<String, String> options =
        PairRatios.options(
            args,
            List.of("--pairs", "--rows", "--mode"),
            "TableAlternating [--pairs N] [--rows N] [--mode append|upsert]");
    int pairs = Integer.parseInt(options.getOrDefault("--pairs", "7"));
    int rows = Integer.parseInt(options.getOrDefault("--rows", "2000000"));
    WriteMode mode = WriteMode.of(options.getOrDefault("--mode", "append"));
    if (pairs < 2) {
      throw new IllegalArgumentException("--pairs must be at least 2 (the first pair is warmup)");
    }
    List<NexmarkEvent.Bid> bids = NexmarkBidStream.bids(SEED, rows);
    List<byte[]> messages = NexmarkBidStream.messages(bids);
    List<Double> wallRatios = new ArrayList<>();
    List<Double> cpuRatios = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int pair = 0; pair < pairs; pair++) {
        Operation floe = null;
        Operation icebergJava = null;
        for (boolean floeTurn : pair % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
          Operation op = measure(floeTurn, mode, messages, allocator, rows);
          System.out.printf(
              Locale.ROOT,
              "pair %d %-11s %6.2f s wall, %6.2f s thread CPU, %6.2f s process CPU%n",
              pair, floeTurn ? "floe" : "icebergJava", op.wall, op.threadCpu, op.processCpu);
          if (floeTurn) {
            floe = op;
          } else {
            icebergJava = op;
          }
        }
        if (pair > 0) {
          wallRatios.add(icebergJava.wall / floe.wall);
          cpuRatios.add(icebergJava.processCpu / floe.processCpu);
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%s, %,d bids, %d pairs after a warmup pair: Iceberg Java / floe (one thread)%n"
            + "  wall:        %s%n  process CPU: %s%n",
        mode.name().toLowerCase(Locale.ROOT), rows, wallRatios.size(),
        PairRatios.summary(wallRatios), PairRatios.summary(cpuRatios));
  }

  private record Operation(double wall, double threadCpu, double processCpu) {}

  /** One whole-table write into a fresh table, timed; garbage of the previous one collected first. */
  private static Operation measure(
      boolean floe, WriteMode mode, List<byte[]> messages, BufferAllocator allocator, long expectedRows)
      throws IOException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    try (BidWarehouse warehouse = BidWarehouse.create(null)) {
      Table table = warehouse.newBidTable("bids", 2);
      System.gc();
      long thread0 = threads.getCurrentThreadCpuTime();
      long process0 = os.getProcessCpuTime();
      long wall0 = System.nanoTime();
      Snapshot committed =
          floe ? TableWrites.floe(table, mode, messages, allocator, 1) : TableWrites.icebergJava(table, mode, messages);
      Operation op =
          new Operation(
              (System.nanoTime() - wall0) / 1e9,
              (threads.getCurrentThreadCpuTime() - thread0) / 1e9,
              (os.getProcessCpuTime() - process0) / 1e9);
      long written = Long.parseLong(committed.summary().get(SnapshotSummary.TOTAL_RECORDS_PROP));
      if (written != expectedRows) {
        throw new IllegalStateException(
            (floe ? "floe" : "icebergJava") + " committed " + written + " rows, expected " + expectedRows);
      }
      return op;
    }
  }
}
