package dev.floe.iceberg;

import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the table tests: a fresh embedded catalog (JDBC on SQLite) with namespace {@code db}
 * in a temporary warehouse, and an allocator that must end with nothing allocated.
 */
abstract class EmbeddedCatalogTest {
  @TempDir protected Path warehouse;
  protected Catalog catalog;
  protected BufferAllocator allocator;

  @BeforeEach
  void openCatalog() {
    catalog = Catalogs.embedded(warehouse);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    allocator = new RootAllocator();
  }

  @AfterEach
  void closeCatalog() throws Exception {
    allocator.close();
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
  }
}
