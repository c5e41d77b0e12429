package dev.floe.flink;

import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.ForwardingTableOperations;
import java.io.Serializable;
import java.nio.file.Path;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The embedded catalog of a warehouse whose tables run a test's hook before each commit, in the
 * committing thread: to change the table, or hold the commit, just as it lands. A job's operators
 * get it through {@link #loader} (the hook must be serializable; MiniCluster runs in the test's
 * JVM, so the hook may use the test's static state).
 */
public final class HookedCatalog extends JdbcCatalog {
  /** Runs before a commit of {@code metadata} over {@code base}. */
  public interface Hook extends Serializable {
    void beforeCommit(TableIdentifier table, TableMetadata base, TableMetadata metadata);
  }

  private final Hook hook;

  HookedCatalog(String warehouse, Hook hook) {
    this.hook = hook;
    initialize(Catalogs.EMBEDDED_NAME, Catalogs.embeddedProperties(Path.of(warehouse)));
  }

  /** A loader of the catalog of {@code warehouse} with {@code hook}, for {@link IcebergTableRef#of}. */
  public static CatalogLoader loader(Path warehouse, Hook hook) {
    return new Loader(warehouse.toString(), hook);
  }

  /** Whether {@code metadata} adds a snapshot to {@code base} (not a property or schema change). */
  public static boolean addsSnapshot(TableMetadata base, TableMetadata metadata) {
    return metadata.currentSnapshot() != null && metadata.currentSnapshot() != base.currentSnapshot();
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier identifier) {
    return new ForwardingTableOperations(super.newTableOps(identifier)) {
      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        hook.beforeCommit(identifier, base, metadata);
        super.commit(base, metadata);
      }
    };
  }

  private record Loader(String warehouse, Hook hook) implements CatalogLoader {
    @Override
    public Catalog loadCatalog() {
      return new HookedCatalog(warehouse, hook);
    }

    @Override
    @SuppressWarnings("MethodDoesntCallSuperMethod")
    public CatalogLoader clone() {
      return new Loader(warehouse, hook);
    }
  }
}
