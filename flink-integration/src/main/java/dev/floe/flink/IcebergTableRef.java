package dev.floe.flink;

import dev.floe.iceberg.Catalogs;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Where a Flink task finds its Iceberg table: the catalog's name and properties (as Iceberg's
 * {@code CatalogUtil} takes them: {@code type} or {@code catalog-impl}, {@code uri}, {@code
 * warehouse}, ...) and the table's identifier. Serializable, so it travels with the job graph; each
 * task builds its own catalog from it ({@link #openCatalog()}), as Iceberg's {@code TableLoader}
 * does. A catalog made by Iceberg's Flink module (its SQL options) comes as a {@link CatalogLoader}
 * instead ({@link #of(String, CatalogLoader, TableIdentifier)}).
 */
public final class IcebergTableRef implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String catalogName;
  private final TreeMap<String, String> catalogProperties;
  /** Builds the catalog instead of the properties when set. */
  private final CatalogLoader catalogLoader;
  private final String table;

  private IcebergTableRef(
      String catalogName, Map<String, String> catalogProperties, CatalogLoader catalogLoader, TableIdentifier table) {
    this.catalogName = catalogName;
    this.catalogProperties = new TreeMap<>(catalogProperties);
    this.catalogLoader = catalogLoader;
    this.table = table.toString();
  }

  /** A table in the catalog that {@code catalogProperties} describe. */
  public static IcebergTableRef of(String catalogName, Map<String, String> catalogProperties, TableIdentifier table) {
    return new IcebergTableRef(catalogName, catalogProperties, null, table);
  }

  /** A table in the catalog that Iceberg's Flink {@code CatalogLoader} builds. */
  public static IcebergTableRef of(String catalogName, CatalogLoader catalogLoader, TableIdentifier table) {
    return new IcebergTableRef(catalogName, Map.of(), catalogLoader, table);
  }

  /** A table in floe's embedded catalog (JDBC on SQLite) of a local warehouse folder. */
  public static IcebergTableRef embedded(Path warehouse, TableIdentifier table) {
    return new IcebergTableRef(Catalogs.EMBEDDED_NAME, Catalogs.embeddedProperties(warehouse), null, table);
  }

  public TableIdentifier identifier() {
    return TableIdentifier.parse(table);
  }

  /**
   * Builds the catalog. The caller keeps it open while it uses tables loaded from it (a JDBC
   * catalog's tables commit through its connection pool) and closes it afterwards ({@link
   * #close(Catalog)}).
   */
  public Catalog openCatalog() {
    return catalogLoader != null ? catalogLoader.loadCatalog() : Catalogs.load(catalogName, catalogProperties);
  }

  /** Closes a catalog from {@link #openCatalog()} if it holds resources. */
  public static void close(Catalog catalog) throws Exception {
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  @Override
  public String toString() {
    return catalogName + "." + table;
  }
}
