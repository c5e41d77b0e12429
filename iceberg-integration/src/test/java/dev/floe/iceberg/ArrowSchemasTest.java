package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class ArrowSchemasTest {
  /** Every v2 type (from the write test) plus the nanosecond timestamps of v3. */
  static final Schema EVERY_TYPE =
      TypeUtil.join(
          NativeIcebergWriteTest.SCHEMA,
          new Schema(
              Types.NestedField.optional(11, "ts_ns", Types.TimestampNanoType.withoutZone()),
              Types.NestedField.optional(12, "tstz_ns", Types.TimestampNanoType.withZone()),
              Types.NestedField.required(22, "lr", Types.ListType.ofRequired(23, Types.StringType.get()))));

  @Test
  void everyIcebergTypeMapsToArrowWithFieldIdsAndBack() {
    var arrow = ArrowSchemas.toArrow(EVERY_TYPE);
    assertEquals("1", arrow.findField("id").getMetadata().get(ArrowSchemas.FIELD_ID));
    assertEquals(false, arrow.findField("id").isNullable());
    assertEquals(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), arrow.findField("tstz").getType());
    assertEquals(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null), arrow.findField("ts_ns").getType());
    assertEquals("arrow.uuid", arrow.findField("u").getMetadata().get("ARROW:extension:name"));
    Field element = arrow.findField("l").getChildren().getFirst();
    assertEquals("21", element.getMetadata().get(ArrowSchemas.FIELD_ID));
    Field entries = arrow.findField("m").getChildren().getFirst();
    assertEquals("25", entries.getChildren().get(0).getMetadata().get(ArrowSchemas.FIELD_ID));
    assertEquals("26", entries.getChildren().get(1).getMetadata().get(ArrowSchemas.FIELD_ID));

    Schema back = ArrowSchemas.fromArrow(arrow);
    assertEquals(EVERY_TYPE.asStruct(), back.asStruct());
  }

  @Test
  void arrowFieldsWithoutIdsGetFreshOnes() {
    var arrow =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(
                new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field(
                    "b",
                    FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));
    Schema schema = ArrowSchemas.fromArrow(arrow);
    assertEquals(
        new Schema(
                Types.NestedField.optional(1, "a", Types.LongType.get()),
                Types.NestedField.optional(2, "b", Types.ListType.ofOptional(3, Types.StringType.get())))
            .asStruct(),
        schema.asStruct());
  }

  @Test
  void unmappableTypesAreNamed() {
    var arrow =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(new Field("u8", FieldType.nullable(new ArrowType.Int(8, false)), null)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArrowSchemas.fromArrow(arrow));
    assertEquals(true, e.getMessage().contains("'u8'"));
  }
}
