package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One-line errors say what went wrong with a file, not only its path (helper-61: an unwritable
 * output folder was reported as "floe write: /tmp/rowh/.x.parquet.5036749128964361382.partial").
 * Tests run as root here, which no permission stops, so the messages are checked directly.
 */
class ErrorMessagesTest {
  @Test
  void fileErrorsSayWhatWentWrong() {
    assertEquals("cannot create warehouse /x/wh: /x/wh: permission denied",
        FloeCli.oneLine(new UncheckedIOException("cannot create warehouse /x/wh", new AccessDeniedException("/x/wh"))));
    assertEquals("/in.jsonl: no such file or directory", FloeCli.oneLine(new NoSuchFileException("/in.jsonl")));
    assertEquals("/a: Read-only file system", FloeCli.oneLine(new FileSystemException("/a", null, "Read-only file system")),
        "a reason Java gives is kept");
  }

  /** A cause without a message adds nothing to the line (helper-79, helper-89: "...: TimeoutException"). */
  @Test
  void aCauseWithoutAMessageIsLeftOut() {
    assertEquals("no answer from Kafka within 2 s",
        FloeCli.oneLine(new IllegalStateException("no answer from Kafka within 2 s", new java.util.concurrent.TimeoutException())));
    assertEquals("IllegalStateException", FloeCli.oneLine(new IllegalStateException()), "a message-less error still says what it is");
  }

  @Test
  void aMistypedCommandIsNamedWithWhatWasMeant(@TempDir Path dir) throws Exception {
    CliProcess.Result r = CliProcess.run(dir, "wrte", "--input", "x.jsonl");
    assertEquals(FloeCli.EXIT_USAGE, r.exitCode());
    assertEquals(List.of("floe: unknown command 'wrte' (did you mean write or generate?) (see 'floe --help')"), r.errLines());
  }
}
