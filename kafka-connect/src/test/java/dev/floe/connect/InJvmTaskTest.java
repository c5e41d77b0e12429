package dev.floe.connect;

import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A test of tasks run in the JVM ({@link InJvmTasks}): an embedded catalog per test, closed after it. */
abstract class InJvmTaskTest {
  @TempDir
  Path dir;

  Catalog catalog;

  @BeforeEach
  void openCatalog() {
    catalog = Catalogs.embedded(warehouse());
  }

  @AfterEach
  void closeCatalog() throws Exception {
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
  }

  Path warehouse() {
    return dir.resolve("warehouse");
  }
}
