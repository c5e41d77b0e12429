package dev.floe.bench.e2e;

import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.TableFingerprint;
import dev.floe.testing.WorkDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine;

/**
 * The end-to-end benchmark driver: starts a real KRaft broker on loopback, loads each
 * corpus once into a 4-partition topic, then runs every contender into a fresh 4-bucket v2 table
 * of the embedded catalog -- one warmup round and N measured rounds, the contenders' order
 * reversed every other round -- and checks every output against the corpus (row count and
 * fingerprint); a wrong output is a failed run, not a timed one. Optionally measures floe's heap
 * and RSS in a child JVM on the synthetic topic. Writes JSON, markdown and a PNG chart.
 *
 * <pre>
 * scripts/bench-e2e --scale 0.1          # 200k Nexmark, 1M synthetic
 * java ... dev.floe.bench.e2e.E2eBenchmark --help
 * </pre>
 */
public final class E2eBenchmark {
  static final int PARTITIONS = 4;
  static final Namespace NAMESPACE = Namespace.of("bench");

  private E2eBenchmark() {}

  public static void main(String[] args) throws Exception {
    // Kafka clients and Iceberg log every config and commit at INFO; the driver prints its own lines.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
      // "Connection to node -1 could not be established" while the broker starts, and the like.
      System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
    }
    CommandLine line = E2eCommandLine.commandLine();
    E2eOptions options;
    try {
      line.parseArgs(args);
      if (line.isUsageHelpRequested()) {
        line.usage(System.out);
        return;
      }
      options = E2eCommandLine.options(line);
    } catch (ParameterException e) {
      System.err.println("bench-e2e: " + e.getMessage() + " (see 'scripts/bench-e2e --help')");
      System.exit(2);
      return;
    }
    if (options.render() != null) {
      ReportWriter.render(options.render()).forEach(p -> System.out.println("wrote " + p));
      return;
    }
    Path work = options.workDir() != null ? options.workDir() : Files.createTempDirectory("floe-e2e-");
    List<String> notes = new ArrayList<>();
    List<Contender> contenders = contenders(options, work, notes);
    E2eReport report;
    try {
      report = run(options, contenders, work, notes);
    } finally {
      if (!options.keepWork() && options.workDir() == null) {
        WorkDirectory.deleteTree(work);
      }
    }
    List<Path> written = ReportWriter.write(report, options.outDir(), options.reportName());
    written.forEach(p -> System.out.println("wrote " + p));
    if (!report.allValid()) {
      System.err.println("some runs produced wrong output; see the report");
      System.exit(1);
    }
  }

  /**
   * The contenders the options name, in the order given, each in a JVM of its own unless the
   * options say the driver's; a missing Connect classpath leaves Connect out.
   */
  static List<Contender> contenders(E2eOptions options, Path work, List<String> notes) {
    List<Contender> out = new ArrayList<>();
    for (String id : options.contenders()) {
      if (id.equals("kafka-connect") || id.equals("floe-connect") || id.equals("connect-floor")) {
        boolean floe = id.equals("floe-connect");
        KafkaConnectContender.Connector connector = floe ? KafkaConnectContender.Connector.FLOE
            : id.equals("connect-floor") ? KafkaConnectContender.Connector.FLOOR : KafkaConnectContender.Connector.ICEBERG;
        Path plugin = E2eCommandLine.CONNECT_PLUGIN_PATH.toAbsolutePath();
        if (Files.isRegularFile(options.connectClasspath()) && (!floe || Files.isDirectory(plugin))) {
          List<String> jvm = new ArrayList<>(List.of("-Xms256m", "-Xmx" + options.connectHeap()));
          if (floe) {
            jvm.addAll(0, List.of("--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED"));
          }
          out.add(new KafkaConnectContender(work.resolve(id), options.connectClasspath(),
              connector, plugin,
              options.connectTasks(), jvm));
        } else {
          String note = id + " left out: no worker classpath file " + options.connectClasspath()
              + (floe ? " or plugin folder " + plugin : "")
              + " (the build writes them: 'mvn install -pl e2e-bench,kafka-connect -am', as scripts/bench-e2e does)";
          System.err.println(note);
          notes.add(note);
        }
        continue;
      }
      Contender local = inThisJvm(id, options.floeEncodeThreads(), options.floeDecodeAhead());
      // floe-baseline's child is floe as the baseline jar's code knows it.
      boolean baseline = id.equals(E2eOptions.FLOE_BASELINE);
      out.add(options.ownJvms()
          ? new OwnJvmContender(local,
              List.of(baseline ? "floe" : id, warehouse(work).toString(), Integer.toString(options.floeEncodeThreads()),
                  Boolean.toString(options.floeDecodeAhead())),
              baseline ? options.floeBaselineJar().toString() : null, options.contenderHeap(), work.resolve(id + ".log"))
          : local);
    }
    return out;
  }

  /** A contender that runs in this JVM: a floe variant, the stock sink or bare consume. */
  static Contender inThisJvm(String id, int floeEncodeThreads, boolean floeDecodeAhead) {
    return switch (id) {
      case "floe" -> new FloeContender("floe", floeEncodeThreads, true, floeDecodeAhead, true, false);
      case E2eOptions.FLOE_ONE_THREAD ->
          new FloeContender(E2eOptions.FLOE_ONE_THREAD, floeEncodeThreads, true, false, true, false);
      case E2eOptions.FLOE_SYNC_COMMIT ->
          new FloeContender(E2eOptions.FLOE_SYNC_COMMIT, floeEncodeThreads, true, floeDecodeAhead, false, false);
      case E2eOptions.FLOE_TWO_ENCODE_THREADS ->
          new FloeContender(E2eOptions.FLOE_TWO_ENCODE_THREADS, 2, true, floeDecodeAhead, true, false);
      case E2eOptions.FLOE_ENCODE_ON_WRITER ->
          new FloeContender(E2eOptions.FLOE_ENCODE_ON_WRITER, floeEncodeThreads, false, floeDecodeAhead, true, false);
      case E2eOptions.FLOE_EVOLVE ->
          new FloeContender(E2eOptions.FLOE_EVOLVE, floeEncodeThreads, true, floeDecodeAhead, true, true);
      case E2eOptions.FLOE_BASELINE ->
          new FloeContender(E2eOptions.FLOE_BASELINE, floeEncodeThreads, true, floeDecodeAhead, true, false);
      case "stock-java" -> new StockJavaContender();
      case "bare-consume" -> new BareConsumeContender();
      default -> throw new IllegalArgumentException("unknown contender " + id);
    };
  }

  /** The embedded catalog's warehouse of a run in {@code work}: the driver's and every child's. */
  static Path warehouse(Path work) {
    return work.resolve("warehouse");
  }

  /**
   * Runs the benchmark with the given contenders (closed at the end) in {@code work}, and returns
   * the report (not yet written).
   */
  public static E2eReport run(E2eOptions options, List<Contender> contenders, Path work, List<String> notes)
      throws Exception {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    Map<String, Object> environment = Environment.describe();
    List<E2eReport.Topic> topics = new ArrayList<>();
    List<RunResult> runs = new ArrayList<>();
    MemoryProfile memory = null;
    Path warehouse = warehouse(work);
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(work.resolve("kafka"))) {
      Catalog catalog = Catalogs.embedded(warehouse);
      try {
        ((SupportsNamespaces) catalog).createNamespace(NAMESPACE);
        for (Corpus corpus : options.corpora()) {
          long loadStart = System.nanoTime();
          log("loading %,d %s events into a %d-partition topic ...", options.events(corpus), corpus.id(), PARTITIONS);
          LoadedTopic topic = TopicLoader.load(kafka.bootstrapServers(), corpus, corpus.id(), PARTITIONS, options.events(corpus),
              options.seed(), options.compression());
          double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
          log("loaded %,d events, %,d payload bytes (%.1f B/event) in %.1f s", topic.events(),
              topic.payloadBytes(), (double) topic.payloadBytes() / topic.events(), loadSeconds);
          topics.add(new E2eReport.Topic(corpus.id(), topic.topic(), PARTITIONS, topic.events(), topic.payloadBytes(),
              (double) topic.payloadBytes() / topic.events(), loadSeconds, options.compression()));
          for (int round = -options.warmup(); round < options.pairs(); round++) {
            List<Contender> order = new ArrayList<>(contenders);
            if (Math.floorMod(round + options.warmup(), 2) == 1) {
              Collections.reverse(order);
            }
            for (Contender c : order) {
              runs.add(runOnce(c, topic, round, options, kafka.bootstrapServers(), catalog, warehouse));
            }
          }
          if (options.memoryRun() && corpus == Corpus.SYNTHETIC) {
            log("memory run: floe's sink alone in a child JVM (-Xmx%s), %d pass(es) over %,d events ...",
                options.memoryHeap(), options.memoryPasses(), topic.events());
            memory = MemoryRun.run(options, topic, kafka.bootstrapServers(), work.resolve("memory"));
            log("memory run: %s", memory.valid()
                ? String.format("peak heap %.0f MiB, peak RSS %.0f MiB, %.0f msg/s", memory.peakHeapMiB(),
                    memory.peakRssMiB(), memory.messagesPerSecond())
                : "FAILED: " + memory.failure());
          }
        }
      } finally {
        if (catalog instanceof AutoCloseable c) {
          c.close();
        }
      }
    } finally {
      for (Contender c : contenders) {
        try {
          c.close();
        } catch (Exception e) {
          notes.add("closing " + c.id() + " failed: " + e);
        }
      }
    }
    environment.put("loadAverageAtEnd", Environment.loadAverage());
    if (options.memoryRun() && !options.corpora().contains(Corpus.SYNTHETIC)) {
      notes.add("no memory run: it reads the synthetic corpus, which this run left out");
    }
    List<Summary> summaries = new ArrayList<>();
    for (Corpus corpus : options.corpora()) {
      for (Contender c : contenders) {
        summaries.add(Summary.of(corpus.id(), c.id(), runs));
      }
    }
    Map<String, String> described = new LinkedHashMap<>();
    contenders.forEach(c -> described.put(c.id(), c.description()));
    return new E2eReport(options.label(), started.toString(), (System.nanoTime() - t0) / 1e9, environment,
        settings(options), topics, described, runs, summaries, memory, List.copyOf(notes));
  }

  private static RunResult runOnce(Contender c, LoadedTopic topic, int round, E2eOptions options, String bootstrap,
      Catalog catalog, Path warehouse) {
    String tag = topic.corpus().id() + "_" + c.id().replace('-', '_') + "_" + (round < 0 ? "warmup" + (-round) : "r" + round);
    TableIdentifier table = TableIdentifier.of(NAMESPACE, tag);
    if (c.writesTable()) {
      catalog.createTable(table, topic.corpus().schema(), topic.corpus().spec(),
          Map.of(TableProperties.FORMAT_VERSION, "2"));
    }
    RunSpec spec = new RunSpec(topic, bootstrap, catalog, warehouse, table, "e2e-" + tag + "-" + System.nanoTime(),
        new RunSpec.CommitCadence(options.commitInterval(), options.commitRecords()), options.runTimeout());
    System.gc(); // start every run from a collected heap: the previous run's garbage is not its cost
    Contender.Outcome outcome = null;
    String failure = null;
    Map<String, Double> cpu = null;
    ThreadCpu threads = null;
    try {
      OptionalLong pid = c.startProcess(bootstrap);
      threads = pid.isPresent() ? ThreadCpu.start(pid.getAsLong()) : null;
      outcome = c.run(spec);
    } catch (Exception | Error e) {
      failure = "failed: " + e;
      e.printStackTrace();
    } finally {
      if (threads != null) {
        cpu = threads.stop();
      }
    }
    if (failure == null) {
      failure = c.writesTable() ? checkTable(catalog.loadTable(table), topic) : checkCounts(outcome, topic);
    }
    if (c.writesTable()) {
      try {
        catalog.dropTable(table, true); // the next run gets a fresh table; the disk stays small
      } catch (RuntimeException e) {
        System.err.println("could not drop " + table + ": " + e);
      }
    }
    double seconds = outcome == null ? Double.NaN : outcome.nanos() / 1e9;
    double committed = outcome == null ? Double.NaN : outcome.committedNanos() / 1e9;
    RunResult result = new RunResult(topic.corpus().id(), c.id(), round, seconds, committed,
        topic.events() / seconds, topic.payloadBytes() / seconds / 1e6, failure == null, failure,
        outcome == null ? null : outcome.note(), cpu == null || cpu.isEmpty() ? null : cpu);
    log("[%s %s] %-13s %7.2f s  %,10.0f msg/s  %7.1f MB/s  %s%s", topic.corpus().id(),
        round < 0 ? "warmup" : "round " + round, c.id(), seconds, result.messagesPerSecond(),
        result.megabytesPerSecond(), failure == null ? "valid" : "INVALID: " + failure,
        result.note() == null ? "" : " (" + result.note() + ")");
    if (result.cpuSeconds() != null) {
      StringBuilder line = new StringBuilder("    cpu (core-s):");
      result.cpuSeconds().forEach((role, s) -> line.append(String.format(" %s %.2f", role, s)));
      log("%s", line);
    }
    return result;
  }

  /** Null if the table holds exactly the corpus's rows, else what differs. */
  static String checkTable(Table table, LoadedTopic topic) {
    table.refresh();
    TableFingerprint actual = TableFingerprint.of(table);
    if (actual.equals(topic.expected())) {
      return null;
    }
    return actual.rows() != topic.expected().rows()
        ? "table has " + actual.rows() + " rows, the corpus " + topic.expected().rows()
        : "table has the corpus's row count but different values (fingerprint " + actual.hashSum() + " != "
            + topic.expected().hashSum() + ")";
  }

  private static String checkCounts(Contender.Outcome outcome, LoadedTopic topic) {
    // bytes < 0: the contender cannot count them (Connect's metrics count records only).
    if (outcome.records() != topic.events() || (outcome.bytes() >= 0 && outcome.bytes() != topic.payloadBytes())) {
      return "read " + outcome.records() + " records / " + outcome.bytes() + " bytes, the topic has "
          + topic.events() + " / " + topic.payloadBytes();
    }
    return null;
  }

  private static Map<String, Object> settings(E2eOptions o) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("nexmarkEvents", o.nexmarkEvents());
    s.put("syntheticEvents", o.syntheticEvents());
    s.put("corpora", o.corpora().stream().map(Corpus::id).toList());
    s.put("contenders", o.contenders());
    s.put("partitions", PARTITIONS);
    s.put("buckets", Corpus.BUCKETS);
    s.put("warmupRounds", o.warmup());
    s.put("measuredRounds", o.pairs());
    s.put("commitIntervalMs", o.commitInterval().toMillis());
    s.put("commitRecords", o.commitRecords());
    s.put("compression", o.compression());
    s.put("seed", o.seed());
    s.put("connectTasks", o.connectTasks());
    s.put("floeEncodeThreads", o.floeEncodeThreads());
    s.put("floeDecodeAhead", o.floeDecodeAhead());
    if (o.floeBaselineJar() != null) {
      s.put("floeBaselineJar", o.floeBaselineJar().toString());
    }
    s.put("connectHeap", o.connectHeap());
    s.put("contenderJvms", o.ownJvms() ? "own" : "driver");
    s.put("contenderHeap", o.contenderHeap());
    s.put("memoryRun", o.memoryRun());
    s.put("memoryHeap", o.memoryHeap());
    s.put("memoryPasses", o.memoryPasses());
    s.put("memorySampleMs", o.memorySample().toMillis());
    s.put("memoryMallocArenas", o.memoryMallocArenas());
    s.put("runTimeoutS", o.runTimeout().toSeconds());
    s.put("arguments", o.arguments());
    return s;
  }

  static void log(String format, Object... args) {
    System.out.println(String.format(format, args));
    System.out.flush();
  }
}
