package dev.floe.iceberg.sink;

import java.util.Map;
import java.util.Set;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.kafka.common.TopicPartition;

/**
 * Table operations that refuse a commit unless the metadata it is based on still holds the Kafka
 * offsets this sink expects for its partitions. Iceberg calls {@link #commit} once per attempt,
 * each time on freshly refreshed metadata (a conflicting commit by anyone is retried), so the
 * check always sees the table as the commit would change it: a zombie can never commit offsets
 * someone else already moved.
 */
final class FencingTableOperations implements TableOperations {
  private final TableOperations delegate;
  private final String group;
  private final Set<TopicPartition> partitions;
  private final Map<TopicPartition, Long> expected;

  /**
   * @param partitions the partitions this commit stores offsets for
   * @param expected their offsets as this sink last saw them in the table (absent: never stored)
   */
  FencingTableOperations(
      TableOperations delegate, String group, Set<TopicPartition> partitions, Map<TopicPartition, Long> expected) {
    this.delegate = delegate;
    this.group = group;
    this.partitions = Set.copyOf(partitions);
    this.expected = Map.copyOf(expected);
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    Map<TopicPartition, Long> stored = SnapshotOffsets.latest(base, group, partitions);
    if (!stored.equals(expected)) {
      throw new FencedException(
          "fenced: table offsets for group '" + group + "' are " + stored + ", this sink expected "
              + expected + " (another sink owns these partitions now)");
    }
    delegate.commit(base, metadata);
  }

  @Override
  public TableMetadata current() {
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    return delegate.refresh();
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public EncryptionManager encryption() {
    return delegate.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return delegate.locationProvider();
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    return delegate.temp(uncommittedMetadata);
  }

  @Override
  public long newSnapshotId() {
    return delegate.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return delegate.requireStrictCleanup();
  }
}
