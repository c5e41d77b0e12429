package dev.floe.cli;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The write tests' corpus: an Iceberg schema (the {@code --schema} file), random rows, their JSON
 * lines, and each row as a plain comparable list {@code [id, name, qty, score, ok, day, ts, tags,
 * loc]} ({@code loc = [lat, city]}, {@code ts} an {@link Instant}) -- the form both read-backs
 * (parquet-java and IcebergGenerics) are converted to.
 */
final class TestRows {
  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "name", Types.StringType.get()),
          optional(3, "qty", Types.IntegerType.get()),
          optional(4, "score", Types.DoubleType.get()),
          optional(5, "ok", Types.BooleanType.get()),
          optional(6, "day", Types.DateType.get()),
          optional(7, "ts", Types.TimestampType.withZone()),
          optional(8, "tags", Types.ListType.ofOptional(9, Types.StringType.get())),
          optional(
              10,
              "loc",
              Types.StructType.of(
                  required(11, "lat", Types.DoubleType.get()), optional(12, "city", Types.StringType.get()))));

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] NAMES = {
    "plain", "héllo wörld", "日本語", "rocket 🚀", "quote \" and \\ backslash", "tab\tnew\nline", ""
  };
  private static final Instant BASE = Instant.parse("2024-02-27T23:59:58.123456Z");

  private TestRows() {}

  static Path writeSchema(Path dir) throws IOException {
    return Files.writeString(dir.resolve("schema.json"), SchemaParser.toJson(SCHEMA));
  }

  /** {@code count} rows with ids {@code firstId, firstId + 1, ...}; nulls spread over every optional column. */
  static List<List<Object>> rows(long seed, long firstId, int count) {
    Random r = new Random(seed);
    List<List<Object>> rows = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      rows.add(
          Arrays.asList(
              id,
              r.nextInt(8) == 0 ? null : NAMES[r.nextInt(NAMES.length)] + id,
              r.nextInt(8) == 0 ? null : r.nextInt(),
              r.nextInt(8) == 0 ? null : (r.nextDouble() - 0.5) * 1e6,
              r.nextInt(8) == 0 ? null : r.nextBoolean(),
              r.nextInt(8) == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(r.nextInt(400) - 200),
              r.nextInt(8) == 0 ? null : BASE.plus(r.nextInt(5 * 86_400_000), ChronoUnit.MILLIS).plusNanos(r.nextInt(1000) * 1000L),
              r.nextInt(8) == 0 ? null : tags(r),
              r.nextInt(8) == 0 ? null : Arrays.asList((double) r.nextInt(180_000) / 1000, r.nextInt(4) == 0 ? null : "city" + r.nextInt(50))));
    }
    return rows;
  }

  private static List<Object> tags(Random r) {
    List<Object> tags = new ArrayList<>();
    for (int i = r.nextInt(4); i > 0; i--) {
      tags.add(r.nextInt(6) == 0 ? null : "t" + r.nextInt(10));
    }
    return tags;
  }

  /** The row as one JSON line (no newline); a null is written as null or left out, by the id. */
  static String json(List<Object> row) {
    ObjectNode node = JSON.createObjectNode();
    String[] names = {"id", "name", "qty", "score", "ok", "day", "ts", "tags", "loc"};
    boolean omitNulls = ((Long) row.get(0)) % 2 == 0;
    for (int i = 0; i < names.length; i++) {
      Object v = row.get(i);
      if (v == null) {
        if (!omitNulls) {
          node.putNull(names[i]);
        }
        continue;
      }
      switch (names[i]) {
        case "day", "ts" -> node.put(names[i], v.toString());
        case "tags" -> {
          ArrayNode tags = node.putArray("tags");
          ((List<?>) v).forEach(t -> tags.add((String) t));
        }
        case "loc" -> {
          List<?> loc = (List<?>) v;
          ObjectNode struct = node.putObject("loc");
          struct.put("lat", (Double) loc.get(0));
          if (loc.get(1) != null) {
            struct.put("city", (String) loc.get(1));
          }
        }
        default -> node.putPOJO(names[i], v);
      }
    }
    return node.toString();
  }

  static byte[] jsonLines(List<List<Object>> rows) {
    StringBuilder out = new StringBuilder();
    rows.forEach(r -> out.append(json(r)).append('\n'));
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** An IcebergGenerics record in the comparable form. */
  static List<Object> fromRecord(Record r) {
    Record loc = (Record) r.getField("loc");
    OffsetDateTime ts = (OffsetDateTime) r.getField("ts");
    return Arrays.asList(
        r.getField("id"),
        r.getField("name"),
        r.getField("qty"),
        r.getField("score"),
        r.getField("ok"),
        r.getField("day"),
        ts == null ? null : ts.toInstant(),
        r.getField("tags") == null ? null : new ArrayList<>((List<?>) r.getField("tags")),
        loc == null ? null : Arrays.asList(loc.getField("lat"), loc.getField("city")));
  }
}
