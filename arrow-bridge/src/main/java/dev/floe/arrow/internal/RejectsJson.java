package dev.floe.arrow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.RejectedMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Reads libfloe's reject list ({@code [{"index": i, "reason": "..."}]}) into messages. */
public final class RejectsJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RejectsJson() {}

  public static List<RejectedMessage> parse(byte[] json, MessageBatch batch) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("libfloe returned an unreadable reject list", e);
    }
    List<RejectedMessage> out = new ArrayList<>(root.size());
    for (JsonNode r : root) {
      int index = r.path("index").asInt();
      out.add(
          new RejectedMessage(
              index, r.path("reason").asText(), batch.payload(index), batch.source(index), batch.position(index)));
    }
    return out;
  }
}
