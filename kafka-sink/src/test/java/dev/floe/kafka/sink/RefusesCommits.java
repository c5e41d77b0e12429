package dev.floe.kafka.sink;

import dev.floe.iceberg.ForwardingTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;

/** Table operations that refuse every commit (a conflict Iceberg cannot retry past). */
final class RefusesCommits extends ForwardingTableOperations {
  RefusesCommits(TableOperations delegate) {
    super(delegate);
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    throw new CommitFailedException("injected: the catalog refuses this table's commits");
  }
}
