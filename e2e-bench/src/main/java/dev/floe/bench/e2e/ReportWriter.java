package dev.floe.bench.e2e;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.testing.BarChart;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a report three ways into one folder: {@code NAME.json} (everything, machine-readable),
 * {@code NAME.md} (for people) and {@code NAME.png} (msg/s per contender and corpus).
 */
final class ReportWriter {
  private ReportWriter() {}

  static List<Path> write(E2eReport report, Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    Path json = dir.resolve(name + ".json");
    Path md = dir.resolve(name + ".md");
    Path png = dir.resolve(name + ".png");
    writeJson(report, json);
    chart(report, png);
    Files.writeString(md, markdown(report, png.getFileName().toString(), json.getFileName().toString()),
        StandardCharsets.UTF_8);
    return List.of(md, json, png);
  }

  /** Reads a report's JSON and writes its markdown and PNG (and the JSON) again, beside it. */
  static List<Path> render(Path json) throws IOException {
    E2eReport report = new ObjectMapper()
        // ratios and RSS growth are derived; older reports also hold the targets they were checked against
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
        .readValue(json.toFile(), E2eReport.class);
    String name = json.getFileName().toString().replaceFirst("\\.json$", "");
    return write(report, json.toAbsolutePath().getParent(), name);
  }

  /** The report, plus what the markdown derives from it: floe's ratios and the memory run's RSS growth. */
  private static void writeJson(E2eReport report, Path json) throws IOException {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.valueToTree(report);
    if (report.memory() != null && report.memory().valid()) {
      ((ObjectNode) root.get("memory")).put("rssGrowthAfterWarmup", report.memory().rssGrowthAfterWarmup());
    }
    ObjectNode ratios = root.putObject("ratios");
    for (E2eReport.Topic topic : report.topics()) {
      ObjectNode r = ratios.putObject(topic.corpus());
      Summary floe = report.summary(topic.corpus(), "floe");
      for (Summary other : report.summaries()) {
        if (other.corpus().equals(topic.corpus()) && floe != null && floe.ok() && other.ok()
            && !other.contender().equals("floe")) {
          r.put("floe/" + other.contender(), floe.medianMessagesPerSecond() / other.medianMessagesPerSecond());
        }
      }
    }
    mapper.writeValue(json.toFile(), root);
  }

  private static void chart(E2eReport report, Path png) throws IOException {
    List<String> series = new ArrayList<>(report.contenders().keySet());
    List<BarChart.Group> groups = new ArrayList<>();
    for (E2eReport.Topic topic : report.topics()) {
      List<BarChart.Bar> bars = new ArrayList<>();
      for (String contender : series) {
        Summary s = report.summary(topic.corpus(), contender);
        if (s != null) {
          bars.add(new BarChart.Bar(contender, s.medianMessagesPerSecond(), s.minMessagesPerSecond(),
              s.maxMessagesPerSecond()));
        }
      }
      groups.add(new BarChart.Group(
          String.format(Locale.ROOT, "%s (%,d events, %.0f B avg)", topic.corpus(), topic.events(),
              topic.averageMessageBytes()), bars));
    }
    String subtitle = (report.label() == null ? "" : report.label() + " -- ")
        + report.started().substring(0, 10) + ", " + report.environment().get("cpus") + " cores";
    BarChart.write(png, "Kafka -> Iceberg end to end: messages/s", subtitle, "messages per second", series, groups);
  }

