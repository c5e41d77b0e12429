package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.NexmarkEvent;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.TableFingerprint;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety: the sink runs as a separate process and is killed with SIGKILL at random moments,
 * then restarted; the final table holds exactly the input, nothing lost and nothing twice.
 *
 * <p>The CI run kills it 3 times; {@code scripts/sink-crash-test} runs the long variant
 * ({@code -Dfloe.crash.kills=20}, more events).
 */
class SinkCrashTest {
  private static final int KILLS = Integer.getInteger("floe.crash.kills", 3);
  private static final int EVENTS = Integer.getInteger("floe.crash.events", 200_000);
  private static final long SEED = Long.getLong("floe.crash.seed", System.nanoTime());

  @TempDir Path brokerDir;
  @TempDir Path warehouse;
  @TempDir Path logs;

  @Test
  void killedWithSigkillAndRestartedTheSinkWritesEveryRecordExactlyOnce() throws Exception {
    List<NexmarkEvent> events = SinkFixture.events(7, EVENTS);
    Random random = new Random(SEED);
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(brokerDir)) {
      kafka.createTopic("crash", 4);
      SinkFixture.produce(kafka.bootstrapServers(), "crash", 4, SinkFixture.json(events));
      withCatalog(catalog -> {
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("nexmark"));
        return null;
      });
      int killedWhileRunning = 0;
      List<Long> progress = new ArrayList<>();
      for (int kill = 0; kill < KILLS; kill++) {
        Process sink = startSink(kafka, "run-" + kill);
        // Kill once the table holds a growing share of the input, plus a random few milliseconds,
        // so the kills land mid-write, mid-commit or between cycles, but always mid-run.
        long target = (long) EVENTS * (kill + 1) / (KILLS + 2);
        while (sink.isAlive() && committedRecords() < target) {
          Thread.sleep(25);
        }
        Thread.sleep(random.nextInt(200));
        if (sink.isAlive()) {
          sink.destroyForcibly(); // SIGKILL
          killedWhileRunning++;
          sink.waitFor(30, TimeUnit.SECONDS);
        } else {
          // It ended by itself before its kill: only a clean finish at the end is acceptable.
          assertEquals(0, sink.exitValue(), "run " + kill + " failed: " + tail(logs.resolve("run-" + kill + ".log")));
        }
        progress.add(committedRecords());
      }
      Process last = startSink(kafka, "final");
      assertTrue(last.waitFor(5, TimeUnit.MINUTES), "the final run finishes");
      assertEquals(0, last.exitValue(), "the final run succeeds; its log is in " + logs);

      String where = "seed " + SEED + ", progress after each kill " + progress;
      System.out.println("crash test: " + where + "; killed mid-run " + killedWhileRunning + " of " + KILLS);
      assertTrue(killedWhileRunning >= Math.min(KILLS, 1), "killed mid-run at least once: " + where);
      withCatalog(catalog -> {
        Table table = catalog.loadTable(TableIdentifier.of("nexmark", "crash"));
        assertEquals(SinkFixture.expected(events), TableFingerprint.of(table), where);
        Map<TopicPartition, Long> stored = SinkFixture.storedOffsets(table, "crash");
        for (int p = 0; p < 4; p++) {
          assertEquals((long) EVENTS / 4, stored.get(new TopicPartition("crash", p)), where);
        }
        return null;
      });
    }
  }

  private static String tail(Path log) throws java.io.IOException {
    List<String> lines = java.nio.file.Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  /** Records the table holds so far (0 before the first commit). */
  private long committedRecords() throws Exception {
    return withCatalog(catalog -> {
      TableIdentifier id = TableIdentifier.of("nexmark", "crash");
      if (!catalog.tableExists(id)) {
        return 0L;
      }
      Table table = catalog.loadTable(id);
      return table.currentSnapshot() == null
          ? 0L
          : Long.parseLong(table.currentSnapshot().summary().getOrDefault("total-records", "0"));
    });
  }

  /** Opens the embedded catalog (the sink processes use it too), runs {@code body}, closes it. */
  private <T> T withCatalog(java.util.function.Function<Catalog, T> body) throws Exception {
    Catalog catalog = Catalogs.embedded(warehouse);
    try {
      return body.apply(catalog);
    } finally {
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  private Process startSink(LocalKafkaBroker kafka, String name) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(
        java, "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"), SinkProcessMain.class.getName(),
        kafka.bootstrapServers(), warehouse.toString(), "crash", "nexmark.crash", "crash", "4000"));
    File log = logs.resolve(name + ".log").toFile();
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
  }
}
