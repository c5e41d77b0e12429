package dev.floe.iceberg;

import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.WriteResult;

/**
 * Which live data an upsert's equality deletes reach. A partitioned equality delete applies only to
 * data files of its own partition spec (an unpartitioned one to all), so an upsert writer writes
 * each key's delete in the current spec and in every older spec that holds data ({@link
 * NativeFileWriterFactory}). Which older specs hold data is read when the writer is made; data
 * committed in another spec after that -- a cycle of the sink's own still landing when the spec
 * changed -- would keep rows the upserts replace. Checked against the table a commit applies to.
 */
public final class EqualityDeleteReach {
  private EqualityDeleteReach() {}

  /**
   * The ids of the partition specs whose live data files (in {@code base}'s current snapshot)
   * {@code result}'s equality deletes do not reach; empty when it has none, or a global one.
   */
  public static Set<Integer> specsMissed(TableMetadata base, FileIO io, WriteResult result) {
    Set<Integer> reached = new TreeSet<>();
    for (DeleteFile file : result.deleteFiles()) {
      if (file.content() == FileContent.EQUALITY_DELETES) {
        PartitionSpec spec = base.specsById().get(file.specId());
        if (spec == null || spec.isUnpartitioned()) {
          return Set.of(); // global (or of a spec Iceberg will refuse by itself)
        }
        reached.add(file.specId());
      }
    }
    Set<Integer> missed = new TreeSet<>();
    Snapshot current = base.currentSnapshot();
    if (reached.isEmpty() || current == null) {
      return missed;
    }
    for (ManifestFile manifest : current.dataManifests(io)) {
      if ((manifest.hasAddedFiles() || manifest.hasExistingFiles()) && !reached.contains(manifest.partitionSpecId())) {
        missed.add(manifest.partitionSpecId());
      }
    }
    return missed;
  }
}
