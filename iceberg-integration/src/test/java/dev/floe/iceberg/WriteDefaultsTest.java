package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Format v3 defaults: columns added with an {@code initial-default} read it for rows written
 * before them (Iceberg's reader); rows floe writes without the field get the {@code
 * write-default}, and an explicit null stays null.
 */
class WriteDefaultsTest extends EmbeddedCatalogTest {
  @Test
  void columnsAddedWithDefaultsFillOldRowsAndNewRowsWithoutTheField() throws Exception {
    Schema start = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Table table = catalog.createTable(TableIdentifier.of("db", "defaults"), start, PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "3"));
    write(table, "{\"id\":1}", "{\"id\":2}");

    table.updateSchema()
        .addColumn("city", Types.StringType.get(), "where", Literal.of("unknown"))
        .addRequiredColumn("level", Types.IntegerType.get(), "a level", Literal.of(7))
        .addColumn("price", Types.DecimalType.of(6, 2), "a price", Literal.of(new BigDecimal("1.50")))
        .addColumn("day", Types.DateType.get(), "a day", Literal.of("2024-02-29").to(Types.DateType.get()))
        .commit();
    table.updateSchema().updateColumnDefault("city", Literal.of("nowhere")).commit();
    write(table, "{\"id\":3}", "{\"id\":4,\"city\":\"x\",\"level\":1,\"price\":2.25,\"day\":\"2024-01-01\"}",
        "{\"id\":5,\"city\":null,\"price\":null}");

    Map<Long, List<Object>> rows = new TreeMap<>();
    for (Record r : readAll("defaults")) {
      rows.put((Long) r.getField("id"),
          Arrays.asList(r.getField("city"), r.getField("level"), r.getField("price"), r.getField("day")));
    }
    LocalDate leap = LocalDate.of(2024, 2, 29);
    BigDecimal oneFifty = new BigDecimal("1.50");
    assertEquals(Map.of(
            1L, Arrays.asList("unknown", 7, oneFifty, leap),
            2L, Arrays.asList("unknown", 7, oneFifty, leap),
            3L, Arrays.asList("nowhere", 7, oneFifty, leap),
            4L, Arrays.asList("x", 1, new BigDecimal("2.25"), LocalDate.of(2024, 1, 1)),
            5L, Arrays.asList(null, 7, null, leap)),
        rows, "old rows read the initial defaults; new rows without the field get the write defaults");
  }

  @Test
  void aWriteDefaultTheDecoderCannotReadIsRefusedNamingTheField() {
    org.apache.arrow.vector.types.pojo.Field bad = new org.apache.arrow.vector.types.pojo.Field("n",
        new org.apache.arrow.vector.types.pojo.FieldType(true, new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true),
            null, Map.of(ArrowSchemas.FIELD_ID, "1", ArrowSchemas.WRITE_DEFAULT, "\"seven\"")), null);
    var schema = new org.apache.arrow.vector.types.pojo.Schema(List.of(bad));
    RuntimeException refused = assertThrows(RuntimeException.class,
        () -> NativeJsonDecoder.create(schema, JsonDecoderConfig.defaults()).close());
    assertTrue(refused.getMessage().contains("field 'n': its write default"), refused.getMessage());
  }

  private void write(Table table, String... messages) {
    table.refresh();
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newTaskWriter()) {
      for (String m : messages) {
        batch.add(m.getBytes(StandardCharsets.UTF_8));
      }
      assertEquals(messages.length, writer.write(decoder, batch, BadRecordPolicy.FAIL).rows());
      Commits.append(table, writer.complete(), Map.of());
    }
  }
}
