package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A task writer keeps no data file without rows, as Iceberg's rolling writers keep none: a file
 * opened for a write that was refused, or for messages that were all rejected, was completed and
 * would have been committed as an empty data file (helper-85). Such a file is deleted.
 */
class EmptyDataFilesTest extends EmbeddedCatalogTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  private NativeFileWriterFactory factory;

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aRefusedWriteLeavesNoFile(boolean bucketed) throws IOException {
    NativeTaskWriter writer = writerFor(bucketed);
    var idOnly = new org.apache.arrow.vector.types.pojo.Schema(List.of(factory.arrowSchema().getFields().getFirst()));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(idOnly, allocator)) {
      ((BigIntVector) root.getVector(0)).setSafe(0, 1);
      root.setRowCount(1);
      assertThrows(RuntimeException.class, () -> writer.write(root));
    }
    WriteResult result = writer.complete();
    assertEquals(List.of(), Arrays.asList(result.dataFiles()));
    assertEquals(List.of(), parquetFiles());
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void messagesAllRejectedLeaveNoFileAndTheOthersTheirs(boolean bucketed) throws IOException {
    NativeTaskWriter writer = writerFor(bucketed);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch bad = batch("{\"name\":\"no id\"}", "not json");
        MessageBatch good = batch("{\"id\":1,\"name\":\"a\"}", "{\"id\":2}")) {
      assertEquals(0, writer.write(decoder, bad, BadRecordPolicy.SKIP).rows());
      if (!bucketed) { // rows of an unpartitioned table go to the open file: finish it empty first
        assertEquals(0, writer.complete().dataFiles().length);
        writer = factory.newTaskWriter();
        assertEquals(List.of(), parquetFiles());
      }
      assertEquals(2, writer.write(decoder, good, BadRecordPolicy.SKIP).rows());
    }
    DataFile[] files = writer.complete().dataFiles();
    assertEquals(2, Arrays.stream(files).mapToLong(DataFile::recordCount).sum());
    assertEquals(Arrays.stream(files).map(f -> Path.of(f.location()).getFileName().toString()).sorted().toList(),
        parquetFiles().stream().map(p -> p.getFileName().toString()).sorted().toList());
  }

  /** A task writer of a new table, bucketed or not; its factory is {@link #factory}. */
  private NativeTaskWriter writerFor(boolean bucketed) {
    PartitionSpec spec = bucketed ? PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build() : PartitionSpec.unpartitioned();
    Table table = catalog.createTable(TableIdentifier.of("db", bucketed ? "bucketed" : "plain"), SCHEMA, spec,
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    factory = NativeFileWriterFactory.forTable(table, allocator);
    return factory.newTaskWriter();
  }

  private static MessageBatch batch(String... json) {
    MessageBatch batch = new MessageBatch();
    for (String message : json) {
      batch.add(message.getBytes(StandardCharsets.UTF_8));
    }
    return batch;
  }

  /** The data files under the warehouse, whatever wrote them. */
  private List<Path> parquetFiles() throws IOException {
    try (Stream<Path> files = Files.walk(warehouse)) {
      return files.filter(p -> p.toString().endsWith(".parquet")).toList();
    }
  }
}
