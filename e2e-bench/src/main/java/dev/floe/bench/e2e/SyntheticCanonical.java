package dev.floe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.UUID;

/**
 * A synthetic event as the canonical row text of {@code TableFingerprint}: what it must read back
 * as from a table with the synthetic schema (uuid id, user_id, event_type, value, info, ts as
 * timestamptz). Reads the message with a plain Jackson tree, independently of any contender.
 */
final class SyntheticCanonical {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SyntheticCanonical() {}

  static String of(byte[] message) {
    JsonNode node;
    try {
      node = MAPPER.readTree(message);
    } catch (IOException e) {
      throw new UncheckedIOException("synthetic event is not JSON", e);
    }
    Instant ts = Instant.parse(node.get("ts").textValue());
    long micros = Math.addExact(Math.multiplyExact(ts.getEpochSecond(), 1_000_000L), ts.getNano() / 1000);
    // A uuid column reads back as java.util.UUID, printed bare; strings are quoted.
    return "(" + UUID.fromString(node.get("id").textValue())
        + "," + node.get("user_id").longValue()
        + ",\"" + node.get("event_type").textValue() + "\""
        + "," + node.get("value").doubleValue()
        + "," + text(node.get("info"))
        + "," + micros + ")";
  }

  private static String text(JsonNode node) {
    return node == null || node.isNull() ? "null" : "\"" + node.textValue() + "\"";
  }
}
