package dev.floe.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code floe} as a separate JVM, as users do, and captures what it printed. */
final class CliProcess {
  record Result(int exitCode, String out, String err) {}

  private CliProcess() {}

  static Result run(Path workDir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(FloeCli.class.getName());
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectOutput(workDir.resolve("stdout.txt").toFile())
            .redirectError(workDir.resolve("stderr.txt").toFile())
            .start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("floe " + String.join(" ", args) + " did not finish in 5 minutes");
    }
    return new Result(
        p.exitValue(),
        java.nio.file.Files.readString(workDir.resolve("stdout.txt"), StandardCharsets.UTF_8),
        java.nio.file.Files.readString(workDir.resolve("stderr.txt"), StandardCharsets.UTF_8));
  }
}
