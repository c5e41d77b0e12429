package dev.floe.connect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Connect's structured values written as the JSON floe's decoder reads into Iceberg columns: a
 * {@link Struct} by its schema, schemaless {@code Map}s, lists and Java values (JsonConverter
 * without schemas, or transforms) by their Java types. Each value takes the text form of the
 * Iceberg type it maps to, as Iceberg's own connector converts it:
 *
 * <ul>
 *   <li>Decimal: a plain number ({@code 1E-8} is written {@code 0.00000001});
 *   <li>Date: {@code yyyy-MM-dd}; Time: {@code HH:mm:ss.SSS}; Timestamp and {@code java.util.Date}:
 *       epoch milliseconds (a number, which floe reads into timestamp columns as milliseconds);
 *       {@code java.time} values in ISO form, with their offset when they have one;
 *   <li>FLOAT32: the float's exact value as a double ({@code 0.1f} is {@code 0.10000000149011612}),
 *       so a double column gets what Java's widening gives and a float column the float itself;
 *   <li>FLOAT64: its shortest text, which reads back as the double itself; a double that lies
 *       exactly halfway between two floats is written in full, so a float column takes what
 *       Java's {@code (float)} cast gives, as in Iceberg's connector (its shortest text can lie on
 *       the other side of the halfway point);
 *   <li>bytes: base64 of the bytes ({@code ByteBuffer}s from position to limit); UUIDs as text;
 *   <li>map keys as text: dates, times and decimals as their values, timestamps as ISO-8601
 *       instants, bytes as base64, structs, lists and maps as their JSON; Structs inside
 *       schemaless values by their own schemas.
 * </ul>
 *
 * Connect's JsonConverter, which this replaces, writes Date and Time as plain numbers (days, and
 * milliseconds of the day), which a date or time column refuses and a timestamp column reads as
 * epoch milliseconds, and refuses BigDecimal, java.util.Date, UUID and java.time values in
 * schemaless maps. A value whose type fits no column (a Date where the table has a timestamp)
 * still fails to decode, naming the field, rather than landing as something else.
 */
final class ConnectJson {
  private static final JsonFactory JSON = new JsonFactory();
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  private final ByteArrayOutputStream out = new ByteArrayOutputStream(512);

  /** {@code value} (with {@code schema}, or null for a schemaless value) as JSON bytes. */
  byte[] write(Object value, Schema schema) {
    out.reset();
    try (JsonGenerator json = JSON.createGenerator(out)) {
      write(json, value, schema);
    } catch (StreamConstraintsException e) { // nested deeper than Jackson writes: a bad record, not a task failure
      throw new DataException("a value nested too deep to write as JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    } catch (ClassCastException e) {
      throw new DataException("a value does not have the type its Connect schema names: " + e.getMessage(), e);
    }
    return out.toByteArray();
  }

  private static void write(JsonGenerator json, Object value, Schema schema) throws IOException {
    if (value == null) {
      json.writeNull();
    } else if (schema != null) {
      writeTyped(json, value, schema);
    } else {
      writeSchemaless(json, value);
    }
  }

  private static void writeTyped(JsonGenerator json, Object value, Schema schema) throws IOException {
    String logical = schema.name();
    if (logical != null) {
      switch (logical) {
        case Decimal.LOGICAL_NAME -> {
          json.writeNumber(((BigDecimal) value).toPlainString());
          return;
        }
        case Date.LOGICAL_NAME -> {
          json.writeString(dateText(value));
          return;
        }
        case Time.LOGICAL_NAME -> {
          json.writeString(timeText(value));
          return;
        }
        case Timestamp.LOGICAL_NAME -> {
          json.writeNumber(((java.util.Date) value).getTime());
          return;
        }
        default -> { } // other named schemas are their type
      }
    }
    switch (schema.type()) {
      case INT8, INT16, INT32, INT64 -> json.writeNumber(((Number) value).longValue());
      case FLOAT32 -> json.writeNumber((double) (Float) value);
      case FLOAT64 -> writeDouble(json, (Double) value);
      case BOOLEAN -> json.writeBoolean((Boolean) value);
      case STRING -> json.writeString((String) value);
      case BYTES -> json.writeString(base64(value));
      case ARRAY -> {
        json.writeStartArray();
        for (Object element : (Collection<?>) value) {
          write(json, element, schema.valueSchema());
        }
        json.writeEndArray();
      }
      case MAP -> {
        json.writeStartObject();
        for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
          json.writeFieldName(keyText(entry.getKey(), schema.keySchema()));
          write(json, entry.getValue(), schema.valueSchema());
        }
        json.writeEndObject();
      }
      case STRUCT -> writeStruct(json, (Struct) value);
    }
  }

  private static String dateText(Object date) {
    return LocalDate.ofInstant(instant((java.util.Date) date), ZoneOffset.UTC).toString();
  }

  /**
   * {@code java.sql.Date} and {@code java.sql.Time} throw from {@code toInstant()}: by their
   * milliseconds; a {@code java.sql.Timestamp} keeps its nanoseconds (helper-86).
   */
  private static Instant instant(java.util.Date date) {
    return date instanceof java.sql.Timestamp timestamp ? timestamp.toInstant() : Instant.ofEpochMilli(date.getTime());
  }

  private static String timeText(Object time) {
    long millis = ((java.util.Date) time).getTime();
    return LocalTime.ofNanoOfDay(Math.floorMod(millis, 86_400_000L) * 1_000_000L).format(TIME);
  }

