package dev.floe.arrow;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Reads libfloe's unknown-field report: {@code [{"path":..,"kinds":[..],"count":..}, ...]}, with
 * {@code parent_id} and {@code shape}, or {@code field_id} and {@code widen_to}, when described
 * (docs/ffi.md).
 */
final class UnknownFieldsJson {
  /**
   * A described shape nests three levels of JSON for each of an object value's ({@code
   * {"object":[{"name":..,"shape":..}]}}), so a report of values as deep as the decoder reads
   * ({@link JsonDecoderConfig#MAX_DEPTH}) is deeper than Jackson's default limit of 1,000.
   */
  private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(3 * JsonDecoderConfig.MAX_DEPTH + 8).build())
      .build());

  private UnknownFieldsJson() {}

  static List<UnknownField> parse(byte[] json) {
    try {
      List<UnknownField> out = new ArrayList<>();
      for (JsonNode field : JSON.readTree(json)) {
        List<String> kinds = new ArrayList<>();
        field.path("kinds").forEach(k -> kinds.add(k.asText()));
        out.add(new UnknownField(
            field.path("path").asText(),
            kinds,
            field.path("count").asLong(),
            optionalInt(field, "parent_id"),
            field.has("shape") ? Optional.of(shape(field.get("shape"))) : Optional.empty(),
            optionalInt(field, "field_id"),
            field.has("widen_to") ? Optional.of(field.get("widen_to").asText()) : Optional.empty(),
            field.has("name") ? Optional.of(field.get("name").asText()) : Optional.empty()));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("libfloe's unknown-field report is not JSON", e);
    }
  }

  private static OptionalInt optionalInt(JsonNode node, String name) {
    return node.has(name) ? OptionalInt.of(node.get(name).asInt()) : OptionalInt.empty();
  }

  /** {@code "integer"}, {@code {"object": [{"name", "shape"}...]}} or {@code {"array": shape}}. */
  private static ValueShape shape(JsonNode node) {
    if (node.isTextual()) {
      return new ValueShape.Scalar(node.asText());
    }
    if (node.has("array")) {
      return new ValueShape.ArrayShape(shape(node.get("array")));
    }
    if (node.has("object")) {
      List<ValueShape.Field> fields = new ArrayList<>();
      for (JsonNode f : node.get("object")) {
        fields.add(new ValueShape.Field(f.path("name").asText(), shape(f.get("shape"))));
      }
      return new ValueShape.ObjectShape(fields);
    }
    throw new IllegalStateException("libfloe's unknown-field report has an unreadable shape: " + node);
  }
}
