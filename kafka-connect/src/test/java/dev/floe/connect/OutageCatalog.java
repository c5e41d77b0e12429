package dev.floe.connect;

import dev.floe.iceberg.ForwardingTableOperations;
import java.io.IOException;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The embedded JDBC catalog whose table reads (refresh) or commits fail as in an outage of its
 * store, while a test sets the flags below (shared by every instance: the task loads the catalog
 * by class name). TaskOutageTest resets them after each test.
 */
public final class OutageCatalog extends JdbcCatalog {
  static volatile boolean refreshDown;
  static volatile boolean commitDown;
  /** Commits to this table (its name without namespace) fail as in an outage. */
  static volatile String commitDownTable;
  /** The commit lands, then its outcome is reported unknown. */
  static volatile boolean commitUnknown;

  @Override
  protected TableOperations newTableOps(TableIdentifier id) {
    return new ForwardingTableOperations(super.newTableOps(id)) {
      @Override
      public TableMetadata refresh() {
        if (refreshDown) {
          throw new RuntimeIOException(new IOException("the catalog's store is down (refresh)"));
        }
        return super.refresh();
      }

      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        if (commitDown || id.name().equals(commitDownTable)) {
          throw new RuntimeIOException(new IOException("the catalog's store is down (commit)"));
        }
        super.commit(base, metadata);
        if (commitUnknown) {
          refreshDown = true; // and the outcome cannot be looked up
          throw new CommitStateUnknownException(new RuntimeException("landed, reported unknown"));
        }
      }
    };
  }
}
