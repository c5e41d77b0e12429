package dev.floe.connect;

import dev.floe.kafka.sink.RouteField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

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

  /** Whether every record goes to every table (tombstones can be routed). */
  boolean toEveryTable() {
    return field == null;
  }

  List<String> staticTables() {
    return tables;
  }

  /**
   * The tables a value goes to (possibly none).
   *
   * @throws IllegalArgumentException if dynamic routing finds no route value, or the value is malformed
   */
  List<String> route(byte[] value) {
    if (field == null) {
      return tables;
    }
    String routeValue = field.read(ByteBuffer.wrap(value));
    if (dynamic) {
      if (routeValue == null) {
        throw new IllegalArgumentException("no string field '" + fieldName + "' to route the record by");
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
