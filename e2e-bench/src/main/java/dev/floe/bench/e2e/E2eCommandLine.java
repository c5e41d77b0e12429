package dev.floe.bench.e2e;

import dev.floe.testing.ReportNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine;

/**
 * The driver's command line ({@code scripts/bench-e2e}, which passes {@code --connect-classpath}
 * itself): every option with its default and meaning. {@link #options} turns a parsed line into
 * {@link E2eOptions}; defaults that depend on other options (event counts, the run timeout, the
 * report's name) are worked out there.
 */
@Command(
    name = "scripts/bench-e2e",
    abbreviateSynopsis = true,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Kafka -> Iceberg end to end on a local broker: floe vs a stock Java sink vs Apache Iceberg's Kafka"
          + " Connect sink vs bare consume, each into a fresh 4-bucket v2 table; outputs validated.",
      ""
    })
final class E2eCommandLine {
  /** The defaults of the full benchmark: 2M Nexmark and 10M synthetic events. */
  static final long DEFAULT_NEXMARK = 2_000_000;
  static final long DEFAULT_SYNTHETIC = 10_000_000;
  /** Where the build writes the Kafka Connect worker's classpath (module e2e-bench/connect-worker). */
  static final String DEFAULT_CONNECT_CLASSPATH = "e2e-bench/connect-worker/target/connect-worker.classpath";
  /** Where the build of kafka-connect puts floe's connector as a worker plugin.path. */
  static final Path CONNECT_PLUGIN_PATH = Path.of("kafka-connect/target/connect-plugin");

  /** How the other contenders run: each in a JVM of its own, or all in the driver's. */
  enum ContenderJvm {
    own,
    driver
  }

  @Spec CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
  boolean help;

  @Option(names = "--events", paramLabel = "N", converter = Count.class,
      description = "Nexmark events (default 2,000,000 x scale)")
  Long nexmarkEvents;

  @Option(names = "--synthetic-events", paramLabel = "N", converter = Count.class,
      description = "~142-byte synthetic events (default 10,000,000 x scale)")
  Long syntheticEvents;

  @Option(names = "--scale", paramLabel = "F", defaultValue = "1.0", description = "scale both defaults (e.g. 0.1)")
  double scale;

  @Option(names = "--corpora", paramLabel = "LIST", split = ",", converter = CorpusName.class,
      defaultValue = "nexmark,synthetic", description = "nexmark,synthetic (default both)")
  List<Corpus> corpora;

  @Option(names = "--contenders", paramLabel = "LIST", split = ",", converter = ContenderId.class,
      defaultValue = "floe,stock-java,kafka-connect,floe-connect,connect-floor,bare-consume",
      description = {
        "floe,stock-java,kafka-connect,floe-connect,connect-floor,bare-consume (default all),%n"
            + "where connect-floor is a Connect sink that drops every record (the worker's own cost), and%n"
            + "floe-one-thread: floe decoding on its writer thread,%n"
            + "floe-sync-commit: floe not consuming while a cycle commits,%n"
            + "floe-two-encode-threads: floe with --floe-encode-threads 2,%n"
            + "floe-encode-on-writer: floe with encode.ahead off (column runs encoded on the writer thread),%n"
            + "floe-evolve: floe with evolve.schema on,%n"
            + "floe-baseline: floe from the jar --floe-baseline-jar names"
      })
  List<String> contenders;

  @Option(names = "--warmup", paramLabel = "N", defaultValue = "1",
      description = "warmup rounds per corpus (default ${DEFAULT-VALUE})")
  int warmup;

  @Option(names = "--pairs", paramLabel = "N", defaultValue = "3",
      description = "measured rounds per corpus, alternating order (default ${DEFAULT-VALUE})")
  int pairs;

  @Option(names = "--commit-interval-ms", paramLabel = "N", defaultValue = "10000",
      description = "commit interval of every contender (default ${DEFAULT-VALUE})")
  long commitIntervalMs;

  @Option(names = "--commit-records", paramLabel = "N", converter = Count.class, defaultValue = "1000000",
      description = "... or every N records, floe and stock-java (default 1,000,000)")
  long commitRecords;

