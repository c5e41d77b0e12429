package dev.floe.iceberg;

import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.WriteResult;

/** Commits of written files, with extra snapshot summary properties in the same commit. */
public final class Commits {
  private Commits() {}

  /** Appends the data files of {@code result}; returns the new snapshot. */
  public static Snapshot append(Table table, WriteResult result, Map<String, String> summary) {
    if (result.deleteFiles().length > 0) {
      throw new IllegalArgumentException("a write with delete files needs rowDelta, not append");
    }
    AppendFiles append = table.newAppend();
    for (DataFile file : result.dataFiles()) {
      append.appendFile(PartitionTypes.aligned(table, file));
    }
    summary.forEach(append::set);
    append.commit();
    return table.currentSnapshot();
  }

  /**
   * Deletes the data and delete files of a write that will not be committed. Every file is
   * tried; the first failure is then thrown, with the others suppressed on it.
   */
  public static void deleteUncommitted(FileIO io, WriteResult result) {
    RuntimeException first = delete(io, result.dataFiles(), null);
    first = delete(io, result.deleteFiles(), first);
    if (first != null) {
      throw first;
    }
  }

  /** Deletes every file; returns {@code first}, or the first failure, with later ones suppressed. */
  private static RuntimeException delete(FileIO io, ContentFile<?>[] files, RuntimeException first) {
    for (ContentFile<?> file : files) {
      try {
        io.deleteFile(file.location());
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    return first;
  }

  /** Adds data and delete files in one row delta; returns the new snapshot. */
  public static Snapshot rowDelta(Table table, WriteResult result, Map<String, String> summary) {
    RowDelta delta = table.newRowDelta();
    for (DataFile file : result.dataFiles()) {
      delta.addRows(PartitionTypes.aligned(table, file));
    }
    for (var file : result.deleteFiles()) {
      delta.addDeletes(PartitionTypes.aligned(table, file));
    }
    summary.forEach(delta::set);
    delta.commit();
    return table.currentSnapshot();
  }
}
