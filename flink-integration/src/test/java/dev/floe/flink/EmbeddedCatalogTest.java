package dev.floe.flink;

import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A test with the embedded catalog on a warehouse of its own, and its namespace {@code db}. */
public abstract class EmbeddedCatalogTest {
  @TempDir protected Path warehouse;
  protected Catalog catalog;

  @BeforeEach
  void openCatalog() {
    catalog = Catalogs.embedded(warehouse);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void closeCatalog() throws Exception {
    IcebergTableRef.close(catalog);
  }
}
