package dev.floe.bench.stock;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The stock Java path that Kafka Connect-style sinks take: Jackson parses each message into a tree,
 * which is converted to an Iceberg {@link GenericRecord} field by field. It is the reference floe's
 * native decoder is checked against, and the baseline it is measured against.
 */
public final class JacksonRecordDecoder {
  private static final DateTimeFormatter LOCAL_TIMESTAMP =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .optionalStart().appendLiteral('T').optionalEnd()
          .optionalStart().appendLiteral(' ').optionalEnd()
          .appendPattern("HH:mm")
          .optionalStart().appendPattern(":ss")
          .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
          .optionalEnd()
          .toFormatter();

  private final ObjectMapper mapper =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private final Schema schema;

  public JacksonRecordDecoder(Schema schema) {
    this.schema = schema;
  }

  /** Decodes one message; throws on anything the schema cannot hold. */
  public Record decode(byte[] message) throws IOException {
    JsonNode node = mapper.readTree(message);
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("message is not a JSON object");
    }
    return struct(node, schema.asStruct());
  }

  private Record struct(JsonNode node, Types.StructType type) {
    GenericRecord record = GenericRecord.create(type);
    List<Types.NestedField> fields = type.fields();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField field = fields.get(i);
      JsonNode value = node.get(field.name());
      if (value == null || value.isNull()) {
        if (field.isRequired()) {
          throw new IllegalArgumentException("missing required field " + field.name());
        }
        continue;
      }
      record.set(i, value(value, field.type()));
    }
    return record;
  }

  private Object value(JsonNode node, Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> requireType(node, node.isBoolean(), type).booleanValue();
      case INTEGER -> {
        requireType(node, node.canConvertToInt() && node.isIntegralNumber(), type);
        yield node.intValue();
      }
      case LONG -> {
        requireType(node, node.canConvertToLong() && node.isIntegralNumber(), type);
        yield node.longValue();
      }
      case FLOAT -> requireType(node, node.isNumber(), type).floatValue();
      case DOUBLE -> requireType(node, node.isNumber(), type).doubleValue();
      case DECIMAL -> {
        BigDecimal d = node.isTextual() ? new BigDecimal(node.textValue()) : node.decimalValue();
        yield d.setScale(((Types.DecimalType) type).scale());
      }
      case STRING -> requireType(node, node.isTextual(), type).textValue();
      case DATE -> LocalDate.parse(node.textValue());
      case TIME -> LocalTime.parse(node.textValue());
      case TIMESTAMP -> {
        boolean zoned = ((Types.TimestampType) type).shouldAdjustToUTC();
        if (node.isIntegralNumber()) {
          LocalDateTime utc = LocalDateTime.ofEpochSecond(
              Math.floorDiv(node.longValue(), 1000), (int) Math.floorMod(node.longValue(), 1000) * 1_000_000, ZoneOffset.UTC);
          yield zoned ? utc.atOffset(ZoneOffset.UTC) : utc;
        }
        yield zoned
            ? OffsetDateTime.parse(node.textValue().replace(' ', 'T')).withOffsetSameInstant(ZoneOffset.UTC)
            : LocalDateTime.parse(node.textValue(), LOCAL_TIMESTAMP);
      }
      case UUID -> UUID.fromString(node.textValue());
      case BINARY -> ByteBuffer.wrap(Base64.getDecoder().decode(node.textValue()));
      case FIXED -> Base64.getDecoder().decode(node.textValue());
      case STRUCT -> struct(node, type.asStructType());
      case LIST -> {
        Types.ListType list = type.asListType();
        List<Object> out = new ArrayList<>(node.size());
        for (JsonNode element : node) {
          out.add(element.isNull() ? null : value(element, list.elementType()));
        }
        yield out;
      }
      case MAP -> {
        Types.MapType map = type.asMapType();
        Map<Object, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
          out.put(e.getKey(), e.getValue().isNull() ? null : value(e.getValue(), map.valueType()));
        }
        yield out;
      }
      default -> throw new IllegalArgumentException("unsupported type " + type);
    };
  }

  private static JsonNode requireType(JsonNode node, boolean ok, Type type) {
    if (!ok) {
      throw new IllegalArgumentException("expected " + type + ", found " + node.getNodeType());
    }
    return node;
  }
}
