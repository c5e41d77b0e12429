package dev.floe.iceberg;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.WriteResult;

/** Commits of written files, with extra snapshot summary properties in the same commit. */
public final class Commits {
  private Commits() {}

  /** Appends the data files of {@code result}; returns the new snapshot. */
  public static Snapshot append(Table table, WriteResult result, Map<String, String> summary) {
    return append(table, result, summary, Map.of());
  }

  /**
   * As {@link #append(Table, WriteResult, Map)}, and sets table {@code properties} in the same
   * commit (one transaction: both land or neither).
   */
  public static Snapshot append(Table table, WriteResult result, Map<String, String> summary,
      Map<String, String> properties) {
    if (result.deleteFiles().length > 0) {
      throw new IllegalArgumentException("a write with delete files needs rowDelta, not append");
    }
    return commit(table, summary, properties, Table::newAppend, Transaction::newAppend, append -> {
      for (DataFile file : result.dataFiles()) {
        append.appendFile(PartitionTypes.aligned(table, file));
      }
    });
  }

  /**
   * Replaces, in one commit, every partition the data files of {@code result} fall into with those
   * files (an unpartitioned table: all of it), as Iceberg's Flink sink commits {@code INSERT
   * OVERWRITE}; sets table {@code properties} in the same commit. Returns the new snapshot.
   */
  public static Snapshot replacePartitions(Table table, WriteResult result, Map<String, String> summary,
      Map<String, String> properties) {
    if (result.deleteFiles().length > 0) {
      throw new IllegalArgumentException("an overwrite takes data files only, not delete files");
    }
    return commit(table, summary, properties, Table::newReplacePartitions, Transaction::newReplacePartitions,
        replace -> {
          for (DataFile file : result.dataFiles()) {
            replace.addFile(PartitionTypes.aligned(table, file));
          }
        });
  }

  /**
   * Commits one snapshot update, made by {@code onTable} or, with {@code properties} to set in the
   * same commit, by {@code inTransaction}: {@code addFiles} fills it, {@code summary} goes into its
   * snapshot summary. Returns the new snapshot.
   */
  private static <U extends SnapshotUpdate<U>> Snapshot commit(Table table, Map<String, String> summary,
      Map<String, String> properties, Function<Table, U> onTable, Function<Transaction, U> inTransaction,
      Consumer<U> addFiles) {
    Transaction transaction = properties.isEmpty() ? null : table.newTransaction();
    U update = transaction == null ? onTable.apply(table) : inTransaction.apply(transaction);
    addFiles.accept(update);
    summary.forEach(update::set);
    update.commit();
    if (transaction != null) {
      UpdateProperties set = transaction.updateProperties();
      properties.forEach(set::set);
      set.commit();
      transaction.commitTransaction();
    }
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

  /**
   * As {@link #deleteUncommitted}, while {@code failure} is being thrown: a file that cannot be
   * deleted is noted on it instead.
   */
  static void deleteUncommittedQuietly(FileIO io, WriteResult result, Throwable failure) {
    try {
      deleteUncommitted(io, result);
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
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
    return rowDelta(table, result, summary, Map.of());
  }

  /** As {@link #rowDelta(Table, WriteResult, Map)}, and sets table {@code properties} in the same commit. */
  public static Snapshot rowDelta(Table table, WriteResult result, Map<String, String> summary,
      Map<String, String> properties) {
    return commit(table, summary, properties, Table::newRowDelta, Transaction::newRowDelta, delta -> {
      for (DataFile file : result.dataFiles()) {
        delta.addRows(PartitionTypes.aligned(table, file));
      }
      for (var file : result.deleteFiles()) {
        delta.addDeletes(PartitionTypes.aligned(table, file));
      }
    });
  }
}
