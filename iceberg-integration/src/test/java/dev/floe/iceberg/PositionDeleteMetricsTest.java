package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;

/**
 * A position-delete file's metrics are the ones Iceberg's own {@link PositionDeleteWriter} keeps
 * when made by its writer factories (as Spark's and Flink's writers make it):
 * no value or null counts for {@code file_path} and {@code pos}, and no bounds either when the
 * file refers to more than one data file (its bounds would only be long paths in every manifest).
 */
class PositionDeleteMetricsTest extends EmbeddedCatalogTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @Test
  void countsAndBoundsAreKeptAsIcebergsWriterKeepsThem() throws IOException {
    Table table = catalog.createTable(
        TableIdentifier.of("db", "deletes"), SCHEMA, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    List<Map<String, List<Long>>> cases = List.of(
        Map.of("file:/lake/data/a.parquet", List.of(3L, 1L)),
        Map.of("file:/lake/data/a.parquet", List.of(3L, 1L), "file:/lake/data/b.parquet", List.of(0L)));
    for (Map<String, List<Long>> deleted : cases) {
      DeleteFile ours = floe(table, deleted);
      DeleteFile theirs = iceberg(table, deleted);
      String where = deleted.toString();
      assertEquals(theirs.recordCount(), ours.recordCount(), where);
      assertEquals(theirs.valueCounts(), ours.valueCounts(), where);
      assertEquals(theirs.nullValueCounts(), ours.nullValueCounts(), where);
      assertEquals(theirs.lowerBounds(), ours.lowerBounds(), where);
      assertEquals(theirs.upperBounds(), ours.upperBounds(), where);
      // floe also names a single data file in the file's own field; readers derive the same one
      // from Iceberg's bounds
      assertEquals(ContentFileUtil.referencedDataFileLocation(theirs), ContentFileUtil.referencedDataFileLocation(ours),
          where);
    }
  }

  private DeleteFile floe(Table table, Map<String, List<Long>> deleted) {
    NativePositionDeleteWriter writer =
        NativeFileWriterFactory.forTable(table, allocator).newPositionDeleteWriter(null);
    deleted.forEach((path, positions) -> positions.forEach(pos -> writer.delete(path, pos)));
    writer.close();
    return writer.result().deleteFiles().getFirst();
  }

  private static DeleteFile iceberg(Table table, Map<String, List<Long>> deleted) throws IOException {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    String location = table.locationProvider().newDataLocation("iceberg-deletes-" + deleted.size() + ".parquet");
    PositionDeleteWriter<Record> writer = writers.newPositionDeleteWriter(
        EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location)), table.spec(), null);
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      deleted.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
          e.getValue().stream().sorted().forEach(pos -> writer.write(delete.set(e.getKey(), pos, null))));
    }
    return writer.toDeleteFile();
  }
}
