package dev.floe.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * The pid of the broker running in a data directory. A pid alone can be reused by an unrelated
 * process after a crash, so a live process only counts when its command line carries the
 * {@link #marker marker} of that directory.
 */
final class BrokerPidFile {
  private BrokerPidFile() {}

  /** The JVM system property that tags a broker process with its data directory. */
  static String marker(BrokerFiles files) {
    return "-Dfloe.kafka.dir=" + files.dir();
  }

  static void write(BrokerFiles files, long pid) {
    try {
      Files.writeString(files.pidFile(), pid + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + files.pidFile(), e);
    }
  }

  static void delete(BrokerFiles files) {
    try {
      Files.deleteIfExists(files.pidFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + files.pidFile(), e);
    }
  }

  /** The live broker process of this directory, if there is one. */
  static Optional<ProcessHandle> liveBroker(BrokerFiles files) {
    Path file = files.pidFile();
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    long pid;
    try {
      pid = Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).strip());
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
    String marker = marker(files);
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(
            process ->
                process
                    .info()
                    .arguments()
                    .map(args -> Arrays.asList(args).contains(marker))
                    // Where the OS hides other processes' arguments, trust the pid.
                    .orElse(true));
  }
}
