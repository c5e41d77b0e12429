package dev.floe.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Issue 5's targets, checked against a report's medians and memory run. */
final class Targets {
  static final double VS_STOCK = 3.0;
  static final double VS_CONNECT = 5.0;
  static final double OF_BARE = 0.5;
  static final double SYNTHETIC_MSG_PER_S = 500_000;
  static final double HEAP_MIB = 512;
  static final double RSS_GROWTH = 0.10;

  /**
   * One target: what it asks, on which corpus (or null), the measured value as text, and whether
   * it is met (null when it could not be measured).
   */
  record Target(String target, String corpus, String measured, Boolean met) {}

  private Targets() {}

  static List<Target> check(E2eReport report) {
    List<Target> out = new ArrayList<>();
    for (E2eReport.Topic topic : report.topics()) {
      String corpus = topic.corpus();
      Summary floe = report.summary(corpus, "floe");
      ratio(out, corpus, floe, report.summary(corpus, "stock-java"), VS_STOCK, "floe >= 3x the stock Java sink");
      ratio(out, corpus, floe, report.summary(corpus, "kafka-connect"), VS_CONNECT, "floe >= 5x the Kafka Connect sink");
      ratio(out, corpus, floe, report.summary(corpus, "bare-consume"), OF_BARE, "floe >= 50% of bare consume");
      if (corpus.equals(Corpus.SYNTHETIC.id()) && floe != null) {
        out.add(floe.ok()
            ? new Target("floe >= 500k msg/s on the ~142-byte events", corpus,
                String.format(Locale.ROOT, "%,.0f msg/s", floe.medianMessagesPerSecond()),
                floe.medianMessagesPerSecond() >= SYNTHETIC_MSG_PER_S)
            : new Target("floe >= 500k msg/s on the ~142-byte events", corpus, "no valid run", false));
      }
    }
    MemoryProfile m = report.memory();
    if (m != null) {
      if (!m.valid()) {
        out.add(new Target("memory run", m.corpus(), "failed: " + m.failure(), false));
      } else {
        out.add(new Target("heap <= 512 MiB", m.corpus(),
            String.format(Locale.ROOT, "peak %.0f MiB (-Xmx%s)", m.peakHeapMiB(), m.heapLimit()),
            m.peakHeapMiB() <= HEAP_MIB));
        out.add(new Target("RSS flat after warmup", m.corpus(),
            String.format(Locale.ROOT, "%.0f -> max %.0f MiB (%+.1f%%), %d samples", m.rssAfterWarmupFirstMiB(),
                m.rssAfterWarmupMaxMiB(), 100 * m.rssGrowthAfterWarmup(), m.rssSamples().size()),
            m.rssSamples().size() < 5 ? null : m.rssGrowthAfterWarmup() <= RSS_GROWTH));
      }
    }
    return out;
  }

  private static void ratio(List<Target> out, String corpus, Summary floe, Summary other, double threshold,
      String target) {
    if (floe == null || other == null) {
      return; // that contender did not run
    }
    if (!floe.ok() || !other.ok()) {
      out.add(new Target(target, corpus, "no valid run of " + (floe.ok() ? other.contender() : "floe"), null));
      return;
    }
    double ratio = floe.medianMessagesPerSecond() / other.medianMessagesPerSecond();
    String measured = threshold < 1
        ? String.format(Locale.ROOT, "%.0f%%", 100 * ratio)
        : String.format(Locale.ROOT, "%.2fx", ratio);
    out.add(new Target(target, corpus, measured, ratio >= threshold));
  }
}
