package dev.floe.iceberg;

import java.nio.file.Path;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.iceberg.hadoop.HadoopOutputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * Finds the local path behind an Iceberg {@link OutputFile}, so that libfloe can write a data or
 * delete file itself instead of handing every byte to Java: a local warehouse through Hadoop's
 * local file system (the embedded catalog's) is written natively, with the same bytes at the same
 * location. Hadoop's {@code .crc} side file is not written (its readers check a checksum only when
 * one exists), and no {@code chmod} process is started per file. Files of floe's own {@link
 * LocalFileIO} are local by construction.
 */
final class LocalFiles {
  private LocalFiles() {}

  /** The local file {@code file} stands for, or empty for any other storage (S3, HDFS, ...). */
  static Optional<Path> localPath(OutputFile file) {
    if (file instanceof LocalOutputFile local) {
      return Optional.of(local.path());
    }
    if (file instanceof HadoopOutputFile hadoop) {
      FileSystem fs = hadoop.getFileSystem();
      if (fs instanceof LocalFileSystem local) {
        return Optional.of(local.pathToFile(hadoop.getPath()).toPath());
      }
      if (fs instanceof RawLocalFileSystem raw) {
        return Optional.of(raw.pathToFile(hadoop.getPath()).toPath());
      }
    }
    return Optional.empty();
  }
}
