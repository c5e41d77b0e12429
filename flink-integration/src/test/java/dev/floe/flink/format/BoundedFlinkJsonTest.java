package dev.floe.flink.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.flink.OpenedSchemas;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataDeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * The bounds change no value Flink's decoders give in bounded time beside a DECIMAL: a DOUBLE and
 * a STRING field's numbers stay Flink's, in the parser-based decoder (which reads decimals only
 * for DECIMAL fields) and in the tree-based one, which is left unbounded (with a DECIMAL in the
 * row it reads every float as a decimal; bounding it changed 1e50 in a DOUBLE to 1e40: helper-86).
 */
class BoundedFlinkJsonTest {
  private static final RowType ROW = RowType.of(
      new LogicalType[] {new DecimalType(10, 2), new DoubleType(), new VarCharType(VarCharType.MAX_LENGTH)},
      new String[] {"d", "x", "s"});
  private static final List<String> MESSAGES = List.of(
      "{\"d\":1.5,\"x\":1e50,\"s\":\"t\"}",
      "{\"d\":1e50,\"x\":1.7976931348623157E308,\"s\":{\"v\":2.5e60}}",
      "{\"d\":-1e-50,\"x\":4.9E-324,\"s\":[1e-50]}");

  @Test
  void theParserBasedDecoderGivesFlinksValues() throws Exception {
    for (String message : MESSAGES) {
      assertEquals(text(parserBased(false), message), text(parserBased(true), message), message);
    }
  }

  /** Messages Flink's decoder refuses are refused with its own errors, causes and all. */
  @Test
  void refusedMessagesFailAsInFlink() throws Exception {
    for (String message : List.of("", "   ", "\n\t", "{", "{\"d\":", "[", "nul", "1.5")) {
      assertEquals(failure(parserBased(false), message), failure(parserBased(true), message), "'" + message + "'");
    }
  }

  @Test
  void theTreeBasedDecoderIsLeftAsFlinkMadeIt() throws Exception {
    for (String message : MESSAGES) {
      assertEquals(text(treeBased(false), message), text(treeBased(true), message), message);
    }
  }

  private static DeserializationSchema<RowData> parserBased(boolean bounded) throws Exception {
    return opened(new JsonParserRowDataDeserializationSchema(ROW, InternalTypeInfo.of(ROW), false, false, TimestampFormat.SQL), bounded);
  }

  private static DeserializationSchema<RowData> treeBased(boolean bounded) throws Exception {
    return opened(new JsonRowDataDeserializationSchema(ROW, InternalTypeInfo.of(ROW), false, false, TimestampFormat.SQL), bounded);
  }

  private static String text(DeserializationSchema<RowData> decoder, String message) throws Exception {
    return String.valueOf(decoder.deserialize(message.getBytes(StandardCharsets.UTF_8)));
  }

  /** The messages of the failure's causes, outermost first, or the row if there is none. */
  private static String failure(DeserializationSchema<RowData> decoder, String message) throws Exception {
    try {
      return "row " + text(decoder, message);
    } catch (IOException e) {
      StringBuilder causes = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        causes.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append('\n');
      }
      return causes.toString();
    }
  }

  private static DeserializationSchema<RowData> opened(DeserializationSchema<RowData> decoder, boolean bounded) throws Exception {
    OpenedSchemas.opened(decoder);
    if (bounded) {
      BoundedFlinkJson.bound(decoder);
    }
    return decoder;
  }
}
