package dev.floe.arrow;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;

/**
 * Settings of a native JSON decoder, sent as one versioned JSON blob.
 *
 * @param strict reject messages with fields the schema does not have (default: ignore them)
 * @param maxDepth deepest nesting of objects and arrays accepted (default 64)
 * @param maxMessageBytes largest message accepted (default 16 MiB)
 */
public record JsonDecoderConfig(boolean strict, int maxDepth, int maxMessageBytes) {
  public static final int VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  public JsonDecoderConfig {
    if (maxDepth <= 0 || maxMessageBytes <= 0) {
      throw new IllegalArgumentException("maxDepth and maxMessageBytes must be > 0");
    }
  }

  public static JsonDecoderConfig defaults() {
    return new JsonDecoderConfig(false, 64, 16 * 1024 * 1024);
  }

  public JsonDecoderConfig withStrict(boolean strict) {
    return new JsonDecoderConfig(strict, maxDepth, maxMessageBytes);
  }

  public JsonDecoderConfig withMaxDepth(int maxDepth) {
    return new JsonDecoderConfig(strict, maxDepth, maxMessageBytes);
  }

  public JsonDecoderConfig withMaxMessageBytes(int maxMessageBytes) {
    return new JsonDecoderConfig(strict, maxDepth, maxMessageBytes);
  }

  byte[] toJsonBytes() {
    var node = JSON.createObjectNode();
    node.put("version", VERSION);
    node.put("strict", strict);
    node.put("max_depth", maxDepth);
    node.put("max_message_bytes", maxMessageBytes);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
