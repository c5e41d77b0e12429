package dev.floe.connect;

import dev.floe.kafka.sink.RouteField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Which tables a record goes to, as in Iceberg's connector:
 *
 * <ul>
 *   <li>{@code iceberg.tables} without a route field: every table;
 *   <li>with {@code iceberg.tables.route-field}: each table whose {@code
 *       iceberg.table.<name>.route-regex} matches the field's value (a table without one gets
 *       nothing);
 *   <li>{@code iceberg.tables.dynamic-enabled}: the table the field's value names, lower-cased.
 * </ul>
 */
final class Routes {
  private final List<String> tables;
  private final List<Pattern> regexes;
  private final RouteField field;
  private final String fieldName;
  private final boolean dynamic;

  Routes(ConnectorSettings settings) {
    this.tables = settings.tables();
    this.regexes = new ArrayList<>();
    for (String table : tables) {
      regexes.add(settings.routeRegex(table));
    }
    this.fieldName = settings.routeField();
    this.field = fieldName == null ? null : new RouteField(fieldName);
    this.dynamic = settings.dynamic();
  }

  private static boolean isObject(byte[] value) {
    for (byte b : value) {
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        return b == '{';
      }
    }
    return false;
  }

  /**
   * A number's or boolean's JSON text as Iceberg's connector matches it: the text of the value
   * JsonConverter reads ({@code routeValue.toString()}): an integer as a long's text, another
   * number as a double's ({@code 7.50} is {@code 7.5}, {@code 1e3} is {@code 1000.0}), a boolean
   * as {@code true} or {@code false}.
   */
  static String asIcebergText(String scalar) {
    if (scalar == null || scalar.isEmpty()) {
      return scalar;
    }
    char first = scalar.charAt(0);
    if (first != '-' && !Character.isDigit(first)) {
      return scalar;
    }
    try {
      return Long.toString(Long.parseLong(scalar));
    } catch (NumberFormatException notALong) {
      try {
        return Double.toString(Double.parseDouble(scalar));
      } catch (NumberFormatException notANumber) {
        return scalar;
      }
    }
  }

  /** Whether every record goes to every table (tombstones can be routed). */
  boolean toEveryTable() {
    return field == null;
  }

  List<String> staticTables() {
    return tables;
  }

  /**
   * The tables a record's value goes to (possibly none). A {@code Struct} or {@code Map} value (from
   * a converter with schemas, or an SMT) routes by its field's Java value as Iceberg's connector
   * routes it, by {@code toString()}: a FLOAT32 {@code 0.1} is {@code 0.1} and a decimal keeps its
   * scale, which their JSON would not (helper-90). Other values route by their JSON, {@code json}.
   *
   * @throws IllegalArgumentException if dynamic routing finds no route value, or the value is malformed
   */
  List<String> route(Object connectValue, byte[] json) {
    if (field == null) {
      return tables;
    }
    if (connectValue instanceof Struct struct) {
      Field routeField = struct.schema().field(fieldName);
      return routeBy(routeField == null ? null : text(struct.get(routeField)));
    }
    if (connectValue instanceof Map<?, ?> map) {
      return routeBy(text(map.get(fieldName)));
    }
    return route(json);
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }

  /**
   * The tables a JSON value goes to (possibly none).
   *
   * @throws IllegalArgumentException if dynamic routing finds no route value, or the value is malformed
   */
  List<String> route(byte[] value) {
    if (field == null) {
      return tables;
    }
    if (!isObject(value)) {
      throw new IllegalArgumentException("the value is not a JSON object, so it has no field '" + fieldName
          + "' to route it by");
    }
    String routeValue = field.read(ByteBuffer.wrap(value));
    if (routeValue == null) { // not a string: a number or a boolean routes by its text, as in Iceberg's connector
      routeValue = asIcebergText(field.readScalar(ByteBuffer.wrap(value)));
    }
    return routeBy(routeValue);
  }

  private List<String> routeBy(String routeValue) {
    if (dynamic) {
      if (routeValue == null) {
        throw new IllegalArgumentException("no field '" + fieldName + "' to route the record by");
      }
      return List.of(routeValue.toLowerCase(Locale.ROOT));
    }
    if (routeValue == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>(1);
    for (int i = 0; i < tables.size(); i++) {
      Pattern regex = regexes.get(i);
      if (regex != null && regex.matcher(routeValue).matches()) {
        out.add(tables.get(i));
      }
    }
    return out;
  }
}
