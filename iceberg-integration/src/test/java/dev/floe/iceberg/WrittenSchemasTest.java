package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class WrittenSchemasTest {
  private static final Schema WRITTEN =
      new Schema(
          Types.NestedField.required(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "price", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(3, "ratio", Types.FloatType.get()),
          Types.NestedField.optional(4, "note", Types.StringType.get()),
          Types.NestedField.optional(5, "where", Types.StructType.of(
              Types.NestedField.optional(6, "city", Types.StringType.get()))),
          Types.NestedField.optional(7, "tags", Types.ListType.ofOptional(8, Types.StringType.get())));

  @Test
  void promotionsRenamesAddsAndDropsStillRead() {
    Schema evolved =
        new Schema(
            Types.NestedField.required(1, "key", Types.LongType.get()),
            Types.NestedField.optional(2, "price", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(3, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(5, "where", Types.StructType.of(
                Types.NestedField.optional(6, "town", Types.StringType.get()),
                Types.NestedField.optional(9, "zip", Types.IntegerType.get()))),
            Types.NestedField.optional(7, "tags", Types.ListType.ofOptional(8, Types.StringType.get())));
    assertEquals(List.of(), WrittenSchemas.misfits(List.of(WRITTEN), evolved));
    assertEquals(List.of(), WrittenSchemas.misfits(List.of(), evolved));
  }

  @Test
  void aTypeChangedUnderAnIdIsNamed() {
    Schema replaced =
        new Schema(
            Types.NestedField.required(1, "id", Types.StringType.get()),
            Types.NestedField.optional(2, "price", Types.DecimalType.of(9, 3)),
            Types.NestedField.optional(3, "ratio", Types.FloatType.get()),
            Types.NestedField.optional(4, "remark", Types.LongType.get()),
            Types.NestedField.optional(5, "where", Types.StringType.get()),
            Types.NestedField.optional(7, "tags", Types.ListType.ofOptional(8, Types.IntegerType.get())));
    assertEquals(
        List.of(
            "field 1 'id' written as int is now string",
            "field 2 'price' written as decimal(9, 2) is now decimal(9, 3)",
            "field 4 'note' written as string is now 'remark' long",
            "field 5 'where' written as struct<6: city: optional string> is now string",
            "field 8 'tags.element' written as string is now int"),
        WrittenSchemas.misfits(List.of(WRITTEN), replaced));
  }

  /** helper-70: a column written optional, its files may hold nulls, now required. */
  @Test
  void anOptionalColumnMadeRequiredIsNamed() {
    Schema required =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.required(2, "cost", Types.DecimalType.of(9, 2)));
    assertEquals(List.of("field 2 'price' written optional (its files may hold nulls) is now 'cost' required"),
        WrittenSchemas.misfits(List.of(WRITTEN), required));
  }

  @Test
  void eachSchemaACycleWroteIsChecked() {
    Schema widened = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Schema narrowedAgain = new Schema(Types.NestedField.required(1, "id", Types.IntegerType.get()));
    assertEquals(List.of(), WrittenSchemas.misfits(List.of(narrowedAgain, widened), widened));
    assertEquals(List.of("field 1 'id' written as long is now int"),
        WrittenSchemas.misfits(List.of(narrowedAgain, widened), narrowedAgain));
  }
}
