package dev.floe.bench.e2e;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Where a contender JVM's CPU went during one run, by thread: Linux's per-thread {@code
 * /proc/<pid>/task/<tid>/stat} (user + system time), sampled every 100 ms on a daemon thread so that
 * threads which start and end within the run are counted too (up to their last sample). Threads are
 * grouped into {@linkplain #role roles}; the process's own total (which keeps the time of exited
 * threads) minus the threads seen gives "exited", what ended between samples.
 *
 * <p>Counts are in clock ticks of 1/100 s (Linux's {@code USER_HZ} on every architecture the
 * project runs on), so a role's figure is good to about 0.01 s per thread.
 */
final class ThreadCpu implements AutoCloseable {
  private static final double TICK_SECONDS = 0.01;
  private static final long SAMPLE_MS = 100;

  private final long pid;
  private final long processStart;
  /** tid -> [first ticks seen, last ticks seen]; first is 0 for threads born during the run. */
  private final Map<Long, long[]> ticks = new HashMap<>();
  private final Map<Long, String> names = new HashMap<>();
  private final Thread sampler;
  private volatile boolean stopped;
  private boolean firstSample = true;

  private ThreadCpu(long pid) {
    this.pid = pid;
    this.processStart = processTicks(pid).orElse(-1);
    sample();
    this.sampler = Thread.ofPlatform().daemon().name("thread-cpu-" + pid).start(this::loop);
  }

  /** Starts sampling {@code pid}'s threads now. */
  static ThreadCpu start(long pid) {
    return new ThreadCpu(pid);
  }

  /**
   * Stops sampling and returns core-seconds per role since {@link #start}, plus {@code "total"}
   * (the whole process); empty if the process could not be read.
   */
  Map<String, Double> stop() {
    stopped = true;
    sampler.interrupt();
    try {
      sampler.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sample();
    OptionalLong end = processTicks(pid);
    if (processStart < 0 || end.isEmpty()) {
      return Map.of();
    }
    Map<String, Long> byRole = new LinkedHashMap<>();
    long attributed = 0;
    for (Map.Entry<Long, long[]> e : ticks.entrySet()) {
      long used = e.getValue()[1] - e.getValue()[0];
      byRole.merge(role(names.get(e.getKey())), used, Long::sum);
      attributed += used;
    }
    long total = end.getAsLong() - processStart;
    byRole.merge("exited", Math.max(0, total - attributed), Long::sum);
    byRole.put("total", total);
    Map<String, Double> out = new LinkedHashMap<>();
    byRole.forEach((role, t) -> out.put(role, t * TICK_SECONDS));
    return out;
  }

  @Override
  public void close() {
    if (!stopped) {
      stop();
    }
  }

  /**
   * What a thread does, from its name (Linux keeps its first 15 characters): Connect's task thread
   * (poll, conversion, put), the main thread (the consumer of an own-JVM contender), floe's
   * decode, writer and commit threads, libfloe's encode threads (column runs encoded ahead of the
   * writer threads, or shared out with {@code encode.threads}: encoding and zstd), the JIT, the
   * GC, or other.
   */
  static String role(String name) {
    if (name == null) {
      return "other";
    }
    if (name.startsWith("task-thread-")) {
      return "connect-task";
    }
    if (name.equals("java") || name.equals("main")) { // the JVM leaves its main thread with the launcher's name
      return "main";
    }
    if (name.startsWith("floe-decode") || name.startsWith("floe-connect-de")) {
      return "decode";
    }
    if (name.startsWith("floe-writer") || name.startsWith("floe-connect-wr")) {
      return "writer";
    }
    if (name.startsWith("floe-encode-")) { // floe-encode-ahead-N, and floe-encode-N helpers
      return "encode";
    }
    if (name.startsWith("floe-commit") || name.startsWith("floe-connect-co")) {
      return "commit";
    }
    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
      return "jit";
    }
    if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
      return "gc";
    }
    return "other";
  }

  private void loop() {
    while (!stopped) {
      try {
        Thread.sleep(SAMPLE_MS);
      } catch (InterruptedException e) {
        return;
      }
      sample();
    }
  }

  private synchronized void sample() {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
      for (Path task : dir) {
        long tid = Long.parseLong(task.getFileName().toString());
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException gone) {
          continue; // the thread ended between the listing and the read
        }
        long used = cpuTicks(stat);
        long[] seen = ticks.get(tid);
        if (seen == null) {
          // A thread alive at the start is counted from then; one born later from zero.
          ticks.put(tid, new long[] {firstSample ? used : 0, used});
        } else {
          seen[1] = used;
        }
        // Pooled threads are renamed for their job and back after it (Connect's task threads): the
        // name that says the job counts.
        String name = comm(stat);
        if (!names.containsKey(tid) || !role(name).equals("other")) {
          names.put(tid, name);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process ended: the samples so far stand
    }
    firstSample = false;
  }

  private static OptionalLong processTicks(long pid) {
    try {
      return OptionalLong.of(cpuTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** utime + stime: fields 14 and 15 of a stat line, counted after the parenthesised name. */
  static long cpuTicks(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    // f[0] is field 3 (state), so field n is f[n - 3].
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  static String comm(String stat) {
    return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  }
}
