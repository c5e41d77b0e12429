package dev.floe.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
    try (Running running = start(workDir, args)) {
      return running.await(Duration.ofMinutes(5));
    }
  }

  /** Starts {@code floe} with {@code args}, for a test that signals it while it runs. */
  static Running start(Path workDir, String... args) throws IOException {
    Path captures = Files.createTempDirectory("floe-cli-process");
    Path stdout = captures.resolve("stdout.txt");
    Path stderr = captures.resolve("stderr.txt");
    Process p =
        new ProcessBuilder(command(args))
            .directory(workDir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    return new Running(p, String.join(" ", args), captures, stdout, stderr);
  }

  /** A running {@code floe}; closing it kills the process if it still runs and deletes the captures. */
  static final class Running implements AutoCloseable {
    private final Process process;
    private final String args;
    private final Path captures;
    private final Path stdout;
    private final Path stderr;

    private Running(Process process, String args, Path captures, Path stdout, Path stderr) {
      this.process = process;
      this.args = args;
      this.captures = captures;
      this.stdout = stdout;
      this.stderr = stderr;
    }

    /** Waits until stdout holds {@code text}, failing if the process ends first or {@code timeout} passes. */
    void awaitOut(String text, Duration timeout) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!Files.readString(stdout, StandardCharsets.UTF_8).contains(text)) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new AssertionError("floe " + args + " printed no '" + text + "'; out: "
              + Files.readString(stdout, StandardCharsets.UTF_8) + " err: " + Files.readString(stderr, StandardCharsets.UTF_8));
        }
        Thread.sleep(100);
      }
    }

    /** Sends SIGTERM, as {@code kill} does. */
    void terminate() {
      process.destroy();
    }

    /** Sends the signal named ({@code HUP}, {@code INT}) with {@code kill}. */
    void signal(String name) throws IOException, InterruptedException {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
      }
    }

    Result await(Duration timeout) throws IOException, InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("floe " + args + " did not finish in " + timeout);
      }
      return new Result(
          process.exitValue(),
          Files.readString(stdout, StandardCharsets.UTF_8),
          Files.readString(stderr, StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws IOException {
      process.destroyForcibly();
      Files.deleteIfExists(stdout);
      Files.deleteIfExists(stderr);
      Files.deleteIfExists(captures);
    }
  }

  private static List<String> command(String... args) {
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
    return command;
  }
}
