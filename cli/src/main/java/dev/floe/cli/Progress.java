package dev.floe.cli;

import java.io.PrintWriter;

/**
 * Progress on stderr for long work: a redrawn bar when stderr is a terminal, plain periodic lines
 * otherwise (logs, CI). Silent when disabled. Counts items ({@link #start}) or bytes ({@link
 * #startBytes}, printed in MB); a total of 0 or less means unknown (no bar, no percentage).
 */
final class Progress {
  private static final long LINE_INTERVAL_NANOS = 5_000_000_000L;
  private static final long BAR_INTERVAL_NANOS = 200_000_000L;

  private final PrintWriter err;
  private final String task;
  private final long total;
  private final boolean bytes;
  private final boolean enabled;
  private final boolean terminal;
  private final long start = System.nanoTime();
  private long done;
  private long lastPrint = start;
  private boolean printed;

  private Progress(PrintWriter err, String task, long total, boolean bytes, boolean enabled) {
    this.err = err;
    this.task = task;
    this.total = total;
    this.bytes = bytes;
    this.enabled = enabled;
    this.terminal = System.console() != null && System.console().isTerminal();
  }

  /** Progress in items (events, rows). */
  static Progress start(PrintWriter err, String task, long total, boolean enabled) {
    return new Progress(err, task, total, false, enabled);
  }

  /** Progress in bytes, e.g. of an input file. */
  static Progress startBytes(PrintWriter err, String task, long totalBytes, boolean enabled) {
    return new Progress(err, task, totalBytes, true, enabled);
  }

  /** One more item; cheap enough to call per item (the clock is read every 1024 items). */
  void step() {
    done++;
    if (enabled && (done & 1023) == 0) {
      maybePrint();
    }
  }

  /** {@code n} more units; call it per batch, not per byte (it reads the clock). */
  void advance(long n) {
    done += n;
    if (enabled) {
      maybePrint();
    }
  }

  /** Completes the bar; in plain mode, ends with a final line only if progress lines were printed. */
  void done() {
    if (enabled && done > 0 && (terminal || printed)) {
      print(System.nanoTime(), true);
    }
  }

  private void maybePrint() {
    long now = System.nanoTime();
    if (now - lastPrint >= (terminal ? BAR_INTERVAL_NANOS : LINE_INTERVAL_NANOS)) {
      lastPrint = now;
      print(now, false);
    }
  }

  private void print(long now, boolean last) {
    double seconds = Math.max(1e-9, (now - start) / 1e9);
    boolean known = total > 0;
    double fraction = known ? Math.min(1.0, (double) done / total) : 1.0;
    String rate = amount(done / seconds) + "/s";
    String amounts = known ? amount(done) + "/" + amount(total) : amount(done);
    if (terminal && known) {
      int width = 30;
      int filled = (int) Math.round(fraction * width);
      err.printf("\r%s [%s%s] %3.0f%% %s %s", task, "#".repeat(filled), " ".repeat(width - filled),
          fraction * 100, amounts, rate);
      if (last) {
        err.println();
      }
    } else if (terminal) {
      err.printf("\r%s %s %s", task, amounts, rate);
      if (last) {
        err.println();
      }
    } else if (known) {
      err.printf("%s: %s (%.0f%%) %s%n", task, amounts, fraction * 100, rate);
    } else {
      err.printf("%s: %s %s%n", task, amounts, rate);
    }
    err.flush();
    printed = true;
  }

  private String amount(double units) {
    return bytes ? String.format("%,.1f MB", units / 1e6) : String.format("%,.0f", units);
  }
}
