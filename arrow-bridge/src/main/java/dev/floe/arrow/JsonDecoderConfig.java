package dev.floe.arrow;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;

/**
 * Settings of a native JSON decoder, sent as one versioned JSON blob.
 *
 * @param strict reject messages with fields the schema does not have (default: ignore them)
 * @param reportUnknownFields count the fields the schema does not have, by path and JSON kind,
 *     for {@link NativeJsonDecoder#takeUnknownFields()} (default: off; ignored when strict). It
 *     costs nothing while messages have no such fields.
 * @param describeUnknownFields report them with the shapes of their values (nested fields, array
 *     elements) and their parent struct, and report int, float and decimal values that only a
 *     wider column type would hold: what schema evolution needs (default: off; implies {@code
 *     reportUnknownFields}; ignored when strict). Values too wide for their column are still
 *     rejected.
 * @param maxDepth deepest nesting of objects and arrays accepted (default 64, at most {@value
 *     #MAX_DEPTH}: the native parser recurses on the calling thread's stack, about 170 bytes a level)
 * @param maxMessageBytes largest message accepted (default 16 MiB)
 */
public record JsonDecoderConfig(
    boolean strict, boolean reportUnknownFields, boolean describeUnknownFields, int maxDepth, int maxMessageBytes) {
  public static final int VERSION = 1;
  /** The largest {@code maxDepth}: 1,000 levels take some 170 KiB of the calling thread's stack. */
  public static final int MAX_DEPTH = 1000;
  private static final ObjectMapper JSON = new ObjectMapper();

  public JsonDecoderConfig {
    if (maxDepth <= 0 || maxMessageBytes <= 0) {
      throw new IllegalArgumentException("maxDepth and maxMessageBytes must be > 0");
    }
    if (maxDepth > MAX_DEPTH) {
      throw new IllegalArgumentException(
          "maxDepth " + maxDepth + " is above " + MAX_DEPTH + ", the deepest nesting the native decoder reads on a thread's stack");
    }
  }

  public static JsonDecoderConfig defaults() {
    return new JsonDecoderConfig(false, false, false, 64, 16 * 1024 * 1024);
  }

  public JsonDecoderConfig withStrict(boolean strict) {
    return new JsonDecoderConfig(strict, reportUnknownFields, describeUnknownFields, maxDepth, maxMessageBytes);
  }

  public JsonDecoderConfig withReportUnknownFields(boolean reportUnknownFields) {
    return new JsonDecoderConfig(strict, reportUnknownFields, describeUnknownFields, maxDepth, maxMessageBytes);
  }

  public JsonDecoderConfig withDescribeUnknownFields(boolean describeUnknownFields) {
    return new JsonDecoderConfig(strict, reportUnknownFields, describeUnknownFields, maxDepth, maxMessageBytes);
  }

  public JsonDecoderConfig withMaxDepth(int maxDepth) {
    return new JsonDecoderConfig(strict, reportUnknownFields, describeUnknownFields, maxDepth, maxMessageBytes);
  }

  public JsonDecoderConfig withMaxMessageBytes(int maxMessageBytes) {
    return new JsonDecoderConfig(strict, reportUnknownFields, describeUnknownFields, maxDepth, maxMessageBytes);
  }

  byte[] toJsonBytes() {
    var node = JSON.createObjectNode();
    node.put("version", VERSION);
    node.put("strict", strict);
    node.put("report_unknown_fields", reportUnknownFields);
    node.put("describe_unknown_fields", describeUnknownFields);
    node.put("max_depth", maxDepth);
    node.put("max_message_bytes", maxMessageBytes);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