  @Option(names = "--compression", paramLabel = "C", defaultValue = "lz4",
      description = "producer compression of the topics: lz4, none, zstd, ... (default ${DEFAULT-VALUE})")
  String compression;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "corpus seed (default ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--connect-classpath", paramLabel = "F", defaultValue = DEFAULT_CONNECT_CLASSPATH,
      description = "Connect worker classpath file, written by the build%n(default ${DEFAULT-VALUE})")
  Path connectClasspath;

  @Option(names = "--connect-tasks", paramLabel = "N", defaultValue = "1",
      description = "the Kafka Connect sink's tasks.max (default ${DEFAULT-VALUE})")
  int connectTasks;

  @Option(names = "--floe-encode-threads", paramLabel = "N", defaultValue = "1",
      description = "floe's threads encoding each file's columns (default ${DEFAULT-VALUE})")
  int floeEncodeThreads;

  @Option(names = "--floe-decode-ahead", paramLabel = "B", arity = "1", defaultValue = "true",
      description = "floe decodes on a thread of its own per table: true|false (default ${DEFAULT-VALUE})")
  boolean floeDecodeAhead;

  @Option(names = "--floe-baseline-jar", paramLabel = "FILE",
      description = "the e2e-bench jar floe-baseline runs floe from (built at the commit before a change)")
  Path floeBaselineJar;

  @Option(names = "--connect-heap", paramLabel = "SIZE", defaultValue = "2g",
      description = "the Connect worker's -Xmx (default ${DEFAULT-VALUE})")
  String connectHeap;

  @Option(names = "--contender-jvm", paramLabel = "WHERE", defaultValue = "own",
      description = {
        "own: floe, stock-java and bare-consume each in a JVM of its own, kept across rounds, as Connect's"
            + " worker is (default);%n"
            + "driver: all three in the driver's JVM"
      })
  ContenderJvm contenderJvm;

  @Option(names = "--contender-heap", paramLabel = "SIZE", defaultValue = "2g",
      description = "those JVMs' -Xmx (default ${DEFAULT-VALUE})")
  String contenderHeap;

  @Option(names = "--no-memory-run",
      description = "skip floe's heap/RSS run in a child JVM on the synthetic topic")
  boolean noMemoryRun;

  @Option(names = "--memory-heap", paramLabel = "SIZE", defaultValue = "512m",
      description = "that child's -Xmx (default ${DEFAULT-VALUE})")
  String memoryHeap;

  @Option(names = "--memory-passes", paramLabel = "N", defaultValue = "2",
      description = "times the child reads the whole topic, a new sink each time (default ${DEFAULT-VALUE}: the"
          + " first is the warmup; RSS growth is reported from a second into the second pass to the end)")
  int memoryPasses;

  @Option(names = "--memory-sample-ms", paramLabel = "N", defaultValue = "1000",
      description = "RSS sampling period (default ${DEFAULT-VALUE})")
  long memorySampleMs;

  @Option(names = "--memory-malloc-arenas", paramLabel = "N", defaultValue = "2",
      description = "the child's MALLOC_ARENA_MAX (default ${DEFAULT-VALUE}, as scripts/floe; 0 leaves glibc's default)")
  int memoryMallocArenas;

  @Option(names = "--jfr", description = "record a JFR profile of the memory child (in the work dir)")
  boolean jfr;

  @Option(names = "--run-timeout-s", paramLabel = "N",
      description = "give up a contender run after N s (default max(300, events/5000))")
  Long runTimeoutSeconds;

  @Option(names = "--out", paramLabel = "DIR", defaultValue = "docs/benchmarks/archive",
      description = "report folder (default ${DEFAULT-VALUE}, where dated reports are kept)")
  Path outDir;

  @Option(names = "--report-name", paramLabel = "NAME",
      description = "report file name without extension (default <date>-e2e)")
  String reportName;

  @Option(names = "--label", paramLabel = "TEXT",
      description = "a line shown first in the report (e.g. reduced run, busy machine)")
  String label;

  @Option(names = "--work-dir", paramLabel = "DIR",
      description = "brokers, warehouses and logs (default a temp folder, deleted)")
  Path workDir;

  @Option(names = "--keep-work", description = "keep the work folder")
  boolean keepWork;

  @Option(names = "--render", paramLabel = "FILE.json",
      description = "only write a report's markdown and PNG again from its JSON (next to it), e.g. after"
          + " changing the report's layout")
  Path render;

  /** A command line for one parse; a repeated option takes its last value. */
  static CommandLine commandLine() {
    return new CommandLine(new E2eCommandLine()).setOverwrittenOptionsAllowed(true);
  }

  /**
   * The options of a parsed command line (one {@link CommandLine#parseArgs} of {@link #commandLine()}).
   *
   * @throws ParameterException for values that do not go together
   */
  static E2eOptions options(CommandLine parsed) {
    return ((E2eCommandLine) parsed.getCommand()).options(parsed.getParseResult().originalArgs());
  }

  private E2eOptions options(List<String> arguments) {
    if (pairs < 1 || warmup < 0 || memoryPasses < 1 || floeEncodeThreads < 1) {
      throw new ParameterException(spec.commandLine(),
          "--pairs must be >= 1, --warmup >= 0, --memory-passes >= 1, --floe-encode-threads >= 1");
    }
    if (contenders.contains(E2eOptions.FLOE_BASELINE)
        && (floeBaselineJar == null || !Files.isRegularFile(floeBaselineJar) || contenderJvm != ContenderJvm.own)) {
      throw new ParameterException(spec.commandLine(),
          "floe-baseline needs --floe-baseline-jar naming an existing file, and contenders in JVMs of their own");
    }
    long nexmark = nexmarkEvents != null ? nexmarkEvents : Math.round(DEFAULT_NEXMARK * scale);
    long synthetic = syntheticEvents != null ? syntheticEvents : Math.round(DEFAULT_SYNTHETIC * scale);
    // Generous: a contender at 5,000 msg/s still finishes; a hung one is given up.
    Duration runTimeout = Duration.ofSeconds(
        runTimeoutSeconds != null ? runTimeoutSeconds : Math.max(300, Math.max(nexmark, synthetic) / 5_000));
    String name = reportName != null ? reportName : ReportNames.today(outDir, "e2e");
    return new E2eOptions(nexmark, synthetic, List.copyOf(corpora), List.copyOf(contenders), warmup, pairs,
        Duration.ofMillis(commitIntervalMs), commitRecords, compression, seed, connectClasspath, connectTasks,
        floeEncodeThreads, floeDecodeAhead, connectHeap, contenderJvm == ContenderJvm.own, contenderHeap,
        !noMemoryRun, memoryHeap, memoryPasses, Duration.ofMillis(memorySampleMs), memoryMallocArenas, jfr,
        runTimeout, outDir, name, label, workDir, keepWork, render,
        floeBaselineJar == null ? null : floeBaselineJar.toAbsolutePath(), List.copyOf(arguments));
  }

  /** An event or record count: at least 1; {@code _} and {@code ,} may group digits (2,000,000). */
  static final class Count implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      long n = Long.parseLong(value.replace("_", "").replace(",", ""));
      if (n < 1) {
        throw new TypeConversionException("must be at least 1, got " + value);
      }
      return n;
    }
  }

  static final class CorpusName implements ITypeConverter<Corpus> {
    @Override
    public Corpus convert(String value) {
      try {
        return Corpus.of(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("unknown corpus " + value + "; known: nexmark, synthetic");
      }
    }
  }

  static final class ContenderId implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      String id = value.trim().toLowerCase(Locale.ROOT);
      if (!E2eOptions.ALL_CONTENDERS.contains(id) && !E2eOptions.FLOE_VARIANTS.contains(id)) {
        throw new TypeConversionException(
            "unknown contender " + id + "; known: " + E2eOptions.ALL_CONTENDERS + " and " + E2eOptions.FLOE_VARIANTS);
      }
      return id;
    }
  }
}
