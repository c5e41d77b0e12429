package dev.floe.cli;

import dev.floe.kafka.sink.SinkMetricsMXBean;
import java.io.PrintWriter;

/** Periodic progress lines of a running sink, from its metrics, and the closing summary. */
final class SinkProgress {
  private static final long PERIOD_MILLIS = 5_000;
  private final Thread thread;
  private volatile boolean running = true;

  private SinkProgress(SinkMetricsMXBean metrics, PrintWriter out) {
    this.thread = new Thread(() -> loop(metrics, out), "floe-sink-progress");
    thread.setDaemon(true);
  }

  static SinkProgress start(SinkMetricsMXBean metrics, PrintWriter out) {
    SinkProgress progress = new SinkProgress(metrics, out);
    progress.thread.start();
    return progress;
  }

  private void loop(SinkMetricsMXBean metrics, PrintWriter out) {
    while (running) {
      try {
        Thread.sleep(PERIOD_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      if (running) {
        synchronized (out) {
          out.printf("sink: %,d records consumed (%,.0f/s, %.1f MB/s), %,d rows written, %d commits, %d files, lag %,d, bad %d%n",
              metrics.getRecordsConsumed(), metrics.getRecordsPerSecond(), metrics.getBytesPerSecond() / 1e6,
              metrics.getRowsWritten(), metrics.getCommits(), metrics.getDataFiles(), metrics.getLag(),
              metrics.getBadRecords());
          out.flush();
        }
      }
    }
  }

  void stop() {
    running = false;
    thread.interrupt();
  }

  static void summary(SinkMetricsMXBean metrics, double seconds, PrintWriter out) {
    synchronized (out) {
      out.printf("records       %,d consumed, %,d written, %,d bad (%,d dead-lettered)%s%n",
          metrics.getRecordsConsumed(), metrics.getRowsWritten(), metrics.getBadRecords(), metrics.getDeadLettered(),
          // without it, consumed records would be unaccounted for (helper-89)
          metrics.getTombstonesSkipped() == 0 ? ""
              : String.format(", %,d tombstones skipped (null values, append mode)", metrics.getTombstonesSkipped()));
      out.printf("commits       %d, %d data files, %,d bytes%n",
          metrics.getCommits(), metrics.getDataFiles(), metrics.getDataFileBytes());
      out.printf("throughput    %,.0f records/s, %.1f MB/s over %.1f s%n",
          metrics.getRecordsConsumed() / seconds, metrics.getBytesConsumed() / 1e6 / seconds, seconds);
      out.flush();
    }
  }
}
