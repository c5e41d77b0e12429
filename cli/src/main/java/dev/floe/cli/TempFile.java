package dev.floe.cli;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A hidden {@code .NAME.*.partial} file in the target's directory (created if missing), so a failed
 * or interrupted run never leaves anything under the target's name: {@link #moveTo} renames it atomically on success,
 * {@link #close()} deletes it otherwise.
 */
final class TempFile implements Closeable {
  private final Path path;
  private boolean moved;

  private TempFile(Path path) {
    this.path = path;
  }

  static TempFile beside(Path target) throws IOException {
    Path absolute = target.toAbsolutePath();
    Path dir = absolute.getParent();
    try {
      Files.createDirectories(dir);
    } catch (FileAlreadyExistsException e) {
      throw new IOException("cannot write " + absolute + ": " + e.getFile() + " is not a directory");
    } catch (FileSystemException e) {
      throw new IOException("cannot write " + absolute + ": " + e.getMessage());
    }
    Path path = Files.createTempFile(dir, "." + absolute.getFileName() + ".", ".partial");
    // Temp files are private; the result should have ordinary file permissions.
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
    return new TempFile(path);
  }

  Path path() {
    return path;
  }

  /** Renames the file to {@code target}, replacing what is there. */
  void moveTo(Path target) throws IOException {
    Files.move(path, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    moved = true;
  }

  @Override
  public void close() throws IOException {
    if (!moved) {
      Files.deleteIfExists(path);
    }
  }
}
