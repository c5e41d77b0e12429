package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * floe's writers through Iceberg's own interfaces only, as Flink or Connect plumbing would hold
 * them: each {@link FileWriter} and {@link TaskWriter} keeps the same contract (length grows,
 * the result after close names the rows written, no result before).
 */
class FileWriterContractTest extends EmbeddedCatalogTest {
  private static final Schema KEYED =
      new Schema(List.of(Types.NestedField.required(1, "id", Types.LongType.get())), java.util.Set.of(1));

  private NativeFileWriterFactory factory() {
    Table table = catalog.createTable(TableIdentifier.of("db", "contract"), KEYED, PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    return NativeFileWriterFactory.forTable(table, allocator);
  }

  private VectorSchemaRoot ids(org.apache.arrow.vector.types.pojo.Schema arrow, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator);
    BigIntVector id = (BigIntVector) root.getVector(0);
    for (int i = 0; i < count; i++) {
      id.setSafe(i, i);
    }
    root.setRowCount(count);
    return root;
  }

  /** Writes 1000 ids in two batches through {@code writer}; returns the file it reports. */
  private <R> ContentFile<?> writeThrough(
      FileWriter<VectorSchemaRoot, R> writer, org.apache.arrow.vector.types.pojo.Schema arrow, Function<R, List<? extends ContentFile<?>>> files)
      throws IOException {
    assertThrows(IllegalStateException.class, writer::result, "no result before close");
    try (VectorSchemaRoot first = ids(arrow, 600); VectorSchemaRoot second = ids(arrow, 400)) {
      writer.write(first);
      long afterFirst = writer.length();
      writer.write(second);
      assertTrue(writer.length() >= afterFirst && afterFirst > 0, "length grows: " + afterFirst + ", " + writer.length());
    }
    writer.close();
    List<? extends ContentFile<?>> written = files.apply(writer.result());
    assertEquals(1, written.size());
    assertEquals(1000, written.get(0).recordCount());
    return written.get(0);
  }

  @Test
  void dataAndEqualityDeleteWritersKeepIcebergsFileWriterContract() throws IOException {
    NativeFileWriterFactory factory = factory();
    ContentFile<?> data = writeThrough(factory.newDataWriter(null), factory.arrowSchema(), r -> r.dataFiles());
    assertTrue(data.fileSizeInBytes() > 0);
    ContentFile<?> deletes = writeThrough(
        factory.newEqualityDeleteWriter(null), factory.equalityDeleteArrowSchema(), r -> r.deleteFiles());
    assertEquals(List.of(1), deletes.equalityFieldIds());
  }

  @Test
  void taskWritersAreIcebergTaskWriters() throws IOException {
    NativeFileWriterFactory factory = factory();
    for (TaskWriter<VectorSchemaRoot> writer :
        List.<TaskWriter<VectorSchemaRoot>>of(factory.newTaskWriter(), factory.newUpsertTaskWriter())) {
      try (VectorSchemaRoot batch = ids(factory.arrowSchema(), 1000)) {
        writer.write(batch);
      }
      WriteResult result = writer.complete();
      assertEquals(1000, result.dataFiles()[0].recordCount(), writer.getClass().getSimpleName());
      writer.close(); // after complete: nothing to abort
    }
  }
}
