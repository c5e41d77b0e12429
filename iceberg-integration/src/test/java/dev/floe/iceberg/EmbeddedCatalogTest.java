package dev.floe.iceberg;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the table tests: a fresh embedded catalog (JDBC on SQLite) with namespace {@code db}
 * in a temporary warehouse, an allocator that must end with nothing allocated, and a reader of
 * the tables' rows through Iceberg's generic reader.
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

  /** Every row of table {@code db.name}, read back with Iceberg's generic reader. */
  protected List<Record> readAll(String name) throws IOException {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("db", name))).build()) {
      rows.forEach(r -> out.add(r.copy()));
    }
    return out;
  }
}
