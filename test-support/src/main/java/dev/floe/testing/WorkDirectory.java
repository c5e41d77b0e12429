package dev.floe.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A benchmark's scratch directory (its broker's log, its warehouse): created under the system's
 * temporary directory and deleted with everything in it when closed, so a run does not leave the
 * corpus's copy (hundreds of MB) behind.
 */
public final class WorkDirectory implements AutoCloseable {
  private final Path path;

  private WorkDirectory(Path path) {
    this.path = path;
  }

  /** A new empty directory whose name starts with {@code prefix}. */
  public static WorkDirectory create(String prefix) throws IOException {
    return new WorkDirectory(Files.createTempDirectory(prefix));
  }

  public Path path() {
    return path;
  }

  /** Deletes the directory and everything in it. */
  @Override
  public void close() {
    deleteTree(path);
  }

  /** Deletes {@code root} and everything under it; nothing if it does not exist. */
  public static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
