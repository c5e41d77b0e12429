package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A test on an {@link IdNameTable} of its own, in the embedded catalog of a fresh warehouse. */
abstract class IdNameTableTest {
  protected final TableIdentifier table;
  private final boolean keyed;

  @TempDir
  Path warehouse;

  Catalog catalog;
  IcebergTableRef ref;

  IdNameTableTest(TableIdentifier table, boolean keyed) {
    this.table = table;
    this.keyed = keyed;
  }

  @BeforeEach
  void createTable() {
    catalog = Catalogs.embedded(warehouse);
    ref = IdNameTable.create(catalog, warehouse, table, keyed);
  }

  @AfterEach
  void closeCatalog() throws Exception {
    ((AutoCloseable) catalog).close();
  }
}
