package dev.floe.flink;

import static dev.floe.flink.OpenedSchemas.opened;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.flink.format.FloeJsonRowDataDeserializationSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.util.Collector;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.junit.jupiter.api.Test;

/**
 * {@code floe-json} against Flink's {@code json} format, message by message: the same rows (by
 * {@code equals}, field for field), or the same failure, for the Nexmark corpus, for random rows of
 * every type it decodes in both timestamp standards, and for messages Flink coerces or rejects,
 * under every combination of {@code fail-on-missing-field} and {@code ignore-parse-errors}. Binary
 * rows (every row type without a MAP) must also be the very bytes Flink's own serializer writes
 * for Flink's row, and equal to it converted to Java objects, so nothing the bytes drop goes
 * unseen.
 */
class FloeJsonFormatTest {
  static final RowType ALL_TYPES =
      RowType.of(
          new LogicalType[] {
            new BooleanType(), new TinyIntType(), new SmallIntType(), new IntType(), new BigIntType(),
            new FloatType(), new DoubleType(), new DecimalType(9, 2), new DecimalType(38, 10), new DateType(),
            new TimeType(), new TimestampType(3), new TimestampType(9), new LocalZonedTimestampType(6),
            new VarCharType(VarCharType.MAX_LENGTH), new VarBinaryType(VarBinaryType.MAX_LENGTH), new BinaryType(5),
            RowType.of(new LogicalType[] {new IntType(), new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"x", "label"}),
            new ArrayType(new BigIntType()),
            new MapType(new VarCharType(VarCharType.MAX_LENGTH), new DoubleType()),
            new ArrayType(RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"n"})),
          },
          new String[] {
            "flag", "tiny", "small", "count", "big", "ratio", "score", "price", "balance", "day", "time_of_day",
            "ts3", "ts9", "instant", "name", "blob", "code", "point", "ids", "attrs", "items"
          });

  /** {@link #ALL_TYPES} without its MAP, and more arrays: rows floe-json returns as binary rows. */
  static final RowType BINARY_TYPES =
      RowType.of(
          new LogicalType[] {
            new BooleanType(), new TinyIntType(), new SmallIntType(), new IntType(), new BigIntType(),
            new FloatType(), new DoubleType(), new DecimalType(9, 2), new DecimalType(38, 10), new DateType(),
            new TimeType(), new TimestampType(9), new LocalZonedTimestampType(6),
            new VarCharType(VarCharType.MAX_LENGTH), new VarBinaryType(VarBinaryType.MAX_LENGTH), new BinaryType(5),
            RowType.of(new LogicalType[] {new IntType(), new VarCharType(VarCharType.MAX_LENGTH)}, new String[] {"x", "label"}),
            new ArrayType(new BigIntType()),
            new ArrayType(RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"n"})),
            new ArrayType(new VarCharType(VarCharType.MAX_LENGTH)), new ArrayType(new BooleanType()),
            new ArrayType(new SmallIntType()), new ArrayType(new DecimalType(38, 10)), new ArrayType(new TimestampType(9)),
            new ArrayType(new ArrayType(new IntType())),
          },
          new String[] {
            "flag", "tiny", "small", "count", "big", "ratio", "score", "price", "balance", "day", "time_of_day",
            "ts9", "instant", "name", "blob", "code", "point", "ids", "items", "tags", "flags", "shorts", "amounts",
            "times", "matrix"
          });

  /** What a decoder made of one message: its rows, or its failure. */
  private record Outcome(List<RowData> rows, String failure) {}

  /** What floe-json did with a run of messages. */
  private record Counts(long fallbacks, long binaryRows) {}

  private static Outcome run(DeserializationSchema<RowData> schema, byte[] message) {
    List<RowData> rows = new ArrayList<>();
    try {
      schema.deserialize(message, new ListCollector<>(rows));
      return new Outcome(rows, null);
    } catch (Exception e) {
      return new Outcome(List.of(), e.getClass().getName() + ": " + e.getMessage());
    }
  }

  /** The same through the one-row method, which refuses a JSON array of several rows. */
  private static Outcome runOne(DeserializationSchema<RowData> schema, byte[] message) {
    try {
      RowData row = schema.deserialize(message);
      return new Outcome(row == null ? List.of() : List.of(row), null);
    } catch (Exception e) {
      return new Outcome(List.of(), e.getClass().getName() + ": " + e.getMessage());
    }
  }

  /** Decodes every message both ways and asserts equal outcomes. */
  private static Counts assertSameAsFlink(
      RowType type, List<byte[]> messages, boolean failOnMissing, boolean ignoreErrors, TimestampFormat standard)
      throws Exception {
    var flink =
        opened(new JsonParserRowDataDeserializationSchema(type, InternalTypeInfo.of(type), failOnMissing, ignoreErrors, standard));
    FloeJsonRowDataDeserializationSchema floe =
        opened(FloeJsonRowDataDeserializationSchema.of(type, failOnMissing, ignoreErrors, standard));
    FloeJsonRowDataDeserializationSchema floeOneRow = // its fallbacks and reused rows apart
        opened(FloeJsonRowDataDeserializationSchema.of(type, failOnMissing, ignoreErrors, standard));
    RowDataSerializer serializer = new RowDataSerializer(type);
    @SuppressWarnings("unchecked")
    DataStructureConverter<Object, Object> external =
        (DataStructureConverter<Object, Object>)
            DataStructureConverters.getConverter(TypeConversions.fromLogicalToDataType(type));
    external.open(FloeJsonFormatTest.class.getClassLoader());
    long binaryRows = 0;
    // Every binary row with its expected bytes, checked again at the end: a row must keep its
    // bytes while later messages decode (the decoder reuses its output array).
    List<BinaryRowData> kept = new ArrayList<>();
    List<String> keptBytes = new ArrayList<>();
    for (byte[] message : messages) {
      Outcome expected = run(flink, message);
      Outcome actual = run(floe, message);
      Supplier<String> what = () -> "message " + new String(message, StandardCharsets.UTF_8);
      Outcome expectedOne = runOne(flink, message);
      Outcome actualOne = runOne(floeOneRow, message);
      assertEquals(expectedOne.failure(), actualOne.failure(), () -> what.get() + ", one row");
      assertEquals(expectedOne.rows().size(), actualOne.rows().size(), () -> what.get() + ", one row");
      if (!expectedOne.rows().isEmpty()) {
        assertEquals(external.toExternalOrNull(expectedOne.rows().getFirst()),
            external.toExternalOrNull(actualOne.rows().getFirst()), () -> what.get() + ", one row");
      }
      assertEquals(expected.failure(), actual.failure(), what);
      assertEquals(expected.rows().size(), actual.rows().size(), what);
      for (int i = 0; i < expected.rows().size(); i++) {
        RowData want = expected.rows().get(i);
        RowData got = actual.rows().get(i);
        if (got instanceof BinaryRowData) {
          binaryRows++;
          assertEquals(
              HexFormat.of().formatHex(bytes(serializer.toBinaryRow(want))),
              HexFormat.of().formatHex(bytes((BinaryRowData) got)),
              () -> what.get() + ": not Flink's own binary row");
          assertEquals(external.toExternalOrNull(want), external.toExternalOrNull(got), what);
          kept.add((BinaryRowData) got);
          keptBytes.add(HexFormat.of().formatHex(bytes((BinaryRowData) got)));
        } else {
          assertEquals(want, got, what);
        }
      }
    }
    for (int i = 0; i < kept.size(); i++) {
      assertEquals(keptBytes.get(i), HexFormat.of().formatHex(bytes(kept.get(i))), "binary row " + i + " changed later");
    }
    return new Counts(floe.fallbacks(), binaryRows);
  }

  @Test
  void nexmarkMessagesDecodeNativelyToFlinksRows() throws Exception {
    RowType type = FlinkSchemaUtil.convert(SchemaParser.fromJson(CorpusSchemas.nexmarkJson()));
    NexmarkGenerator generator = new NexmarkGenerator(3);
    List<byte[]> messages = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      messages.add(NexmarkJson.toBytes(generator.next()));
    }
    Counts counts = assertSameAsFlink(type, messages, false, false, TimestampFormat.SQL);
    assertEquals(0, counts.fallbacks(), "every Nexmark message decodes natively");
    assertEquals(messages.size(), counts.binaryRows(), "every Nexmark row is a binary row");
  }

  /** Random rows of every type, as Flink's own json encoder writes them. */
  private static List<byte[]> encoded(long seed, int count, TimestampFormat standard) throws Exception {
    return encoded(ALL_TYPES, seed, count, standard);
  }

  private static List<byte[]> encoded(RowType type, long seed, int count, TimestampFormat standard) throws Exception {
    SerializationSchema<RowData> encoder =
        new JsonRowDataSerializationSchema(type, standard, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
    encoder.open(null);
    RandomRowData random = new RandomRowData(seed);
    List<byte[]> out = new ArrayList<>();
    for (RowData row : random.rows(type, count)) {
      out.add(encoder.serialize(row));
    }
    return out;
  }

  @Test
  void randomRowsOfEveryTypeDecodeToFlinksRowsInBothTimestampStandards() throws Exception {
    for (TimestampFormat standard : TimestampFormat.values()) {
      List<byte[]> messages = encoded(standard.ordinal() + 1, 3_000, standard);
      long fallbacks = assertSameAsFlink(ALL_TYPES, messages, false, false, standard).fallbacks();
      // NaN and infinities travel as strings, and some decimals in exponent form: Flink's to read.
      assertTrue(fallbacks < messages.size() / 2, standard + ": " + fallbacks + " of " + messages.size() + " fell back");
    }
  }

  @Test
  void randomRowsWithoutMapsAreFlinksOwnBinaryRowsInBothTimestampStandards() throws Exception {
    for (TimestampFormat standard : TimestampFormat.values()) {
      List<byte[]> messages = encoded(BINARY_TYPES, standard.ordinal() + 21, 3_000, standard);
      Counts counts = assertSameAsFlink(BINARY_TYPES, messages, false, false, standard);
      assertTrue(counts.fallbacks() < messages.size() / 2, standard + ": " + counts);
      assertEquals(messages.size() - counts.fallbacks(), counts.binaryRows(), standard + ": " + counts);
    }
  }

  @Test
  void compactTimestampsAreBinaryOnlyWhenTheRowKeepsNothingFiner() throws Exception {
    // TIMESTAMP(p <= 3) is millis in a binary row; Flink's format keeps a finer fraction.
    RowType type =
        RowType.of(
            new LogicalType[] {new TimestampType(3), new TimestampType(0), new ArrayType(new TimestampType(3))},
            new String[] {"ts3", "ts0", "list"});
    List<String> whole =
        List.of(
            "{\"ts3\": \"2024-01-01 10:00:00.123\", \"ts0\": \"1969-12-31 23:59:59\"}",
            "{\"ts3\": \"2024-01-01 10:00:00\", \"list\": [\"1970-01-01 00:00:00.001\", null]}");
    List<String> finer =
        List.of(
            "{\"ts3\": \"2024-01-01 10:00:00.123456\"}",
            "{\"ts0\": \"2024-01-01 10:00:00.5\"}", // millis only: still binary
            "{\"list\": [\"1970-01-01 00:00:00.000000001\"]}");
    Counts wholeCounts = assertSameAsFlink(type, bytes(whole), false, false, TimestampFormat.SQL);
    assertEquals(new Counts(0, whole.size()), wholeCounts);
    Counts finerCounts = assertSameAsFlink(type, bytes(finer), false, false, TimestampFormat.SQL);
    assertEquals(new Counts(0, 1), finerCounts, "only the row without a sub-millisecond fraction is binary");
  }

  @Test
  void wideRowsAndLongArraysAreFlinksOwnBinaryRows() throws Exception {
    // Null bits past the first word of a row (70 fields) and of an array (up to 100 elements).
    int width = 70;
    LogicalType[] types = new LogicalType[width + 1];
    String[] names = new String[width + 1];
    for (int f = 0; f < width; f++) {
      types[f] = f % 2 == 0 ? new BigIntType() : new VarCharType(VarCharType.MAX_LENGTH);
      names[f] = "f" + f;
    }
    types[width] = new ArrayType(new IntType());
    names[width] = "list";
    RowType type = RowType.of(types, names);
    Random random = new Random(31);
    List<byte[]> messages = new ArrayList<>();
    for (int m = 0; m < 200; m++) {
      StringBuilder json = new StringBuilder("{");
      for (int f = 0; f < width; f++) {
        int pick = random.nextInt(5);
        if (pick == 0) {
          continue; // absent
        }
        json.append('"').append(names[f]).append("\":");
        if (pick == 1) {
          json.append("null");
        } else if (f % 2 == 0) {
          json.append(random.nextLong());
        } else {
          json.append('"').append("v".repeat(random.nextInt(12))).append('"');
        }
        json.append(',');
      }
      json.append("\"list\":[");
      int length = random.nextInt(100);
      for (int e = 0; e < length; e++) {
        json.append(e == 0 ? "" : ",").append(random.nextInt(4) == 0 ? "null" : Integer.toString(random.nextInt()));
      }
      messages.add(json.append("]}").toString().getBytes(StandardCharsets.UTF_8));
    }
    Counts counts = assertSameAsFlink(type, messages, false, false, TimestampFormat.SQL);
    assertEquals(new Counts(0, messages.size()), counts);
  }

  private static byte[] bytes(BinaryRowData row) {
    return BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
  }

  private static List<byte[]> bytes(List<String> messages) {
    return messages.stream().map(m -> m.getBytes(StandardCharsets.UTF_8)).toList();
  }

  /** Messages Flink coerces, rejects or reads in its own way, and messages it reads plainly. */
  static final List<String> TRICKY =
      List.of(
          "{\"count\": \"12\", \"big\": \" 7 \"}",
          "{\"count\": 12.9, \"big\": 1e3, \"tiny\": 300, \"small\": 70000}",
          "{\"flag\": \"TRUE\"} ",
          "{\"flag\": 1}",
          "{\"name\": 12.50, \"point\": {\"x\": 1, \"label\": {\"a\": [1, 2]}}}",
          "{\"name\": {\"nested\": true}}",
          "{\"price\": 1.005, \"balance\": \"12.5\"}",
          "{\"price\": 12345678.91}",
          "{\"price\": 1e2}",
          "{\"day\": \"2024-02-30\", \"ts3\": \"2024-02-30 10:00:00\"}",
          "{\"day\": \"2024-2-3\"}",
          "{\"time_of_day\": \"10:11:12.999\", \"ts9\": \"1969-12-31 23:59:59.123456789\"}",
          "{\"ts3\": \"2024-01-01T10:00:00\", \"instant\": \"2024-01-01 10:00:00Z\"}",
          "{\"ts3\": \"2024-01-01 10:00\"}",
          "{\"blob\": \"AAEC\", \"code\": \"AAECAwQ=\"}",
          "{\"blob\": \"AAE\"}",
          "{\"blob\": 5}",
          "{\"ids\": [1, null, 3], \"attrs\": {\"a\": 1.5, \"b\": null, \"a\": 2.5}}",
          "{\"ids\": 5}",
          "{\"items\": [{\"n\": 1}, null, {\"n\": \"2\"}]}",
          "{\"count\": 1, \"count\": 2}",
          "{\"count\": 1, \"unknown\": {\"deep\": [1, {\"x\": null}]}, \"big\": 2}",
          "[{\"count\": 1}, {\"count\": 2}]",
          "[]",
          "{\"count\": 1} trailing",
          "{\"count\": 1",
          "{\"name\": \"\\ud83d\\ude00 \\u00e9 \\n \\\"q\\\"\"}",
          "{\"name\": \"lone \\ud800\"}",
          "{\"name\": \"raw \u0001 control\"}",
          "{\"ratio\": 3.4028235E38, \"score\": 1.7976931348623157E308}",
          "{\"ratio\": 1e39, \"score\": -0}",
          "{\"ratio\": 0.1, \"score\": 123456789012345678901234567890}",
          // just above the midpoint of two floats: one rounding and rounding through a double differ
          "{\"ratio\": 1.0000000596046447753906251, \"score\": 1.00000000000000011102230246251565404236316680908203126}",
          "{\"ratio\": \"1.0000000596046447753906251\"}",
          "\"just a string\"",
          "42",
          "not json",
          "{}",
          "   {\"count\":   -0 }   ");

  @Test
  void trickyMessagesGetFlinksRowsOrFlinksErrorsUnderEveryOption() throws Exception {
    List<byte[]> messages = new ArrayList<>(TRICKY.stream().map(m -> m.getBytes(StandardCharsets.UTF_8)).toList());
    messages.add(new byte[0]);
    messages.addAll(bytes(List.of("[{\"count\": 1}, {\"count\": 2}]", "[{\"count\": 1}]", "[{\"count\": 1}, 5]")));
    messages.add(new byte[] {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xC3, '"', '}'}); // bad UTF-8
    // Tokens at and beyond what Jackson (Flink's parser) reads: numbers of 1,000 characters and
    // names of 50,000, also where the row has no field (string values: libfloe's own tests)
    for (int over = 0; over <= 1; over++) {
      messages.addAll(bytes(List.of(
          "{\"count\": 1, \"unknown\": " + "1".repeat(1_000 + over) + "}",
          "{\"count\": 1, \"" + "k".repeat(50_000 + over) + "\": 2}",
          "{\"count\": 1, \"attrs\": {\"" + "k".repeat(50_000 + over) + "\": 1.5}}")));
    }
    // Complete rows (every field present) for fail-on-missing-field.
    messages.addAll(encoded(9, 50, TimestampFormat.SQL));
    for (boolean failOnMissing : new boolean[] {false, true}) {
      for (boolean ignoreErrors : new boolean[] {false, true}) {
        for (TimestampFormat standard : TimestampFormat.values()) {
          if (failOnMissing && ignoreErrors) {
            // Flink refuses the pair; so does floe-json, with Flink's message
            IllegalArgumentException e =
                assertThrows(
                    IllegalArgumentException.class,
                    () -> FloeJsonRowDataDeserializationSchema.of(ALL_TYPES, true, true, standard));
            assertTrue(e.getMessage().contains("both enabled"), e.getMessage());
            continue;
          }
          assertSameAsFlink(ALL_TYPES, messages, failOnMissing, ignoreErrors, standard);
          assertSameAsFlink(BINARY_TYPES, messages, false, ignoreErrors, standard);
        }
      }
    }
  }

  /**
   * A failure of the operators after the decoder fails the job whichever decoder made the row: Flink's
   * (floe-json's fallback) catches it as a bad message, and under ignore-parse-errors drops it.
   */
  @Test
  void aFailureDownstreamIsNotTakenForABadMessage() throws Exception {
    IllegalStateException downstream = new IllegalStateException("the next operator failed");
    Collector<RowData> failing = new Collector<>() {
      @Override
      public void collect(RowData row) {
        throw downstream;
      }

      @Override
      public void close() {}
    };
    for (boolean ignoreErrors : new boolean[] {false, true}) {
      FloeJsonRowDataDeserializationSchema floe =
          opened(FloeJsonRowDataDeserializationSchema.of(ALL_TYPES, false, ignoreErrors, TimestampFormat.SQL));
      // decoded natively, then an array of rows, which Flink's decoder takes
      for (String message : List.of("{\"count\": 1}", "[{\"count\": 1}, {\"count\": 2}]")) {
        long fallbacks = floe.fallbacks();
        RuntimeException thrown =
            assertThrows(RuntimeException.class, () -> floe.deserialize(message.getBytes(StandardCharsets.UTF_8), failing));
        assertSame(downstream, thrown, message + ", ignore-parse-errors " + ignoreErrors);
        assertEquals(message.startsWith("[") ? fallbacks + 1 : fallbacks, floe.fallbacks(), message);
      }
      // a bad message is still Flink's to judge: skipped, or Flink's error
      Outcome bad = run(floe, "{\"count\": ".getBytes(StandardCharsets.UTF_8));
      assertEquals(ignoreErrors, bad.failure() == null, String.valueOf(bad.failure()));
    }
  }

  @Test
  void randomMutationsOfValidMessagesGetFlinksOutcome() throws Exception {
    List<byte[]> mutated = mutations(encoded(11, 400, TimestampFormat.SQL), new Random(12));
    assertSameAsFlink(ALL_TYPES, mutated, false, false, TimestampFormat.SQL);
    assertSameAsFlink(ALL_TYPES, mutated, false, true, TimestampFormat.SQL);
    List<byte[]> binaryMutated = mutations(encoded(BINARY_TYPES, 13, 400, TimestampFormat.SQL), new Random(14));
    assertSameAsFlink(BINARY_TYPES, binaryMutated, false, false, TimestampFormat.SQL);
  }

  /** Three random edits of each message: an inserted token or a few characters cut. */
  private static List<byte[]> mutations(List<byte[]> valid, Random random) {
    List<byte[]> mutated = new ArrayList<>();
    String[] inserts = {"\"", "1", ".", "-", "e", "null", ",", "}", "]", "{", "[", " ", "\\", "\"x\":1,"};
    for (byte[] message : valid) {
      String text = new String(message, StandardCharsets.UTF_8);
      for (int k = 0; k < 3; k++) {
        int at = random.nextInt(text.length());
        String edit =
            random.nextBoolean()
                ? text.substring(0, at) + inserts[random.nextInt(inserts.length)] + text.substring(at)
                : text.substring(0, at) + text.substring(Math.min(text.length(), at + 1 + random.nextInt(3)));
        mutated.add(edit.getBytes(StandardCharsets.UTF_8));
      }
    }
    return mutated;
  }
}
