package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Partition specs from text, as the CLI, the Kafka sink and the Connect connector take them. */
class PartitionSpecsTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(3, "user-id", Types.StringType.get()),
      Types.NestedField.optional(4, "s", Types.StringType.get()));

  @Test
  void termsOfEveryKindAndColumnNamesWithAnyCharacters() {
    PartitionSpec expected = PartitionSpec.builderFor(SCHEMA)
        .bucket("id", 4).day("ts").identity("user-id").truncate("s", 3).build();
    assertEquals(expected.fields(),
        PartitionSpecs.parse("bucket(4, id), days(ts), user-id, truncate(s, 3)", SCHEMA).fields());
    assertEquals(expected.fields(),
        PartitionSpecs.parse("Bucket(id,4),DAY(ts),identity(user-id),truncate(3,s)", SCHEMA).fields());
    assertTrue(PartitionSpecs.parse("  ", SCHEMA).isUnpartitioned());
    assertEquals(java.util.List.of("id", "ts", "user-id", "s"),
        PartitionSpecs.sourceColumns("Bucket(id,4),DAY(ts),identity(user-id),truncate(3,s)"));
  }

  @Test
  void badTermsAreRefusedNamingThem() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PartitionSpecs.parse("bucket(id)", SCHEMA));
    assertTrue(e.getMessage().contains("'bucket(id)'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PartitionSpecs.parse("weeks(ts)", SCHEMA));
    assertTrue(e.getMessage().contains("unknown transform 'weeks'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PartitionSpecs.parse("nope", SCHEMA));
    assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
  }
}
