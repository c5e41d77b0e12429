package dev.floe.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The driver's settings, from command-line options ({@link #parse}); {@link #help()} lists them.
 *
 * @param nexmarkEvents Nexmark events in the Nexmark topic
 * @param syntheticEvents synthetic events in the synthetic topic
 * @param corpora the corpora to run, in order
 * @param contenders contender ids to run (floe, stock-java, kafka-connect, bare-consume)
 * @param warmup warmup rounds per corpus (every contender once; not reported in the medians)
 * @param pairs measured rounds per corpus (every contender once, alternating order)
 * @param commitInterval commit at least this often (all contenders)
 * @param commitRecords ... or after this many records (floe and the stock sink)
 * @param compression the producer's compression of the loaded topics
 * @param seed the corpus generators' seed
 * @param connectClasspath the Kafka Connect worker's classpath file
 * @param connectTasks the Kafka Connect sink's tasks.max
 * @param floeEncodeThreads floe's encode threads per table ({@code SinkConfig.Builder#encodeThreads})
 * @param floeDecodeAhead floe decodes on a thread of its own per table ({@code
 *     SinkConfig.Builder#decodeAhead})
 * @param connectHeap the Connect worker's -Xmx
 * @param ownJvms whether floe, the stock sink and bare consume each run in a JVM of their own, kept
 *     across rounds (as Kafka Connect always does), rather than in the driver's
 * @param contenderHeap those JVMs' -Xmx
 * @param memoryRun whether to measure floe's heap and RSS in a child JVM on the synthetic topic
 * @param memoryHeap the child's -Xmx
 * @param memoryPasses how many times the child reads the whole topic (a fresh group each time);
 *     with more than one, the first pass is the warmup that RSS flatness leaves out
 * @param memorySample how often the child's RSS is sampled
 * @param memoryMallocArenas the child's MALLOC_ARENA_MAX (0: glibc's default, unset)
 * @param jfr record a JFR profile of the memory child (floe's sink alone)
 * @param runTimeout how long one contender run may take
 * @param outDir where the report goes
 * @param reportName the report's file name without extension
 * @param label a line the report shows first (e.g. that the run is reduced)
 * @param workDir where brokers, warehouses and logs go (a temp folder if null)
 * @param keepWork keep {@code workDir} afterwards
 * @param render a report's JSON to write again as markdown and PNG (no benchmark runs), or null
 * @param arguments the command line these options came from
 */
public record E2eOptions(
    long nexmarkEvents,
    long syntheticEvents,
    List<Corpus> corpora,
    List<String> contenders,
    int warmup,
    int pairs,
    Duration commitInterval,
    long commitRecords,
    String compression,
    long seed,
    Path connectClasspath,
    int connectTasks,
    int floeEncodeThreads,
    boolean floeDecodeAhead,
    String connectHeap,
    boolean ownJvms,
    String contenderHeap,
    boolean memoryRun,
    String memoryHeap,
    int memoryPasses,
    Duration memorySample,
    int memoryMallocArenas,
    boolean jfr,
    Duration runTimeout,
    Path outDir,
    String reportName,
    String label,
    Path workDir,
    boolean keepWork,
    Path render,
    List<String> arguments) {

  public static final List<String> ALL_CONTENDERS = List.of("floe", "stock-java", "kafka-connect", "bare-consume");
  /** Run only when named: floe without its decode thread, to measure what that thread is worth. */
  public static final String FLOE_ONE_THREAD = "floe-one-thread";
  /** Run only when named: floe pausing its consumer while each cycle commits (no overlap). */
  public static final String FLOE_SYNC_COMMIT = "floe-sync-commit";
  /** Run only when named: floe encoding each file's columns on two threads (an A/B of encodeThreads). */
  public static final String FLOE_TWO_ENCODE_THREADS = "floe-two-encode-threads";
  private static final List<String> FLOE_VARIANTS =
      List.of(FLOE_ONE_THREAD, FLOE_SYNC_COMMIT, FLOE_TWO_ENCODE_THREADS);
  static final long DEFAULT_NEXMARK = 2_000_000;
  static final long DEFAULT_SYNTHETIC = 10_000_000;

  public long events(Corpus corpus) {
    return corpus == Corpus.NEXMARK ? nexmarkEvents : syntheticEvents;
  }

  /** The defaults of the full benchmark (issue 5): 2M Nexmark, 10M synthetic, 1 warmup, 3 pairs. */
  public static E2eOptions defaults() {
    return parse(new String[0]);
  }

  public static E2eOptions parse(String[] args) {
    Long nexmark = null;
    Long synthetic = null;
    double scale = 1.0;
    List<Corpus> corpora = List.of(Corpus.NEXMARK, Corpus.SYNTHETIC);
    List<String> contenders = ALL_CONTENDERS;
    int warmup = 1;
    int pairs = 3;
    Duration interval = Duration.ofSeconds(10);
    long records = 1_000_000;
    String compression = "lz4";
    long seed = 42;
    Path connectClasspath = Path.of("microbench/kafka-connect/target/connect-worker.classpath");
    int connectTasks = 1;
    int floeEncodeThreads = 1;
    boolean floeDecodeAhead = true;
    String connectHeap = "2g";
    boolean ownJvms = true;
    String contenderHeap = "2g";
    boolean memoryRun = true;
    String memoryHeap = "512m";
    int memoryPasses = 2;
    Duration memorySample = Duration.ofSeconds(1);
    int memoryMallocArenas = 2;
    boolean jfr = false;
    Duration runTimeout = null;
    Path outDir = Path.of("docs/benchmarks");
    String reportName = LocalDate.now(ZoneOffset.UTC) + "-e2e";
    String label = null;
    Path workDir = null;
    boolean keepWork = false;
    Path render = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        value = arg.substring(eq + 1);
        arg = arg.substring(0, eq);
      }
      switch (arg) {
        case "--no-memory-run" -> memoryRun = false;
        case "--jfr" -> jfr = true;
        case "--keep-work" -> keepWork = true;
        case "-h", "--help" -> throw new UsageException(help());
        default -> {
          if (value == null) {
            if (i + 1 >= args.length) {
              throw new UsageException("option " + arg + " needs a value\n\n" + help());
            }
            value = args[++i];
          }
          switch (arg) {
            case "--events" -> nexmark = count(arg, value);
            case "--synthetic-events" -> synthetic = count(arg, value);
            case "--scale" -> scale = Double.parseDouble(value);
            case "--corpora" -> corpora = Arrays.stream(value.split(",")).map(Corpus::of).toList();
            case "--contenders" -> contenders = contenders(value);
            case "--warmup" -> warmup = Integer.parseInt(value);
            case "--pairs" -> pairs = Integer.parseInt(value);
            case "--commit-interval-ms" -> interval = Duration.ofMillis(Long.parseLong(value));
            case "--commit-records" -> records = count(arg, value);
            case "--compression" -> compression = value;
            case "--seed" -> seed = Long.parseLong(value);
            case "--connect-classpath" -> connectClasspath = Path.of(value);
            case "--connect-tasks" -> connectTasks = Integer.parseInt(value);
            case "--floe-encode-threads" -> floeEncodeThreads = Integer.parseInt(value);
            case "--floe-decode-ahead" -> floeDecodeAhead = bool(arg, value);
            case "--connect-heap" -> connectHeap = value;
            case "--contender-jvm" -> ownJvms = switch (value) {
              case "own" -> true;
              case "driver" -> false;
              default -> throw new UsageException(arg + " takes own or driver, got " + value);
            };
            case "--contender-heap" -> contenderHeap = value;
            case "--memory-heap" -> memoryHeap = value;
            case "--memory-passes" -> memoryPasses = Integer.parseInt(value);
            case "--memory-sample-ms" -> memorySample = Duration.ofMillis(Long.parseLong(value));
            case "--memory-malloc-arenas" -> memoryMallocArenas = Integer.parseInt(value);
            case "--run-timeout-s" -> runTimeout = Duration.ofSeconds(Long.parseLong(value));
            case "--out" -> outDir = Path.of(value);
            case "--report-name" -> reportName = value;
            case "--label" -> label = value;
            case "--work-dir" -> workDir = Path.of(value);
            case "--render" -> render = Path.of(value);
            default -> throw new UsageException("unknown option " + arg + "\n\n" + help());
          }
        }
      }
    }
    long nexmarkEvents = nexmark != null ? nexmark : Math.round(DEFAULT_NEXMARK * scale);
    long syntheticEvents = synthetic != null ? synthetic : Math.round(DEFAULT_SYNTHETIC * scale);
    if (runTimeout == null) {
      // Generous: a contender at 5,000 msg/s still finishes; a hung one is given up.
      runTimeout = Duration.ofSeconds(Math.max(300, Math.max(nexmarkEvents, syntheticEvents) / 5_000));
    }
    if (pairs < 1 || warmup < 0 || memoryPasses < 1 || floeEncodeThreads < 1) {
      throw new UsageException("--pairs must be >= 1, --warmup >= 0, --memory-passes >= 1, --floe-encode-threads >= 1");
    }
    return new E2eOptions(nexmarkEvents, syntheticEvents, corpora, contenders, warmup, pairs, interval, records,
        compression, seed, connectClasspath, connectTasks, floeEncodeThreads, floeDecodeAhead, connectHeap, ownJvms, contenderHeap, memoryRun, memoryHeap, memoryPasses,
        memorySample, memoryMallocArenas, jfr, runTimeout, outDir, reportName, label, workDir, keepWork, render, List.of(args));
  }

  private static long count(String option, String value) {
    long n = Long.parseLong(value.replace("_", "").replace(",", ""));
    if (n < 1) {
      throw new UsageException(option + " must be at least 1");
    }
    return n;
  }

  private static boolean bool(String option, String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new UsageException(option + " takes true or false, got " + value);
    };
  }

  private static List<String> contenders(String value) {
    List<String> out = new ArrayList<>();
    for (String id : value.split(",")) {
      String c = id.trim().toLowerCase(Locale.ROOT);
      if (!ALL_CONTENDERS.contains(c) && !FLOE_VARIANTS.contains(c)) {
        throw new UsageException(
            "unknown contender " + c + "; known: " + ALL_CONTENDERS + " and " + FLOE_VARIANTS);
      }
      out.add(c);
    }
    return List.copyOf(out);
  }

  static String help() {
    return """
        Usage: E2eBenchmark [options]
        Kafka -> Iceberg end to end on a local broker: floe vs a stock Java sink vs Apache Iceberg's
        Kafka Connect sink vs bare consume, each into a fresh 4-bucket v2 table; outputs validated.

          --events N              Nexmark events (default 2,000,000 x scale)
          --synthetic-events N    ~142-byte synthetic events (default 10,000,000 x scale)
          --scale F               scale both defaults (e.g. 0.1)
          --corpora LIST          nexmark,synthetic (default both)
          --contenders LIST       floe,stock-java,kafka-connect,bare-consume (default all), and
                                  floe-one-thread: floe decoding on its writer thread,
                                  floe-sync-commit: floe not consuming while a cycle commits,
                                  floe-two-encode-threads: floe with --floe-encode-threads 2
          --warmup N              warmup rounds per corpus (default 1)
          --pairs N               measured rounds per corpus, alternating order (default 3)
          --commit-interval-ms N  commit interval of every contender (default 10000)
          --commit-records N      ... or every N records, floe and stock-java (default 1,000,000)
          --compression C         producer compression of the topics: lz4, none, zstd, ... (default lz4)
          --seed N                corpus seed (default 42)
          --connect-classpath F   Connect worker classpath file
                                  (default microbench/kafka-connect/target/connect-worker.classpath)
          --connect-tasks N       the Kafka Connect sink's tasks.max (default 1)
          --floe-encode-threads N floe's threads encoding each file's columns (default 1)
          --floe-decode-ahead B   floe decodes on a thread of its own per table: true|false
                                  (default true)
          --connect-heap SIZE     the Connect worker's -Xmx (default 2g)
          --contender-jvm WHERE   own: floe, stock-java and bare-consume each in a JVM of its own,
                                  kept across rounds, as Connect's worker is (default);
                                  driver: all three in the driver's JVM
          --contender-heap SIZE   those JVMs' -Xmx (default 2g)
          --no-memory-run         skip floe's heap/RSS run in a child JVM on the synthetic topic
          --memory-heap SIZE      that child's -Xmx (default 512m)
          --memory-passes N       times the child reads the whole topic, a new sink each time
                                  (default 2: the first is the warmup; RSS must be flat from
                                  a second into the second pass to the end)
          --memory-sample-ms N    RSS sampling period (default 1000)
          --memory-malloc-arenas N the child's MALLOC_ARENA_MAX (default 2, as scripts/floe;
                                  0 leaves glibc's default)
          --jfr                   record a JFR profile of the memory child (in the work dir)
          --run-timeout-s N       give up a contender run after N s (default max(300, events/5000))
          --out DIR               report folder (default docs/benchmarks)
          --report-name NAME      report file name without extension (default <date>-e2e)
          --label TEXT            a line shown first in the report (e.g. reduced run, busy machine)
          --work-dir DIR          brokers, warehouses and logs (default a temp folder, deleted)
          --keep-work             keep the work folder
          --render FILE.json      only write a report's markdown and PNG again from its JSON
                                  (next to it), e.g. after changing the report's layout
        """;
  }

  /** A bad command line: the message says what and lists the options. */
  public static final class UsageException extends IllegalArgumentException {
    public UsageException(String message) {
      super(message);
    }
  }
}
