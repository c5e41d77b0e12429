package dev.floe.iceberg;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * Table operations that count the catalog commits tried through them (won, lost or failed): how
 * often a writer had to retry. Safe to read from any thread.
 */
public final class CountingTableOperations extends ForwardingTableOperations {
  private final AtomicInteger commits = new AtomicInteger();

  public CountingTableOperations(TableOperations delegate) {
    super(delegate);
  }

  /** Catalog commits tried so far. */
  public int commits() {
    return commits.get();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    commits.incrementAndGet();
    super.commit(base, metadata);
  }
}
