package dev.floe.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.DelegateFileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Iceberg {@code FileIO} for a warehouse on the local disk, through {@code java.nio}: the
 * embedded catalog's ({@link Catalogs#embeddedProperties}). Set it as any catalog's {@code
 * io-impl} for a local warehouse.
 *
 * <p>Hadoop's local file system, Iceberg's default, writes a {@code .crc} side file next to every
 * metadata file and manifest (a CRC of every byte written) and, without Hadoop's native library,
 * starts a {@code chmod} process for each file and directory it creates. This does neither: the
 * files themselves are the same bytes at the same locations, so any other {@code FileIO} reads
 * the tables it writes, and it reads theirs ({@code .crc} files are not needed to read).
 *
 * <p>Locations are local paths, absolute ({@code /warehouse/db/t/metadata/...}) or {@code file:}
 * URIs ({@code file:/...}, {@code file:///...}); a location of any other scheme ({@code s3://},
 * {@code hdfs://}) is refused, naming it. Files are created with their parent directories; {@link
 * OutputFile#create()} refuses an existing file, as Iceberg's commit protocol expects. Like
 * Hadoop's local file system, closing a file does not force it to the disk ({@code fsync}).
 */
public final class LocalFileIO implements DelegateFileIO {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(LocalFileIO.class);
  /** A URI scheme ({@code s3:}, {@code hdfs:}); one letter is a Windows drive, not a scheme. */
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+:");

  private Map<String, String> properties = Map.of();

  @Override
  public void initialize(Map<String, String> props) {
    this.properties = Map.copyOf(props);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public InputFile newInputFile(String location) {
    return new LocalInputFile(location, path(location), -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return new LocalInputFile(location, path(location), length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return new LocalOutputFile(location, path(location));
  }

  /** Deletes the file; a file that is already gone is not an error (as with Hadoop's). */
  @Override
  public void deleteFile(String location) {
    try {
      Files.deleteIfExists(path(location));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + location, e);
    }
  }

  /** Deletes every file it can; throws at the end, counting the ones it could not. */
  @Override
  public void deleteFiles(Iterable<String> locations) {
    int failed = 0;
    for (String location : locations) {
      try {
        deleteFile(location);
      } catch (RuntimeException e) {
        failed++;
        LOG.warn("cannot delete {}", location, e);
      }
    }
    if (failed > 0) {
      throw new BulkDeletionFailureException(failed);
    }
  }

  /** Every file under the directory {@code prefix}, at any depth (or the file {@code prefix}). */
  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path root = path(prefix);
    if (!Files.exists(root)) {
      return List.of();
    }
    List<FileInfo> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.forEach(file -> {
        try {
          BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
          if (attributes.isRegularFile()) {
            files.add(new FileInfo(
                file.toString(), attributes.size(), attributes.lastModifiedTime().toMillis()));
          }
        } catch (NoSuchFileException gone) {
          // deleted while listing: not there to report
        } catch (IOException e) {
          throw new UncheckedIOException("cannot list " + file, e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + prefix, e);
    }
    return files;
  }

  /** Deletes the directory {@code prefix} and everything under it. */
  @Override
  public void deletePrefix(String prefix) {
    Path root = path(prefix);
    if (!Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
          if (e != null) {
            throw e;
          }
          Files.deleteIfExists(dir);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + prefix, e);
    }
  }

  /** The local path of a location. */
  static Path path(String location) {
    if (location.startsWith("file:")) {
      String rest = location.substring("file:".length());
      if (rest.startsWith("//")) {
        // file:///p (no host) or file://localhost/p; any other host is not this machine's disk.
        int slash = rest.indexOf('/', 2);
        String host = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
        if (slash < 0 || !(host.isEmpty() || host.equals("localhost"))) {
          throw new IllegalArgumentException("not a local file location: " + location);
        }
        rest = rest.substring(slash);
      }
      return Path.of(rest);
    }
    if (SCHEME.matcher(location).find()) {
      throw new IllegalArgumentException(
          "LocalFileIO reads and writes local files only, not " + location + " (use the storage's own FileIO)");
    }
    return Path.of(location);
  }
}
