package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitionedFanoutWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeWrapper;
import org.junit.jupiter.api.Test;

/**
 * Partitioned tables written by floe equal, row for row and file partition for file partition,
 * what Iceberg Java's {@link PartitionedFanoutWriter} writes from the same input.
 */
class PartitionedWriteTest extends EmbeddedCatalogTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "price", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(4, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(5, "day", Types.DateType.get()),
          Types.NestedField.optional(6, "n", Types.IntegerType.get()),
          Types.NestedField.optional(7, "b", Types.BinaryType.get()));

  private Table table(String name, PartitionSpec spec, Map<String, String> properties) {
    Map<String, String> props = new HashMap<>(properties);
    props.put(TableProperties.FORMAT_VERSION, "2");
    return catalog.createTable(TableIdentifier.of("db", name), SCHEMA, spec, props);
  }

  private static List<byte[]> json(List<Record> rows) {
    List<byte[]> out = new ArrayList<>(rows.size());
    rows.forEach(r -> out.add(RandomRows.toJson(r).getBytes(StandardCharsets.UTF_8)));
    return out;
  }

  /** floe, JSON decoded and regrouped natively, 500 messages a batch. */
  private WriteResult writeJsonWithFloe(NativeTaskWriter writer, Table table, List<Record> rows) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        writer) {
      List<byte[]> messages = json(rows);
      for (int start = 0; start < messages.size(); start += 500) {
        batch.clear();
        messages.subList(start, Math.min(messages.size(), start + 500)).forEach(batch::add);
        writer.write(decoder, batch, BadRecordPolicy.FAIL);
      }
      WriteResult result = writer.complete();
      Commits.append(table, result, Map.of());
      return result;
    }
  }

  /** Iceberg Java: generic records through its partitioned fanout writer. */
  private WriteResult writeWithIceberg(Table table, List<Record> rows) throws IOException {
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    GenericAppenderFactory appenders = new GenericAppenderFactory(table.schema(), table.spec());
    appenders.setAll(table.properties());
    InternalRecordWrapper internal = new InternalRecordWrapper(table.schema().asStruct());
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    PartitionedFanoutWriter<Record> writer =
        new PartitionedFanoutWriter<>(
            table.spec(), FileFormat.PARQUET, appenders, files, table.io(), Long.MAX_VALUE) {
          @Override
          protected PartitionKey partition(Record row) {
            key.partition(internal.wrap(row));
            return key;
          }
        };
    for (Record r : rows) {
      writer.write(r);
    }
    WriteResult result = writer.complete();
    Commits.append(table, result, Map.of());
    return result;
  }

  /** Partition tuple -> rows in that partition's files. */
  private static Map<StructLikeWrapper, Long> rowsPerPartition(PartitionSpec spec, WriteResult result) {
    Map<StructLikeWrapper, Long> out = new HashMap<>();
    for (DataFile f : result.dataFiles()) {
      out.merge(StructLikeWrapper.forType(spec.partitionType()).set(f.partition()), f.recordCount(), Long::sum);
    }
    return out;
  }

  private static Map<Object, Integer> multiset(List<Record> rows) {
    Map<Object, Integer> counts = new HashMap<>();
    for (Record r : rows) {
      List<Object> fields = new ArrayList<>();
      for (int i = 0; i < r.size(); i++) {
        Object v = r.get(i);
        fields.add(v instanceof java.nio.ByteBuffer b ? java.util.HexFormat.of().formatHex(bytes(b)) : v);
      }
      counts.merge(fields, 1, Integer::sum);
    }
    return counts;
  }

  private static byte[] bytes(java.nio.ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  @Test
  void everyPartitionedLayoutMatchesIcebergsFanoutWriter() throws IOException {
    List<Record> rows = aroundTheEpoch(new RandomRows(11).records(SCHEMA, 4000));
    List<PartitionSpec> specs =
        List.of(
            PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build(),
            PartitionSpec.builderFor(SCHEMA).day("ts").truncate("name", 1).build(),
            PartitionSpec.builderFor(SCHEMA).bucket("price", 3).month("day").build(),
            PartitionSpec.builderFor(SCHEMA).hour("ts").bucket("n", 3).build());
    int n = 0;
    for (PartitionSpec spec : specs) {
      String floeName = "floe_" + n;
      String javaName = "java_" + n++;
      Table floe = table(floeName, spec, Map.of());
      Table java = table(javaName, spec, Map.of());
      WriteResult ours =
          writeJsonWithFloe(NativeFileWriterFactory.forTable(floe, allocator).newTaskWriter(), floe, rows);
      WriteResult theirs = writeWithIceberg(java, rows);

      String where = "spec " + spec;
      assertEquals(multiset(readAll(javaName)), multiset(readAll(floeName)), where);
      assertEquals(rowsPerPartition(java.spec(), theirs), rowsPerPartition(floe.spec(), ours), where);
      assertEquals(theirs.dataFiles().length, ours.dataFiles().length, where);
      for (DataFile file : ours.dataFiles()) {
        assertTrue(
            file.location().contains("/data/" + floe.spec().partitionToPath(file.partition()) + "/"),
            file.location());
        Metrics fromFile = ParquetUtil.fileMetrics(floe.io().newInputFile(file.location()), MetricsConfig.forTable(floe));
        assertEquals(fromFile.recordCount(), file.recordCount(), where);
        assertEquals(fromFile.valueCounts(), file.valueCounts(), where);
        assertEquals(fromFile.nullValueCounts(), file.nullValueCounts(), where);
        assertEquals(fromFile.lowerBounds(), file.lowerBounds(), where);
        assertEquals(fromFile.upperBounds(), file.upperBounds(), where);
      }
    }
  }

  /**
   * Times within a few days of 1970-01-01, both sides of it, so that time partitions stay few
   * (Iceberg Java's fanout holds a Parquet writer per open partition in heap) and pre-1970 values
   * are in every spec.
   */
  private static List<Record> aroundTheEpoch(List<Record> rows) {
    java.util.Random random = new java.util.Random(5);
    for (Record r : rows) {
      if (r.getField("ts") != null) {
        long micros = random.nextLong(-43_200_000_000L, 43_200_000_000L); // +-12 hours
        r.setField("ts", org.apache.iceberg.util.DateTimeUtil.timestamptzFromMicros(micros));
      }
      if (r.getField("day") != null) {
        r.setField("day", java.time.LocalDate.ofEpochDay(random.nextInt(-45, 45)));
      }
    }
    return rows;
  }

  @Test
  void arrowBatchesFanOutLikeJson() throws IOException {
    List<Record> rows = aroundTheEpoch(new RandomRows(12).records(SCHEMA, 2000));
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("id", 4).day("ts").build();
    Table floe = table("arrow_in", spec, Map.of());
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(floe, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newTaskWriter()) {
      json(rows).forEach(batch::add);
      try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
        writer.write(decoded.root());
      }
      Commits.append(floe, writer.complete(), Map.of());
    }
    assertEquals(multiset(rows), multiset(readAll("arrow_in")));
  }

  /**
   * A writer short of memory: encoding the held rows frees their batches and keeps every file's
   * row group open; flushing writes the row groups out (one more per file). The rows are all there.
   */
  @Test
  void bufferedRowsAreEncodedOrFlushedWithoutLosingAny() throws IOException {
    List<Record> rows = new RandomRows(14).records(SCHEMA, 24_000);
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build();
    Table floe = table("buffered", spec, Map.of());
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(floe, allocator);
    List<byte[]> messages = json(rows);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newTaskWriter()) {
      for (int start = 0; start < messages.size(); start += 2000) {
        batch.clear();
        messages.subList(start, start + 2000).forEach(batch::add);
        writer.write(decoder, batch, BadRecordPolicy.FAIL);
        if (start == 8000) {
          long held = writer.bufferedBytes();
          writer.encodeBuffered();
          long encoded = writer.bufferedBytes();
          assertTrue(encoded < held, held + " bytes buffered before encoding, " + encoded + " after");
        } else if (start == 16_000) {
          writer.flushBuffered();
          assertEquals(0, writer.bufferedBytes());
        }
      }
      WriteResult result = writer.complete();
      assertEquals(4, result.dataFiles().length);
      for (DataFile file : result.dataFiles()) {
        assertEquals(2, file.splitOffsets().size(), "row groups of " + file.location());
      }
      Commits.append(floe, result, Map.of());
    }
    assertEquals(multiset(rows), multiset(readAll("buffered")));
  }

  @Test
  void fanoutOverManyPartitionsKeepsAtMostTheOpenFileLimit() throws IOException {
    List<Record> rows = new RandomRows(13).records(SCHEMA, 4000);
    for (int i = 0; i < rows.size(); i++) {
      rows.get(i).setField("n", i % 200); // 200 partitions, every batch touches all of them
    }
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("n").build();
    Table floe = table("many", spec, Map.of());
    FanoutTaskWriter writer =
        (FanoutTaskWriter) NativeFileWriterFactory.forTable(floe, allocator).newTaskWriter(16);
    WriteResult result;
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(floe, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch()) {
      List<byte[]> messages = json(rows);
      for (int start = 0; start < messages.size(); start += 1000) {
        batch.clear();
        messages.subList(start, start + 1000).forEach(batch::add);
        writer.write(decoder, batch, BadRecordPolicy.FAIL);
        assertTrue(writer.openFiles() <= 16, "open files: " + writer.openFiles());
      }
      result = writer.complete();
      Commits.append(floe, result, Map.of());
    }
    // Each batch revisits all 200 partitions with 16 open: every partition's file was finished
    // and restarted once per batch (4 batches -> 4 files per partition).
    assertEquals(200 * 4, result.dataFiles().length);
    assertEquals(multiset(rows), multiset(readAll("many")));
  }
}