  static String markdown(E2eReport report, String png, String json) {
    StringBuilder md = new StringBuilder();
    Map<String, Object> env = report.environment();
    Map<String, Object> set = report.settings();
    md.append("# Kafka -> Iceberg end to end, ").append(report.started(), 0, 10).append("\n\n");
    if (report.label() != null) {
      md.append("> **").append(report.label()).append("**\n\n");
    }
    md.append(String.format(Locale.ROOT, """
        Machine: %s cores (%s), %s; %s, %s. Load average (1/5/15 min) at start %s, at end %s.
        Whole run: %.0f s. Raw figures: [`%s`](%s).

        **Setup.** One real KRaft broker on loopback (`kafka-local`, its own JVM), each corpus loaded
        once into a %s-partition topic (event i to partition i mod %s, producer compression `%s`).
        Every run writes a fresh %s-bucket Iceberg v2 table in the embedded catalog (Iceberg's JDBC
        catalog on SQLite, local warehouse): `bucket[4](bid.auction)` for Nexmark (persons and
        auctions land in the null partition), `bucket[4](id)` for the synthetic events. Commit
        cadence for all: every %,d ms or %,d records, whichever first (the Kafka Connect sink has
        only the interval). %d warmup round(s) and %d measured round(s) per corpus; each round runs
        every contender once, in reverse order every other round. Figures are medians of the
        measured runs with [min..max]; msg/s = topic messages / run time, MB/s = JSON payload bytes
        (10^6) / run time.

        **Validation.** After every run (warmups too) the table is read back with Iceberg's generic
        reader and its row count and full-value fingerprint must equal the corpus's (computed from
        the generator while loading); bare consume's record and byte counts must equal the topic's.
        A run that fails is reported as failed and not timed.

        """,
        env.get("cpus"), env.get("cpuModel"), env.get("memTotal"), env.get("javaVm"), env.get("os"),
        env.get("loadAverageAtStart"), env.get("loadAverageAtEnd"), report.wallSeconds(), json, json,
        set.get("partitions"), set.get("partitions"), set.get("compression"), set.get("buckets"),
        ((Number) set.get("commitIntervalMs")).longValue(), ((Number) set.get("commitRecords")).longValue(),
        ((Number) set.get("warmupRounds")).intValue(), ((Number) set.get("measuredRounds")).intValue()));
    // Reports from before the option ran everything but Connect in the driver's JVM.
    md.append("own".equals(set.get("contenderJvms"))
        ? "**JVMs.** Every contender runs in a JVM of its own (-Xmx" + set.get("contenderHeap") + "; Kafka Connect: its\n"
            + "worker), started before its first run and kept across rounds; the driver only loads, orchestrates\n"
            + "and validates.\n\n"
        : "**JVMs.** floe, the stock sink and bare consume run in the driver's JVM (which also loads and\n"
            + "validates); Kafka Connect in its worker's.\n\n");

    md.append("## Corpora\n\n| corpus | events | JSON payload | average message | load time |\n|---|---|---|---|---|\n");
    for (E2eReport.Topic t : report.topics()) {
      md.append(String.format(Locale.ROOT, "| %s | %,d | %,.1f MB | %.1f B | %.1f s |%n", t.corpus(), t.events(),
          t.payloadBytes() / 1e6, t.averageMessageBytes(), t.loadSeconds()));
    }

    md.append("\n## Throughput\n\n");
    md.append("| corpus | contender | msg/s median [range] | MB/s median [range] | valid runs | floe / this |\n");
    md.append("|---|---|---|---|---|---|\n");
    for (E2eReport.Topic t : report.topics()) {
      Summary floe = report.summary(t.corpus(), "floe");
      for (String contender : report.contenders().keySet()) {
        Summary s = report.summary(t.corpus(), contender);
        if (s == null) {
          continue;
        }
        String ratio = floe != null && floe.ok() && s.ok() && !contender.equals("floe")
            ? String.format(Locale.ROOT, "%.2fx", floe.medianMessagesPerSecond() / s.medianMessagesPerSecond())
            : "";
        if (!s.ok()) {
          md.append(String.format(Locale.ROOT, "| %s | %s | **failed** | | 0 of %d | |%n", t.corpus(), contender,
              s.failedRuns()));
          continue;
        }
        md.append(String.format(Locale.ROOT, "| %s | %s | %,.0f [%,.0f..%,.0f] | %.1f [%.1f..%.1f] | %d of %d | %s |%n",
            t.corpus(), contender, s.medianMessagesPerSecond(), s.minMessagesPerSecond(), s.maxMessagesPerSecond(),
            s.medianMegabytesPerSecond(), s.minMegabytesPerSecond(), s.maxMegabytesPerSecond(), s.validRuns(),
            s.validRuns() + s.failedRuns(), ratio));
      }
    }
    md.append("\n![msg/s per contender and corpus](").append(png).append(")\n");
    md.append(cpuTable(report));


    MemoryProfile m = report.memory();
    if (m != null) {
      md.append("\n## Memory: floe's sink alone in a child JVM\n\n");
      if (!m.valid()) {
        md.append("Failed: ").append(m.failure()).append("\n");
      } else {
        md.append(String.format(Locale.ROOT, """
            `-Xmx%s`, %s, %d pass(es) over the %,d-event %s topic into one table (a fresh consumer
            group and sink per pass), %.1f s, %,.0f msg/s; the table equals the corpus %d time(s).

            | measure | value |
            |---|---|
            | peak heap in use (largest occupancy before a GC in the GC log, or sampled every 50 ms) | %.0f MiB |
            | collections | %d |
            | largest committed heap (GC log; part of the RSS) | %.0f MiB |
            | memory the JVM accounts for at the end (Native Memory Tracking, committed) | %.0f MiB |
            | last RSS sample minus that: memory the JVM does not track (native library, malloc arenas) | %.0f MiB |
            | peak RSS (VmHWM) | %.0f MiB |
            | RSS after warmup (%s): first, max, last | %.0f, %.0f, %.0f MiB (%+.1f%%) |
            | RSS samples (every %s ms) | %d |

            RSS over time (s: MiB): %s

            """, m.heapLimit(), mallocArenas(set.get("memoryMallocArenas")), m.passes(), m.events(), m.corpus(), m.seconds(), m.messagesPerSecond(), m.passes(),
            m.peakHeapMiB(), m.gcCount(), m.heapCommittedMiB(), m.jvmTrackedMiB(),
            m.rssAfterWarmupLastMiB() - m.jvmTrackedMiB(), m.peakRssMiB(), warmup(m), m.rssAfterWarmupFirstMiB(),
            m.rssAfterWarmupMaxMiB(),
            m.rssAfterWarmupLastMiB(), 100 * m.rssGrowthAfterWarmup(), set.get("memorySampleMs"),
            m.rssSamples().size(), samples(m.rssSamples())));
      }
    }

    md.append("\n## Contenders\n\n");
    report.contenders().forEach((id, what) -> md.append("- **").append(id).append("**: ").append(what).append("\n"));

    md.append("\n## Every run\n\nIn the order they ran. \"Committed\" is the time until the table held every row.\n\n");
    md.append("| corpus | round | contender | time (s) | committed (s) | msg/s | MB/s | valid | note |\n");
    md.append("|---|---|---|---|---|---|---|---|---|\n");
    for (RunResult r : report.runs()) {
      md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2f | %.2f | %,.0f | %.1f | %s | %s |%n", r.corpus(),
          r.warmup() ? "warmup" : Integer.toString(r.round()), r.contender(), r.seconds(), r.committedSeconds(),
          r.messagesPerSecond(), r.megabytesPerSecond(), r.valid() ? "yes" : "**no**: " + r.failure(),
          r.note() == null ? "" : r.note()));
    }
    if (!report.notes().isEmpty()) {
      md.append("\n## Notes\n\n");
      report.notes().forEach(n -> md.append("- ").append(n).append("\n"));
    }
    List<String> args = new ArrayList<>();
    List<?> given = (List<?>) set.get("arguments");
    for (int i = 0; i < given.size(); i++) {
      if (given.get(i).equals("--connect-classpath")) {
        i++; // the script passes its own
      } else {
        args.add(quote(given.get(i).toString()));
      }
    }
    md.append("\n## Reproduce\n\n```\nscripts/bench-e2e ").append(String.join(" ", args)).append("\n```\n");
    return md.toString();
  }

  /** Thread roles in the order the CPU table lists them. */
  private static final List<String> ROLES =
      List.of("connect-task", "main", "decode", "writer", "encode", "commit", "jit", "gc", "other", "exited", "total");

  /**
   * Medians over the measured valid runs of the core-seconds each contender's own JVM spent, by
   * thread role; empty when no run was accounted (everything in the driver's JVM, older reports).
   */
  static String cpuTable(E2eReport report) {
    List<String> roles = ROLES.stream()
        .filter(role -> report.runs().stream().anyMatch(r -> r.cpuSeconds() != null && r.cpuSeconds().containsKey(role)))
        .toList();
    if (roles.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("""

        ## CPU by thread

        Core-seconds each contender's own JVM spent per run, by thread (Linux's per-thread user +
        system time, sampled every 100 ms), median of the measured runs. `connect-task`: Connect's
        task thread (consumer poll, converters, `SinkRecord`s, the connector's `put`); `main`: the
        consumer thread of floe's sink, stock-java and bare consume; `decode`, `writer` (Parquet
        encoding and zstd), `commit`: floe's threads; `encode`: libfloe's threads encoding column
        runs for the writer threads (encoding and zstd); `exited`: threads that ended between samples;
        `total`: the whole process. The broker's CPU is not in these figures.

        """);
    md.append("| corpus | contender | ").append(String.join(" | ", roles)).append(" | µs/event |\n|---|---|");
    md.append("---|".repeat(roles.size() + 1)).append("\n");
    for (E2eReport.Topic t : report.topics()) {
      for (String contender : report.contenders().keySet()) {
        List<Map<String, Double>> cpu = report.runs().stream()
            .filter(r -> !r.warmup() && r.valid() && r.cpuSeconds() != null && r.corpus().equals(t.corpus())
                && r.contender().equals(contender))
            .map(RunResult::cpuSeconds)
            .toList();
        if (cpu.isEmpty()) {
          continue;
        }
        md.append("| ").append(t.corpus()).append(" | ").append(contender).append(" |");
        for (String role : roles) {
          md.append(String.format(Locale.ROOT, " %.2f |", medianOf(cpu, role)));
        }
        md.append(String.format(Locale.ROOT, " %.2f |%n", medianOf(cpu, "total") * 1e6 / t.events()));
      }
    }
    return md.toString();
  }

  private static double medianOf(List<Map<String, Double>> runs, String role) {
    List<Double> values = new ArrayList<>(runs.stream().map(m -> m.getOrDefault(role, 0.0)).toList());
    values.sort(null);
    return Summary.median(values);
  }

  private static String quote(String arg) {
    return arg.matches("[A-Za-z0-9_./=:,@+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
  }

  private static String samples(List<double[]> samples) {
    StringBuilder out = new StringBuilder();
    for (double[] s : samples) {
      if (!out.isEmpty()) {
        out.append(", ");
      }
      out.append(String.format(Locale.ROOT, "%.0f: %.0f", s[0], s[1]));
    }
    return out.toString();
  }

  /** What the memory run called warmup (reports before 2026-12-02 have no warmup end: 30%). */
  private static String warmup(MemoryProfile m) {
    return m.passes() > 1 && m.warmupEndSeconds() > 0
        ? String.format(Locale.ROOT, "the first pass and the second sink's first second, until %.1f s",
            m.warmupEndSeconds())
        : "the first 30% of the run";
  }

  /** How the memory child's glibc malloc was set up (reports before the setting: the default). */
  private static String mallocArenas(Object setting) {
    int arenas = setting == null ? 0 : ((Number) setting).intValue();
    return arenas > 0 ? "`MALLOC_ARENA_MAX=" + arenas + "`" : "glibc's default malloc arenas";
  }
}
