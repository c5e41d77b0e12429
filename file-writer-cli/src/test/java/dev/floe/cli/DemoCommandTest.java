package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
  @TempDir Path dir;

  @Test
  void demoWritesTheBidsAndReportsThem() throws Exception {
    Path out = dir.resolve("bids.parquet");
    CliProcess.Result r = CliProcess.run(dir, "demo", "--bids", "20000", "--output", out.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("rows          20,000"), r.out());
    assertTrue(r.out().contains("compression   ZSTD"), r.out());
    long size = Files.size(out);
    assertTrue(r.out().contains(String.format("(%,d bytes)", size)), r.out());
    byte[] bytes = Files.readAllBytes(out);
    assertEquals("PAR1", new String(bytes, 0, 4, java.nio.charset.StandardCharsets.US_ASCII));
    assertEquals("PAR1", new String(bytes, bytes.length - 4, 4, java.nio.charset.StandardCharsets.US_ASCII));
  }

  @Test
  void helpIsThereForEveryCommand() throws Exception {
    CliProcess.Result top = CliProcess.run(dir, "--help");
    assertEquals(0, top.exitCode());
    assertTrue(top.out().contains("demo"), top.out());
    CliProcess.Result demo = CliProcess.run(dir, "demo", "--help");
    assertEquals(0, demo.exitCode());
    assertTrue(demo.out().contains("--bids"), demo.out());
  }

  @Test
  void badUsageIsOneClearLineAndExitCode2() throws Exception {
    CliProcess.Result r = CliProcess.run(dir, "demo", "--no-such-flag");
    assertEquals(FloeCli.EXIT_USAGE, r.exitCode());
    assertTrue(r.err().contains("Unknown option: '--no-such-flag'"), r.err());
  }

  @Test
  void aFailureIsOneLineOnStderrAndExitCode1() throws Exception {
    Path blocker = dir.resolve("file-not-dir");
    Files.writeString(blocker, "x");
    CliProcess.Result r =
        CliProcess.run(dir, "demo", "--bids", "10", "--output", blocker.resolve("x.parquet").toString());
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode());
    String[] lines = r.err().strip().split("\n");
    assertTrue(lines[lines.length - 1].startsWith("floe demo: "), r.err());
    assertTrue(r.err().contains("file-not-dir"), r.err());
  }
}
