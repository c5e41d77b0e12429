package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopOutputFile;
import org.apache.iceberg.inmemory.InMemoryOutputFile;
import org.apache.iceberg.io.WriteResult;
import org.junit.jupiter.api.Test;

/**
 * Local files are written by libfloe itself: the same path Hadoop's local file system names, no
 * {@code .crc} side file; other storage keeps the stream (the REST catalog + S3 test covers it).
 */
class LocalFilesTest extends EmbeddedCatalogTest {
  @Test
  void aHadoopLocalFileIsItsLocalPathAndOtherStorageIsNot() {
    Configuration conf = new Configuration();
    Path file = warehouse.resolve("a/b.parquet");
    assertEquals(
        file.toAbsolutePath(),
        LocalFiles.localPath(HadoopOutputFile.fromLocation("file:" + file.toAbsolutePath(), conf))
            .orElseThrow()
            .toAbsolutePath());
    assertEquals(
        file.toAbsolutePath(),
        LocalFiles.localPath(HadoopOutputFile.fromLocation(file.toAbsolutePath().toString(), conf))
            .orElseThrow()
            .toAbsolutePath());
    assertTrue(LocalFiles.localPath(new InMemoryOutputFile("mem://x/y.parquet")).isEmpty());
  }

  @Test
  void embeddedCatalogDataFilesAreWrittenNativelyAndReadBackExactly() throws IOException {
    Table table =
        catalog.createTable(
            TableIdentifier.of("db", "local"),
            NativeIcebergWriteTest.SCHEMA,
            PartitionSpec.builderFor(NativeIcebergWriteTest.SCHEMA).bucket("id", 3).build(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    List<Record> rows = new RandomRows(7).records(NativeIcebergWriteTest.SCHEMA, 1500);
    WriteResult result = RandomRows.writeWithFloe(table, rows, allocator);
    Commits.append(table, result, Map.of());

    assertEquals(3, result.dataFiles().length);
    for (DataFile f : result.dataFiles()) {
      Path written = Path.of(java.net.URI.create(f.location()).getPath());
      assertEquals(f.fileSizeInBytes(), Files.size(written), f.location());
      Path crc = written.resolveSibling("." + written.getFileName() + ".crc");
      assertFalse(Files.exists(crc), "no Hadoop checksum beside " + written);
    }
    assertEquals(
        NativeIcebergWriteTest.multiset(rows), NativeIcebergWriteTest.multiset(readAll("local")));
  }
}
