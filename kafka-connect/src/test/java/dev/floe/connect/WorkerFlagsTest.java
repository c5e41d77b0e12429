package dev.floe.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker whose JVM lacks the flags the README gives: the task's start says which flags, instead
 * of Arrow's "sun.misc.Unsafe or java.nio.DirectByteBuffer.<init>(long, int) not available" at the
 * first batch with a leaked-memory error on top (helper-61).
 */
class WorkerFlagsTest {
  @TempDir Path dir;

  /** Run in a JVM without --add-opens: starts a task and prints how its start ended. */
  public static final class Probe {
    public static void main(String[] args) {
      try {
        FloeIcebergSinkTask task = new FloeIcebergSinkTask();
        task.initialize(new InJvmTasks.RecordingContext());
        task.start(InJvmTasks.config("flags", Path.of(args[0]), org.apache.iceberg.catalog.TableIdentifier.of("db", "t"), 10));
        System.out.println("started");
      } catch (RuntimeException e) {
        System.out.println("refused: " + e.getMessage());
      }
    }
  }

  @Test
  void aWorkerWithoutTheJvmFlagsIsToldWhichFlags() throws IOException, InterruptedException {
    Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Probe.class.getName(), dir.toString())
        .redirectErrorStream(true).start();
    String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(jvm.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, jvm.exitValue(), out);
    List<String> lines = out.lines().filter(l -> l.startsWith("refused: ") || l.equals("started")).toList();
    assertEquals(1, lines.size(), out);
    assertTrue(lines.getFirst().contains("--add-opens=java.base/java.nio=ALL-UNNAMED"), out);
  }
}
