package dev.floe.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

/**
 * What a Connect schema asks of a table's schema ({@link ConnectSchemaEvolution#plan}, planned
 * without committing): the cases Iceberg would refuse or Parquet could not write are left out.
 */
class ConnectSchemaEvolutionTest {
  private static final org.apache.iceberg.Schema TABLE = new org.apache.iceberg.Schema(
      List.of(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "key", Types.StructType.of(
              Types.NestedField.required(3, "region", Types.StringType.get()))),
          Types.NestedField.required(4, "name", Types.StringType.get()),
          Types.NestedField.optional(5, "counts", Types.ListType.ofOptional(6, Types.IntegerType.get()))),
      Set.of(1, 3));

  @Test
  void identifierFieldsAndTheStructsHoldingThemStayRequired() {
    Schema record = SchemaBuilder.struct()
        .field("id", Schema.OPTIONAL_INT64_SCHEMA)
        .field("key", SchemaBuilder.struct().optional().field("region", Schema.OPTIONAL_STRING_SCHEMA).build())
        .field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .build();
    assertEquals(List.of("made name optional"), ConnectSchemaEvolution.plan(TABLE, record, null, false));
  }

  @Test
  void structsWithNoFieldsAreLeftOutAndListElementsWiden() {
    Schema empty = SchemaBuilder.struct().optional().build();
    Schema record = SchemaBuilder.struct()
        .field("id", Schema.INT64_SCHEMA)
        .field("nothing", empty)
        .field("nested", SchemaBuilder.struct().optional().field("nothing", empty).field("n", Schema.INT16_SCHEMA).build())
        .field("counts", SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).optional().build())
        .build();
    assertEquals(List.of("added nested struct<1: n: required int>", "widened counts.element int -> long"),
        ConnectSchemaEvolution.plan(TABLE, record, null, false));
  }

  /**
   * Fields floe could add but then not write, or that would break the table for others, are left
   * out (found in review): a map with int keys as such (libfloe decodes string keys only, and every
   * later start of a task failed on the committed column; it is added with string keys), a field
   * "key.region" naming the struct key's
   * field, or a new struct's (Iceberg refused the update, and the task failed at every restart),
   * and fields that differ only in case, added with each other or from a nested column
   * (case-insensitive readers then failed).
   */
  @Test
  void fieldsFloeCouldNotWriteOrThatCollideAreLeftOut() {
    Schema record = SchemaBuilder.struct()
        .field("id", Schema.INT64_SCHEMA)
        .field("by_code", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).optional().build())
        .field("by_name", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).optional().build())
        .field("key.region", Schema.OPTIONAL_STRING_SCHEMA)
        .field("Flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
        .field("flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
        .field("inner", SchemaBuilder.struct().optional()
            .field("X", Schema.OPTIONAL_INT32_SCHEMA).field("x", Schema.OPTIONAL_INT32_SCHEMA).build())
        .field("Key.region", Schema.OPTIONAL_STRING_SCHEMA) // key.region but for case
        .field("pair", SchemaBuilder.struct().optional().field("b", Schema.OPTIONAL_INT32_SCHEMA).build())
        .field("pair.b", Schema.OPTIONAL_INT32_SCHEMA) // the field just added inside pair
        .build();
    assertEquals(List.of("added by_code map<string, string>", "added by_name map<string, string>", "added Flag boolean",
            "added inner struct<1: X: optional int>", "added pair struct<1: b: optional int>"),
        ConnectSchemaEvolution.plan(TABLE, record, null, false));
  }
}
