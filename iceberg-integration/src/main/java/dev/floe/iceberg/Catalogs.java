package dev.floe.iceberg;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * Iceberg catalogs from properties, with floe's embedded default: Iceberg's JDBC catalog on
 * SQLite, named {@value #EMBEDDED_NAME}, its database at {@code <warehouse>/catalog.db} and tables
 * under {@code <warehouse>}, read and written through {@link LocalFileIO} -- no services needed.
 */
public final class Catalogs {
  public static final String EMBEDDED_NAME = "floe";
  /** Iceberg's JDBC catalog hands properties with this prefix, prefix removed, to the driver. */
  private static final String JDBC_PREFIX = "jdbc.";

  private Catalogs() {}

  /** The embedded catalog for a local warehouse folder (created if missing). */
  public static Catalog embedded(Path warehouse) {
    return load(EMBEDDED_NAME, embeddedProperties(warehouse));
  }

  /**
   * The properties of the embedded catalog for a local warehouse folder (created if missing), for
   * whoever builds the catalog later, elsewhere ({@link #load}).
   */
  public static Map<String, String> embeddedProperties(Path warehouse) {
    Path dir = warehouse.toAbsolutePath();
    try {
      Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot create warehouse " + dir, e);
    }
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
    properties.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, dir.toString());
    properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    // SQLite's write-ahead log: a commit appends to one log file instead of journalling and
    // rewriting the database, and readers do not block the writer. NORMAL (SQLite's advice for
    // WAL) syncs at checkpoints, not at every commit: a commit survives the process dying; an OS
    // crash can lose the last ones, as it can the data and metadata files, which nothing here
    // syncs either. The sinks then resume from the offsets of the last commit that stayed.
    properties.put(JDBC_PREFIX + "journal_mode", "WAL");
    properties.put(JDBC_PREFIX + "synchronous", "NORMAL");
    return properties;
  }

  /**
   * Any catalog Iceberg's {@link CatalogUtil} can build from properties ({@code type} or {@code
   * catalog-impl}, {@code uri}, {@code warehouse}, {@code io-impl}, ...), if its classes are on the
   * classpath.
   */
  public static Catalog load(String name, Map<String, String> properties) {
    return CatalogUtil.buildIcebergCatalog(name, properties, new Configuration());
  }
}
