package dev.floe.arrow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Reads libfloe's unknown-field report: {@code [{"path":..,"kinds":[..],"count":..}, ...]}. */
final class UnknownFieldsJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private UnknownFieldsJson() {}

  static List<UnknownField> parse(byte[] json) {
    try {
      List<UnknownField> out = new ArrayList<>();
      for (JsonNode field : JSON.readTree(json)) {
        List<String> kinds = new ArrayList<>();
        field.path("kinds").forEach(k -> kinds.add(k.asText()));
        out.add(new UnknownField(field.path("path").asText(), kinds, field.path("count").asLong()));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("libfloe's unknown-field report is not JSON", e);
    }
  }
}
