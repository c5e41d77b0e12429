package dev.floe.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code floe} as a separate JVM, as users do (with scripts/floe's JVM flags), and captures
 * what it printed. The captures live outside {@code workDir}, so tests can check that a run left
 * nothing behind there.
 */
final class CliProcess {
  record Result(int exitCode, String out, String err) {
    /** stderr's non-empty lines. */
    List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  private CliProcess() {}

  static Result run(Path workDir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow"); // as scripts/floe: Arrow's Unsafe use, quietly
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(FloeCli.class.getName());
    command.addAll(List.of(args));
    Path captures = Files.createTempDirectory("floe-cli-process");
    Path stdout = captures.resolve("stdout.txt");
    Path stderr = captures.resolve("stderr.txt");
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .redirectOutput(stdout.toFile())
              .redirectError(stderr.toFile())
              .start();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError("floe " + String.join(" ", args) + " did not finish in 5 minutes");
      }
      return new Result(
          p.exitValue(),
          Files.readString(stdout, StandardCharsets.UTF_8),
          Files.readString(stderr, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(stdout);
      Files.deleteIfExists(stderr);
      Files.deleteIfExists(captures);
    }
  }
}
