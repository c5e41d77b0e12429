package dev.floe.cli;

import java.io.PrintWriter;

/**
 * Progress on stderr for long work: a redrawn bar when stderr is a terminal, plain periodic lines
 * otherwise (logs, CI). Silent when disabled.
 */
final class Progress {
  private static final long LINE_INTERVAL_NANOS = 5_000_000_000L;
  private static final long BAR_INTERVAL_NANOS = 200_000_000L;

  private final PrintWriter err;
  private final String task;
  private final long total;
  private final boolean enabled;
  private final boolean terminal;
  private final long start = System.nanoTime();
  private long done;
  private long lastPrint = start;

  private Progress(PrintWriter err, String task, long total, boolean enabled) {
    this.err = err;
    this.task = task;
    this.total = total;
    this.enabled = enabled;
    this.terminal = System.console() != null && System.console().isTerminal();
  }

  static Progress start(PrintWriter err, String task, long total, boolean enabled) {
    return new Progress(err, task, total, enabled);
  }

  void step() {
    done++;
    if (enabled && (done & 1023) == 0) {
      long now = System.nanoTime();
      if (now - lastPrint >= (terminal ? BAR_INTERVAL_NANOS : LINE_INTERVAL_NANOS)) {
        lastPrint = now;
        print(now, false);
      }
    }
  }

  void done() {
    if (enabled && done > 0) {
      print(System.nanoTime(), true);
    }
  }

  private void print(long now, boolean last) {
    double seconds = Math.max(1e-9, (now - start) / 1e9);
    double fraction = total > 0 ? Math.min(1.0, (double) done / total) : 1.0;
    String rate = String.format("%,.0f/s", done / seconds);
    if (terminal) {
      int width = 30;
      int filled = (int) Math.round(fraction * width);
      err.printf("\r%s [%s%s] %3.0f%% %,d/%,d %s", task, "#".repeat(filled), " ".repeat(width - filled),
          fraction * 100, done, total, rate);
      if (last) {
        err.println();
      }
    } else {
      err.printf("%s: %,d/%,d (%.0f%%) %s%n", task, done, total, fraction * 100, rate);
    }
    err.flush();
  }
}
