package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.SnapshotExpiry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/** The table the sink's unit tests write: unpartitioned v2 (id long, name string), rows of {@link #ROWS}. */
final class IdNameTable {
  static final RowType ROWS = RowType.of(
      new LogicalType[] {new BigIntType(false), new VarCharType(true, VarCharType.MAX_LENGTH)}, new String[] {"id", "name"});

  private IdNameTable() {}

  /** Creates {@code id} (its namespace too) in {@code catalog}, keyed by {@code id} or not; returns its reference. */
  static IcebergTableRef create(Catalog catalog, Path warehouse, TableIdentifier id, boolean keyed) {
    if (!((SupportsNamespaces) catalog).namespaceExists(id.namespace())) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of(id.namespace().levels()));
    }
    Schema schema = new Schema(List.of(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get())), keyed ? Set.of(1) : Set.of());
    catalog.createTable(id, schema, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    return IcebergTableRef.embedded(warehouse, id);
  }

  /**
   * Commits {@code committables} in one call, as Flink does when a checkpoint completes, in a
   * committer of its own; returns whether each was found committed already.
   */
  static List<Boolean> commit(IcebergTableRef table, Collection<FloeCommittable> committables) throws Exception {
    List<RecordedCommitRequest> requests = committables.stream().map(RecordedCommitRequest::new).toList();
    CheckpointCommitter committer = new CheckpointCommitter(table, new UnregisteredMetricsGroup(), SnapshotExpiry.every(null), false);
    try {
      committer.commit(new ArrayList<Committer.CommitRequest<FloeCommittable>>(requests));
    } finally {
      committer.close();
    }
    return requests.stream().map(RecordedCommitRequest::alreadyCommitted).toList();
  }
}
