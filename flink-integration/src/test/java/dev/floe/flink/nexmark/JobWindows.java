package dev.floe.flink.nexmark;

import java.util.Locale;

/**
 * One line per timed job on standard output, {@code [job] <label> <start> <end>} in {@link
 * System#nanoTime()} nanoseconds (Linux: {@code CLOCK_MONOTONIC}), so that a system-wide profile
 * taken with the same clock ({@code perf record -k mono}) can be cut into jobs: {@code
 * scripts/bench-flink-bound} does that.
 */
public final class JobWindows {
  private JobWindows() {}

  /** Prints the window of the job that ran from {@code startNanos} to now; returns its seconds. */
  public static double close(String label, long startNanos) {
    long end = System.nanoTime();
    System.out.printf(Locale.ROOT, "[job] %s %d %d%n", label.replace(' ', '_'), startNanos, end);
    return (end - startNanos) / 1e9;
  }
}
