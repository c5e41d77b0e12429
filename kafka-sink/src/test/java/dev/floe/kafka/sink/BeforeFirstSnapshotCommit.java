package dev.floe.kafka.sink;

import dev.floe.iceberg.ForwardingTableOperations;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * Table operations that run a test's action once, just before the first commit through any of
 * them sharing {@code done} that adds a snapshot: another writer changing the table, or the
 * commit held, as the sink's cycle lands. The commit then goes on, on a base the action may have
 * made stale (Iceberg retries it on fresh metadata).
 */
final class BeforeFirstSnapshotCommit extends ForwardingTableOperations {
  private final AtomicBoolean done;
  private final Runnable action;

  BeforeFirstSnapshotCommit(TableOperations delegate, AtomicBoolean done, Runnable action) {
    super(delegate);
    this.done = done;
    this.action = action;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    boolean addsSnapshot = metadata.currentSnapshot() != null && metadata.currentSnapshot() != base.currentSnapshot();
    if (addsSnapshot && done.compareAndSet(false, true)) {
      action.run();
    }
    super.commit(base, metadata);
  }
}
