package dev.floe.connect;

import dev.floe.iceberg.ForwardingTableOperations;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The embedded JDBC catalog, for a task's {@code iceberg.catalog.catalog-impl}: its tables' commits
 * wait until the test opens {@link #gate} (so that a test sees a task while its commit is under way).
 */
public final class HeldCommitsCatalog extends JdbcCatalog {
  static volatile CountDownLatch gate = new CountDownLatch(0);

  @Override
  protected TableOperations newTableOps(TableIdentifier id) {
    return new ForwardingTableOperations(super.newTableOps(id)) {
      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        try {
          if (!gate.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never let the commit go");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        super.commit(base, metadata);
      }
    };
  }
}
