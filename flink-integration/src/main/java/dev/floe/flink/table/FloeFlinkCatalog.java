package dev.floe.flink.table;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.factories.Factory;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalog;

/**
 * Iceberg's {@link FlinkCatalog} -- databases, tables, DDL, reads through Iceberg's source -- whose
 * tables are written through floe: {@link #getFactory()} hands the planner floe's table factory
 * instead of Iceberg's.
 */
final class FloeFlinkCatalog extends FlinkCatalog {
  private final CatalogLoader loader;
  private final Namespace baseNamespace;

  FloeFlinkCatalog(
      String name,
      String defaultDatabase,
      Namespace baseNamespace,
      CatalogLoader loader,
      Map<String, String> properties,
      boolean cacheEnabled,
      long cacheExpirationMillis) {
    super(name, defaultDatabase, baseNamespace, loader, properties, cacheEnabled, cacheExpirationMillis);
    this.loader = loader;
    this.baseNamespace = baseNamespace;
  }

  @Override
  public Optional<Factory> getFactory() {
    return Optional.of(new FloeIcebergTableFactory(this));
  }

  CatalogLoader loader() {
    return loader;
  }

  /** The Iceberg table a Flink path names: the database under the base namespace, as Iceberg's catalog maps it. */
  TableIdentifier identifier(ObjectPath path) {
    List<String> levels = new ArrayList<>(List.of(baseNamespace.levels()));
    levels.add(path.getDatabaseName());
    return TableIdentifier.of(Namespace.of(levels.toArray(String[]::new)), path.getObjectName());
  }
}
