package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.NexmarkGenerator;
import dev.floe.iceberg.Catalogs;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
  @TempDir Path dir;

  @Test
  void demoSinksTheCorpusThroughARealBrokerAndChecksTheTable() throws Exception {
    Path home = dir.resolve("demo");
    CliProcess.Result r = CliProcess.run(dir, "demo", "--events", "20000", "--seed", "3", "--dir", home.toString());
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("check: the table holds exactly the 20,000 input events"), r.out());
    assertTrue(r.out().contains("throughput"), r.out());

    // Read the table back here too, independently of the demo's own check.
    List<String> expected = new ArrayList<>();
    NexmarkGenerator generator = new NexmarkGenerator(3);
    for (int i = 0; i < 20_000; i++) {
      expected.add(Canonical.nexmark(generator.next()));
    }
    Catalog catalog = Catalogs.embedded(home.resolve("warehouse"));
    try {
      Table table = catalog.loadTable(TableIdentifier.of("nexmark", "events"));
      assertEquals(TableFingerprint.ofCanonical(expected), TableFingerprint.of(table));
      assertEquals("bucket[4]", table.spec().fields().getFirst().transform().toString());
    } finally {
      ((AutoCloseable) catalog).close();
    }

    assertTrue(r.out().contains("the broker's data stays in " + home.resolve("kafka")), r.out());

    // A second run starts afresh in the same directory, leaving what a user put there (the
    // README's CLI tour writes into the demo's default directory).
    Files.writeString(home.resolve("events.jsonl"), "{}\n");
    CliProcess.Result again = CliProcess.run(dir, "demo", "--events", "1000", "--dir", home.toString());
    assertEquals(0, again.exitCode(), again.out() + again.err());
    assertTrue(again.out().contains("exactly the 1,000 input events"), again.out());
    assertEquals("{}\n", Files.readString(home.resolve("events.jsonl")), "the user's file stays");
  }

  @Test
  void helpIsThereForEveryCommand() throws Exception {
    CliProcess.Result top = CliProcess.run(dir, "--help");
    assertEquals(0, top.exitCode());
    for (String command : List.of("demo", "generate", "write", "inspect", "sink")) {
      assertTrue(top.out().contains(command), top.out());
      CliProcess.Result help = CliProcess.run(dir, command, "--help");
      assertEquals(0, help.exitCode(), command);
      assertTrue(help.out().contains("Usage: floe " + command), help.out());
    }
  }

  @Test
  void badUsageIsOneClearLineAndExitCode2() throws Exception {
    CliProcess.Result r = CliProcess.run(dir, "demo", "--no-such-flag");
    assertEquals(FloeCli.EXIT_USAGE, r.exitCode());
    CliProcess.Result zero = CliProcess.run(dir, "demo", "--events", "0", "--dir", dir.resolve("z").toString());
    assertEquals(FloeCli.EXIT_USAGE, zero.exitCode(), zero.err());
    assertTrue(zero.err().contains("--events must be > 0, got 0"), zero.err());
    assertTrue(r.err().contains("Unknown option: '--no-such-flag'"), r.err());
  }

  @Test
  void aDirectoryTheDemoDidNotMakeIsLeftAlone() throws Exception {
    Path precious = dir.resolve("precious");
    Files.createDirectories(precious);
    Files.writeString(precious.resolve("notes.txt"), "keep me");
    CliProcess.Result r = CliProcess.run(dir, "demo", "--events", "10", "--dir", precious.toString());
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode());
    String[] lines = r.err().strip().split("\n");
    assertTrue(lines[lines.length - 1].startsWith("floe demo: "), r.err());
    assertTrue(r.err().contains("was not made by floe demo"), r.err());
    assertEquals("keep me", Files.readString(precious.resolve("notes.txt")));
  }
}
