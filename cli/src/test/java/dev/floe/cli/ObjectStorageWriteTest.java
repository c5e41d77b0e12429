package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.s3.LoopbackS3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe write} into a table on object storage, as README.md's "Tables on object storage"
 * runs it: a JDBC catalog given by {@code --catalog-property}, its warehouse in an S3-compatible
 * server on loopback, Iceberg's S3FileIO and the AWS SDK on the classpath (here the test's, with
 * scripts/floe {@code FLOE_CLASSPATH}). The table is read back from the store by Iceberg's reader.
 */
class ObjectStorageWriteTest {
  @TempDir Path dir;

  @Test
  void writesATableOnS3AndItReadsBackExactly() throws Exception {
    List<List<Object>> rows = TestRows.rows(4, 1, 1500);
    Files.write(dir.resolve("rows.jsonl"), TestRows.jsonLines(rows));
    TestRows.writeSchema(dir);
    try (LoopbackS3Server s3 = LoopbackS3Server.start(dir.resolve("store"), "floe-warehouse")) {
      Map<String, String> catalogProperties = s3.jdbcCatalogProperties(dir.resolve("catalog.db"));
      List<String> args = new ArrayList<>(List.of("write", "--input", "rows.jsonl", "--schema", "schema.json",
          "--table", "db.events", "--partition-by", "bucket(4,id)", "--catalog-name", "on-s3"));
      catalogProperties.forEach((key, value) -> {
        args.add("--catalog-property");
        args.add(key + "=" + value);
      });
      CliProcess.Result written = CliProcess.run(dir, args.toArray(String[]::new));
      assertEquals(0, written.exitCode(), written.err());
      assertTrue(written.out().contains("rows written   1,500\n"), written.out());

      Catalog catalog = Catalogs.load("on-s3", catalogProperties);
      try {
        Table table = catalog.loadTable(TableIdentifier.of("db", "events"));
        assertTrue(table.location().startsWith("s3://floe-warehouse/"), table.location());
        assertEquals(List.of(), TableWriteTest.compareRows(rows, table));
        assertTrue(s3.objects().keySet().stream().anyMatch(key -> key.endsWith(".parquet")), "data files in the store");
      } finally {
        if (catalog instanceof AutoCloseable closeable) {
          closeable.close();
        }
      }
    }
  }
}
