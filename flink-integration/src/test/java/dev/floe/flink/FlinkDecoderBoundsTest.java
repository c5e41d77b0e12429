package dev.floe.flink;

import static dev.floe.flink.OpenedSchemas.opened;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.format.FloeJsonRowDataDeserializationSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * Messages on which Flink's own json decoder, which floe-json hands what libfloe does not take,
 * never ends or takes minutes (helper-84): floe-json ends on each, with the result Flink gives
 * where it reaches the end of a message in a row, and agrees with Flink on the decimals Flink
 * reads in bounded time.
 */
class FlinkDecoderBoundsTest {
  private static final Duration PROMPTLY = Duration.ofSeconds(20);
  private static final VarCharType STRING = new VarCharType(VarCharType.MAX_LENGTH);

  /** A container where a MAP is expected, in a row of a JSON array: Flink's MAP loop never ends. */
  @Test
  void aContainerWhereAMapIsExpectedEndsUnderIgnoreParseErrors() throws Exception {
    RowType type = RowType.of(new LogicalType[] {new MapType(STRING, new IntType()), new IntType()}, new String[] {"m", "x"});
    for (String message : List.of("[{\"m\":[]}]", "[{\"m\":[1,2],\"x\":3}]", "[{\"m\":{\"a\":1}},{\"m\":[]}]")) {
      List<RowData> rows = assertTimeoutPreemptively(PROMPTLY, () -> decode(floe(type, true), message), message);
      assertTrue(rows.stream().allMatch(row -> row == null || row.getArity() == 2), message + ": " + rows);
    }
  }

  /** A container where a BOOLEAN is expected reads as false and leaves the parser misplaced, without ignore too. */
  @Test
  void aContainerWhereABooleanIsExpectedEndsWithFlinksError() throws Exception {
    RowType type = RowType.of(new LogicalType[] {new ArrayType(new MapType(STRING, new BooleanType()))}, new String[] {"a"});
    String message = "{\"a\":[{\"k\":[]}]}";
    IOException failure = assertTimeoutPreemptively(PROMPTLY,
        () -> assertThrows(IOException.class, () -> decode(floe(type, false), message)));
    assertTrue(failure.getMessage().startsWith("Failed to deserialize JSON"), failure.getMessage());
  }

  @Test
  void decimalsWithHugeExponentsAreReadWithoutTheirPowerOfTen() throws Exception {
    for (DecimalType decimal : List.of(new DecimalType(10, 2), new DecimalType(38, 0), new DecimalType(38, 38))) {
      RowType type = RowType.of(new LogicalType[] {decimal}, new String[] {"d"});
      // Flink reads these in bounded time: floe-json gives the same rows
      for (String value : List.of("1e50", "-1e50", "1e-50", "-1e-50", "1e41", "9.99e39", "1e-39", "1e99999", "-1E-99999")) {
        String message = "{\"d\":" + value + "}";
        assertEquals(String.valueOf(decode(flink(type, false), message)), String.valueOf(decode(floe(type, false), message)),
            decimal + ": " + message);
      }
      // Flink takes about a minute on this one (helper-84), to give a null field: too many digits
      List<RowData> rows = assertTimeoutPreemptively(PROMPTLY, () -> decode(floe(type, false), "{\"d\":1e99999999}"));
      assertTrue(rows.getFirst().isNullAt(0), decimal + ": " + rows);
    }
  }

  @Test
  void aDecimalExponentPastAHundredMillionIsRefused() throws Exception {
    RowType type = RowType.of(new LogicalType[] {new DecimalType(10, 2), new IntType()}, new String[] {"d", "x"});
    String message = "{\"d\":1e200000000,\"x\":1}";
    List<RowData> ignored = assertTimeoutPreemptively(PROMPTLY, () -> decode(floe(type, true), message));
    assertTrue(ignored.getFirst().isNullAt(0), "the field is null under ignore-parse-errors: " + ignored);
    assertEquals(1, ignored.getFirst().getInt(1));
    assertThrows(IOException.class, () -> decode(floe(type, false), message));
  }

  private static List<RowData> decode(DeserializationSchema<RowData> schema, String message) throws IOException {
    List<RowData> rows = new ArrayList<>();
    schema.deserialize(message.getBytes(StandardCharsets.UTF_8), new ListCollector<>(rows));
    return rows;
  }

  private static DeserializationSchema<RowData> floe(RowType type, boolean ignoreParseErrors) throws Exception {
    return opened(FloeJsonRowDataDeserializationSchema.of(type, false, ignoreParseErrors, TimestampFormat.SQL));
  }

  private static DeserializationSchema<RowData> flink(RowType type, boolean ignoreParseErrors) throws Exception {
    return opened(new JsonParserRowDataDeserializationSchema(
        type, InternalTypeInfo.of(type), false, ignoreParseErrors, TimestampFormat.SQL));
  }
}
