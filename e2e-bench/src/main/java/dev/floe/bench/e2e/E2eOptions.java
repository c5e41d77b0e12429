package dev.floe.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The driver's settings, from command-line options ({@link #parse}; {@link E2eCommandLine} lists them).
 *
 * @param nexmarkEvents Nexmark events in the Nexmark topic
 * @param syntheticEvents synthetic events in the synthetic topic
 * @param corpora the corpora to run, in order
 * @param contenders contender ids to run (floe, stock-java, kafka-connect, floe-connect, bare-consume, connect-floor)
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
 *     with more than one, the first pass is the warmup that the reported RSS growth leaves out
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
    Path floeBaselineJar,
    List<String> arguments) {

  public static final List<String> ALL_CONTENDERS =
      List.of("floe", "stock-java", "kafka-connect", "floe-connect", "connect-floor", "bare-consume");
  /** Run only when named: floe without its decode thread, to measure what that thread is worth. */
  public static final String FLOE_ONE_THREAD = "floe-one-thread";
  /** Run only when named: floe pausing its consumer while each cycle commits (no overlap). */
  public static final String FLOE_SYNC_COMMIT = "floe-sync-commit";
  /** Run only when named: floe encoding each file's columns on two threads (an A/B of encodeThreads). */
  public static final String FLOE_TWO_ENCODE_THREADS = "floe-two-encode-threads";
  /** Run only when named: floe encoding column runs on its writer thread (an A/B of encode.ahead). */
  public static final String FLOE_ENCODE_ON_WRITER = "floe-encode-on-writer";
  /** Run only when named: floe with evolve.schema on (its cost when the data brings no new fields). */
  public static final String FLOE_EVOLVE = "floe-evolve";
  /**
   * Run only when named: floe as another commit built it ({@code --floe-baseline-jar}, an e2e-bench
   * jar with its own libfloe), so a change is measured against the code before it in the same
   * rounds, through the same hour's noise.
   */
  public static final String FLOE_BASELINE = "floe-baseline";
  static final List<String> FLOE_VARIANTS =
      List.of(FLOE_ONE_THREAD, FLOE_SYNC_COMMIT, FLOE_TWO_ENCODE_THREADS, FLOE_ENCODE_ON_WRITER, FLOE_EVOLVE,
          FLOE_BASELINE);

  public long events(Corpus corpus) {
    return corpus == Corpus.NEXMARK ? nexmarkEvents : syntheticEvents;
  }

  /** The defaults of the full benchmark: 2M Nexmark, 10M synthetic, 1 warmup, 3 pairs. */
  public static E2eOptions defaults() {
    return parse();
  }

  /**
   * The options a command line gives ({@link E2eCommandLine} lists them).
   *
   * @throws IllegalArgumentException for a bad command line, saying what is wrong
   */
  public static E2eOptions parse(String... args) {
    try {
      CommandLine line = E2eCommandLine.commandLine();
      line.parseArgs(args);
      return E2eCommandLine.options(line);
    } catch (ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