  /**
   * A map key by its Connect schema, as the text a {@code map<string, ...>} column keeps (libfloe
   * decodes string keys only): dates, times and decimals in the text their values take, timestamps
   * as ISO-8601 instants, bytes as base64, structs, lists and maps as their JSON, the rest as Java
   * writes them. Before, {@code Date.toString()} gave text that depended on the JVM's time zone,
   * and a struct its {@code toString()} (helper-77, helper-81).
   */
  private static String keyText(Object key, Schema keySchema) throws IOException {
    if (key == null) {
      return "null";
    }
    String logical = keySchema.name();
    if (logical != null) {
      switch (logical) {
        case Decimal.LOGICAL_NAME -> {
          return ((BigDecimal) key).toPlainString();
        }
        case Date.LOGICAL_NAME -> {
          return dateText(key);
        }
        case Time.LOGICAL_NAME -> {
          return timeText(key);
        }
        case Timestamp.LOGICAL_NAME -> {
          return instant((java.util.Date) key).toString();
        }
        default -> { } // other named schemas are their type
      }
    }
    return switch (keySchema.type()) {
      case BYTES -> base64(key);
      case STRUCT, ARRAY, MAP -> jsonText(key, keySchema);
      default -> String.valueOf(key);
    };
  }

  /**
   * A schemaless map's key (after a transform: JsonConverter gives string keys) as text, which
   * also names the struct field a created table takes for it ({@link RecordSchemas}): as {@link
   * #keyText(Object, Schema)} for the Java types Connect's logical types use, {@code java.time}
   * values in ISO form, other values as Java writes them.
   */
  static String keyText(Object key) {
    try {
      return switch (key) {
        case null -> "null";
        case java.util.Date d -> instant(d).toString();
        case byte[] _, ByteBuffer _ -> base64(key);
        case BigDecimal d -> d.toPlainString();
        case ZonedDateTime t -> t.toOffsetDateTime().toString();
        case Struct _, Map<?, ?> _, Collection<?> _ -> jsonText(key, null);
        default -> String.valueOf(key);
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e); // written to a string
    }
  }

  /** {@code value} as JSON text (a key that is a struct, a list or a map). */
  private static String jsonText(Object value, Schema schema) throws IOException {
    java.io.StringWriter text = new java.io.StringWriter();
    try (JsonGenerator json = JSON.createGenerator(text)) {
      write(json, value, schema);
    }
    return text.toString();
  }

  private static void writeDouble(JsonGenerator json, double value) throws IOException {
    if (halfwayBetweenFloats(value)) {
      json.writeNumber(new BigDecimal(value).toString());
    } else {
      json.writeNumber(value);
    }
  }

  /** Whether {@code value} is exactly the midpoint of two adjacent floats (a rounding tie). */
  static boolean halfwayBetweenFloats(double value) {
    double magnitude = Math.abs(value);
    if (magnitude >= 0x1p-126) { // a normal float's binade: the 29 bits a float drops are 1000...0
      return (Double.doubleToRawLongBits(value) & 0x1FFF_FFFFL) == 0x1000_0000L;
    }
    double inSubnormalSteps = Math.scalb(magnitude, 150); // half-steps of the smallest float
    return inSubnormalSteps == Math.rint(inSubnormalSteps) && inSubnormalSteps % 2 == 1;
  }

  private static void writeStruct(JsonGenerator json, Struct struct) throws IOException {
    json.writeStartObject();
    for (Field field : struct.schema().fields()) {
      json.writeFieldName(field.name());
      write(json, struct.get(field), field.schema()); // a null field takes its default, as in Iceberg's connector
    }
    json.writeEndObject();
  }

  private static void writeSchemaless(JsonGenerator json, Object value) throws IOException {
    switch (value) {
      case String s -> json.writeString(s);
      case Boolean b -> json.writeBoolean(b);
      case Byte _, Short _, Integer _, Long _ -> json.writeNumber(((Number) value).longValue());
      case Float f -> json.writeNumber((double) f);
      case Double d -> writeDouble(json, d);
      case BigDecimal d -> json.writeNumber(d.toPlainString());
      case BigInteger i -> json.writeNumber(i);
      case byte[] _, ByteBuffer _ -> json.writeString(base64(value));
      case java.util.Date d -> json.writeNumber(d.getTime());
      case LocalDate d -> json.writeString(d.toString());
      case LocalTime t -> json.writeString(t.toString());
      case LocalDateTime t -> json.writeString(t.toString());
      case OffsetDateTime t -> json.writeString(t.toString());
      case ZonedDateTime t -> json.writeString(t.toOffsetDateTime().toString());
      case Instant t -> json.writeString(t.toString());
      case UUID u -> json.writeString(u.toString());
      case Struct s -> writeStruct(json, s);
      case Map<?, ?> m -> {
        json.writeStartObject();
        for (Map.Entry<?, ?> entry : m.entrySet()) {
          json.writeFieldName(keyText(entry.getKey()));
          write(json, entry.getValue(), null);
        }
        json.writeEndObject();
      }
      case List<?> l -> {
        json.writeStartArray();
        for (Object element : l) {
          write(json, element, null);
        }
        json.writeEndArray();
      }
      default -> throw new DataException("a value of type " + value.getClass().getName() + " has no JSON form floe writes");
    }
  }

  private static String base64(Object bytes) {
    if (bytes instanceof ByteBuffer buffer) {
      ByteBuffer slice = buffer.slice(); // position to limit, whatever backs it
      byte[] copy = new byte[slice.remaining()];
      slice.get(copy);
      return Base64.getEncoder().encodeToString(copy);
    }
    return Base64.getEncoder().encodeToString((byte[]) bytes);
  }
}
