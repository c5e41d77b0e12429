package dev.floe.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The driver's options: defaults, both value forms, derived defaults, and bad command lines. */
class E2eCommandLineTest {
  @Test
  void defaultsAreTheFullBenchmark() {
    E2eOptions o = E2eOptions.defaults();
    assertEquals(2_000_000, o.nexmarkEvents());
    assertEquals(10_000_000, o.syntheticEvents());
    assertEquals(List.of(Corpus.NEXMARK, Corpus.SYNTHETIC), o.corpora());
    assertEquals(E2eOptions.ALL_CONTENDERS, o.contenders());
    assertEquals(1, o.warmup());
    assertEquals(3, o.pairs());
    assertEquals(Duration.ofSeconds(10), o.commitInterval());
    assertEquals(1_000_000, o.commitRecords());
    assertEquals("lz4", o.compression());
    assertEquals(42, o.seed());
    assertEquals(Path.of("e2e-bench/connect-worker/target/connect-worker.classpath"), o.connectClasspath());
    assertTrue(o.floeDecodeAhead() && o.ownJvms() && o.memoryRun());
    assertEquals(2, o.memoryPasses());
    assertEquals(2, o.memoryMallocArenas());
    assertEquals(Duration.ofSeconds(2_000), o.runTimeout(), "max(300, 10M events / 5,000 msg/s)");
    assertEquals(Path.of("docs/benchmarks/archive"), o.outDir());
    assertTrue(o.reportName().endsWith("-e2e"), o.reportName());
    assertFalse(o.jfr() || o.keepWork());
  }

  @Test
  void valuesComeAsNameValueOrNameThenValue() {
    E2eOptions o = E2eOptions.parse("--scale=0.1", "--contenders", "floe,BARE-consume", "--corpora=synthetic",
        "--commit-records", "2,000", "--floe-decode-ahead=false", "--contender-jvm", "driver", "--no-memory-run",
        "--pairs", "1", "--pairs", "2");
    assertEquals(200_000, o.nexmarkEvents());
    assertEquals(1_000_000, o.syntheticEvents());
    assertEquals(List.of("floe", "bare-consume"), o.contenders());
    assertEquals(List.of(Corpus.SYNTHETIC), o.corpora());
    assertEquals(2_000, o.commitRecords());
    assertFalse(o.floeDecodeAhead() || o.ownJvms() || o.memoryRun());
    assertEquals(2, o.pairs(), "a repeated option takes its last value");
    assertEquals(Duration.ofSeconds(300), o.runTimeout());
    assertEquals(List.of("--scale=0.1", "--contenders", "floe,BARE-consume", "--corpora=synthetic", "--commit-records",
        "2,000", "--floe-decode-ahead=false", "--contender-jvm", "driver", "--no-memory-run", "--pairs", "1", "--pairs",
        "2"), o.arguments(), "the report's Reproduce line repeats them");
  }

  @Test
  void explicitCountsWinOverTheScale() {
    E2eOptions o = E2eOptions.parse("--scale", "0.5", "--events", "2_000", "--run-timeout-s", "60");
    assertEquals(2_000, o.nexmarkEvents());
    assertEquals(5_000_000, o.syntheticEvents());
    assertEquals(Duration.ofSeconds(60), o.runTimeout());
  }

  @Test
  void badCommandLinesSayWhatIsWrong() {
    assertMessage("unknown contender nope", "--contenders", "floe,nope");
    assertMessage("unknown corpus tpch", "--corpora", "tpch");
    assertMessage("must be at least 1", "--events", "0");
    assertMessage("--pairs must be >= 1", "--pairs", "0");
    assertMessage("'maybe' is not a boolean", "--floe-decode-ahead", "maybe");
    assertMessage("floe-baseline needs --floe-baseline-jar", "--contenders", "floe,floe-baseline");
    assertMessage("floe-baseline needs --floe-baseline-jar", "--contenders", "floe-baseline",
        "--floe-baseline-jar", "no/such.jar");
    assertMessage("Unknown option: '--bogus'", "--bogus");
    assertMessage("Missing required parameter for option '--events'", "--events");
  }

  @Test
  void helpListsEveryOption() {
    String help = E2eCommandLine.commandLine().getUsageMessage();
    for (String option : List.of("--events", "--synthetic-events", "--scale", "--corpora", "--contenders",
        "floe-one-thread", "floe-sync-commit", "floe-two-encode-threads", "floe-baseline", "--floe-baseline-jar", "--warmup", "--pairs",
        "--commit-interval-ms", "--commit-records", "--compression", "--seed", "--connect-classpath", "--connect-tasks",
        "--floe-encode-threads", "--floe-decode-ahead", "--connect-heap", "--contender-jvm", "--contender-heap",
        "--no-memory-run", "--memory-heap", "--memory-passes", "--memory-sample-ms", "--memory-malloc-arenas", "--jfr",
        "--run-timeout-s", "--out", "--report-name", "--label", "--work-dir", "--keep-work", "--render")) {
      assertTrue(help.contains(option), option + " missing from\n" + help);
    }
  }

  private static void assertMessage(String expected, String... args) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> E2eOptions.parse(args));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
