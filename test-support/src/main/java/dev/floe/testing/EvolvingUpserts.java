package dev.floe.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * A keyed topic whose producer changes its records while keys change: 300 records of 40 keys
 * ({@code {"id":..}} Kafka keys), some of them tombstones; from record 100 on the values carry a
 * {@code city} field the table lacks, and from 200 on some ids outgrow int. Written in upsert mode
 * with schema evolution into a table of {@link #SCHEMA}, it must end as {@link #latest}: per id,
 * [name, city] of the key's last record, and no row for a key whose last record is a tombstone.
 */
public final class EvolvingUpserts {
  /** The table the records start in: an int identifier {@code id} and an optional {@code name}. */
  public static final Schema SCHEMA = new Schema(
      List.of(
          Types.NestedField.required(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get())),
      Set.of(1));
  public static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).bucket("id", 2).build();
  /** Two evolutions: the city column, then id widened to long. */
  public static final int EVOLUTIONS = 2;

  public final List<byte[]> keys = new ArrayList<>();
  /** The records' values, null for a tombstone. */
  public final List<byte[]> values = new ArrayList<>();
  public final Map<Long, List<Object>> latest = new TreeMap<>();

  public EvolvingUpserts() {
    for (int seq = 0; seq < 300; seq++) {
      long id = seq >= 200 && seq % 25 == 0 ? 3_000_000_000L + seq % 50 : seq % 40;
      String city = seq >= 100 ? "c" + seq : null;
      keys.add(("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
      if (seq >= 100 && seq % 7 == 0) {
        values.add(null);
        latest.remove(id);
      } else {
        String json = "{\"id\":" + id + ",\"name\":\"n" + seq + "\"" + (city == null ? "" : ",\"city\":\"" + city + "\"") + "}";
        values.add(json.getBytes(StandardCharsets.UTF_8));
        latest.put(id, Arrays.asList("n" + seq, city));
      }
    }
    if (!latest.containsKey(3_000_000_000L) || latest.size() < 30) {
      throw new IllegalStateException("the model lost its wide or narrow keys: " + latest.keySet());
    }
  }

  /** Read back by Iceberg's generic reader: [name, city] per id, as {@link #latest} has them. */
  public static Map<Long, List<Object>> rows(org.apache.iceberg.Table table) {
    return TableRows.byId(table, "id", "name", "city");
  }
}
