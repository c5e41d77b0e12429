package dev.floe.flink.table;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.CatalogLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog options as Iceberg's connector reads them: 'hadoop-conf-dir' and 'hive-conf-dir'
 * matter to a hive catalog only, so a hadoop or rest catalog's DDL that carries them runs as it does
 * there (helper-91: refused for every type); for hive, floe refuses them by name.
 */
class CatalogLoaderOptionsTest {
  @Test
  void confDirsAreReadForAHiveCatalogOnly(@TempDir Path warehouse) throws Exception {
    CatalogLoader hadoop = FloeIcebergTableFactory.catalogLoader("c", Map.of(
        "catalog-type", "hadoop", "warehouse", warehouse.toUri().toString(), "hadoop-conf-dir", "/no/such/dir"));
    Catalog catalog = hadoop.loadCatalog();
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
    IllegalArgumentException hive = assertThrows(IllegalArgumentException.class, () -> FloeIcebergTableFactory.catalogLoader(
        "c", Map.of("catalog-type", "hive", "hive-conf-dir", "/no/such/dir")));
    assertTrue(hive.getMessage().contains("'hive-conf-dir' or 'hadoop-conf-dir' for a hive catalog"), hive.getMessage());
  }
}
