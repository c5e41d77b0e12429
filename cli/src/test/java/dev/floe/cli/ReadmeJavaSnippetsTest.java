package dev.floe.cli;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.NativeParquetWriter;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.ParquetWriterConfig;
import dev.floe.arrow.MessageSource;
import dev.floe.arrow.RejectedMessage;
import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.Commits;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Java library" snippets, compiled and run. Each {@code readme-begin}/{@code
 * readme-end} region below is quoted in README.md as one java block; {@link
 * #theReadmeQuotesExactlyTheseSnippets} fails when the two drift apart.
 */
class ReadmeJavaSnippetsTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path THIS_SOURCE = Path.of("src/test/java/dev/floe/cli/ReadmeJavaSnippetsTest.java");
  private static final String SECTION = "## Java library";

  @TempDir Path dir;

  /** Arrow batches to a Parquet file; the fields carry their Iceberg field ids. */
  static void arrowToParquet(Path file) {
    // readme-begin
    Map<String, String> id1 = Map.of("PARQUET:field_id", "1"), id2 = Map.of("PARQUET:field_id", "2");
    Schema schema = new Schema(List.of(
        new Field("id", new FieldType(false, new ArrowType.Int(64, true), null, id1), null),
        new Field("name", new FieldType(true, ArrowType.Utf8.INSTANCE, null, id2), null)));
    try (BufferAllocator allocator = new RootAllocator();
         VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
         NativeParquetWriter writer = NativeParquetWriter.open(file, schema, ParquetWriterConfig.defaults(), allocator)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector name = (VarCharVector) root.getVector("name");
      id.setSafe(0, 1);
      name.setSafe(0, "Ada".getBytes(StandardCharsets.UTF_8));
      id.setSafe(1, 2);
      name.setNull(1);
      root.setRowCount(2);
      writer.write(root);                           // any number of batches with this schema
      ParquetFileSummary summary = writer.finish(); // rows, size, row groups, the footer
    }
    // readme-end
  }

  /** JSON messages decoded natively straight into a Parquet file; bad ones collected. */
  static void jsonToParquet(Path file, Schema schema, List<String> deadLetters) {
    // readme-begin
    try (BufferAllocator allocator = new RootAllocator();
         NativeJsonDecoder decoder = NativeJsonDecoder.create(schema, JsonDecoderConfig.defaults());
         NativeParquetWriter writer = NativeParquetWriter.open(file, schema, ParquetWriterConfig.defaults(), allocator);
         MessageBatch batch = new MessageBatch()) {
      MessageSource input = line -> "line " + line + " of the input"; // any object that names a position
      batch.add("{\"id\": 1, \"name\": \"Ada\"}".getBytes(StandardCharsets.UTF_8), input, 1);
      batch.add("{\"id\": \"two\", \"name\": \"Bob\"}".getBytes(StandardCharsets.UTF_8), input, 2);
      DecodeStats stats = decoder.decodeInto(batch, writer, BadRecordPolicy.DEAD_LETTER);
      for (RejectedMessage bad : stats.rejected()) {
        deadLetters.add(bad.describe() + ": " + bad.reason()); // bad.payload() has the original bytes
      }
      writer.finish();
    }
    // readme-end
  }

  /** JSON messages appended to an Iceberg table in one commit. */
  static void jsonToIceberg(Path warehouse) throws IOException {
    // readme-begin
    Catalog catalog = Catalogs.embedded(warehouse); // Iceberg's JDBC catalog on SQLite; or Catalogs.load(name, props)
    Table table = catalog.loadTable(TableIdentifier.of("db", "events"));
    try (BufferAllocator allocator = new RootAllocator();
         MessageBatch batch = new MessageBatch()) {
      batch.add("{\"id\": 1, \"name\": \"Ada\"}".getBytes(StandardCharsets.UTF_8));
      batch.add("{\"id\": 2, \"name\": null}".getBytes(StandardCharsets.UTF_8));
      NativeFileWriterFactory files = NativeFileWriterFactory.forTable(table, allocator);
      try (NativeJsonDecoder decoder = NativeJsonDecoder.create(files.arrowSchema(), JsonDecoderConfig.defaults());
           NativeTaskWriter writer = files.newTaskWriter()) {
        writer.write(decoder, batch, BadRecordPolicy.FAIL); // files roll at write.target-file-size-bytes
        Commits.append(table, writer.complete(), Map.of("my.app.offsets", "..."));
      }
    }
    // readme-end
    ((Closeable) catalog).close();
  }

  @Test
  void arrowToParquetWritesTheRowsWithTheirFieldIds() throws IOException {
    Path file = dir.resolve("people.parquet");
    arrowToParquet(file);
    assertEquals(List.of(Arrays.asList(1L, "Ada"), Arrays.asList(2L, null)), readIdName(file));
    assertTrue(footerSchema(file).contains("required int64 id = 1;"), footerSchema(file));
    assertTrue(footerSchema(file).contains("optional binary name (STRING) = 2;"), footerSchema(file));
  }

  @Test
  void jsonToParquetKeepsTheGoodMessageAndNamesTheBadOne() throws IOException {
    Path file = dir.resolve("people.parquet");
    Schema schema =
        new Schema(List.of(
            new Field("id", new FieldType(false, new ArrowType.Int(64, true), null, Map.of("PARQUET:field_id", "1")), null),
            new Field("name", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of("PARQUET:field_id", "2")), null)));
    List<String> deadLetters = new ArrayList<>();
    jsonToParquet(file, schema, deadLetters);
    assertEquals(List.of(Arrays.asList(1L, "Ada")), readIdName(file));
    assertEquals(List.of("message 1 (line 2 of the input): field 'id': expected int64, found string \"two\" (at byte 7)"), deadLetters);
  }

  @Test
  void jsonToIcebergAppendsTheRowsInOneSnapshot() throws IOException {
    Path warehouse = dir.resolve("warehouse");
    org.apache.iceberg.Schema schema =
        new org.apache.iceberg.Schema(
            required(1, "id", Types.LongType.get()), optional(2, "name", Types.StringType.get()));
    Catalog setup = Catalogs.embedded(warehouse);
    ((SupportsNamespaces) setup).createNamespace(Namespace.of("db"));
    setup.createTable(TableIdentifier.of("db", "events"), schema);
    ((Closeable) setup).close();

    jsonToIceberg(warehouse);

    Catalog catalog = Catalogs.embedded(warehouse);
    try {
      Table table = catalog.loadTable(TableIdentifier.of("db", "events"));
      assertEquals("...", table.currentSnapshot().summary().get("my.app.offsets"));
      assertEquals("2", table.currentSnapshot().summary().get("added-records"));
      List<List<Object>> rows = new ArrayList<>();
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        records.forEach(r -> rows.add(Arrays.asList(r.getField("id"), r.getField("name"))));
      }
      rows.sort((a, b) -> Long.compare((Long) a.get(0), (Long) b.get(0)));
      assertEquals(List.of(Arrays.asList(1L, "Ada"), Arrays.asList(2L, null)), rows);
    } finally {
      ((Closeable) catalog).close();
    }
  }

  /**
   * The README's "Java library" section has exactly this file's regions as its java blocks, in
   * order, line for line (indentation aside).
   */
  @Test
  void theReadmeQuotesExactlyTheseSnippets() throws IOException {
    List<List<String>> regions = new ArrayList<>();
    List<String> current = null;
    for (String line : Files.readAllLines(THIS_SOURCE)) {
      String text = line.strip();
      if (text.equals("// readme-begin")) {
        current = new ArrayList<>();
      } else if (text.equals("// readme-end")) {
        regions.add(current);
        current = null;
      } else if (current != null) {
        current.add(text);
      }
    }
    assertEquals(3, regions.size(), "regions in " + THIS_SOURCE);

    List<String> readme = Files.readAllLines(README);
    int start = readme.indexOf(SECTION);
    assertTrue(start >= 0, "README has no '" + SECTION + "' section");
    List<List<String>> blocks = new ArrayList<>();
    List<String> block = null;
    for (String line : readme.subList(start + 1, readme.size())) {
      if (block == null && line.startsWith("## ")) {
        break; // the next top-level section
      }
      if (line.equals("```java")) {
        block = new ArrayList<>();
      } else if (line.equals("```") && block != null) {
        blocks.add(block);
        block = null;
      } else if (block != null) {
        block.add(line.strip());
      }
    }
    assertEquals(regions, blocks, "README.md's java blocks under '" + SECTION + "' vs the regions of " + THIS_SOURCE);
  }

  /** Rows of an {@code (id, name)} file, read with parquet-java. */
  private static List<List<Object>> readIdName(Path file) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records =
            new ColumnIOFactory().getColumnIO(schema).getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          Group g = records.read();
          rows.add(Arrays.asList(
              g.getLong("id", 0), g.getFieldRepetitionCount("name") > 0 ? g.getString("name", 0) : null));
        }
      }
    }
    return rows;
  }

  private static String footerSchema(Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      return reader.getFooter().getFileMetaData().getSchema().toString();
    }
  }
}
