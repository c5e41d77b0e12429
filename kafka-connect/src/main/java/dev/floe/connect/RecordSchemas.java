package dev.floe.connect;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The schema of a table auto-created from its first record, when the config gives no Iceberg schema
 * JSON, as Iceberg's connector derives one:
 *
 * <ul>
 *   <li>a {@code Struct} value (JsonConverter with schemas, Avro, Protobuf): its Connect schema,
 *       each field mapped as schema evolution maps it ({@link ConnectSchemaEvolution#icebergType});
 *   <li>a schemaless {@code Map} (JsonConverter without schemas): its values' Java types -- strings,
 *       booleans, integers as long, floating point as double, decimals as decimal(38, their scale)
 *       (Iceberg's connector takes the first value's precision, which a larger later value would not
 *       fit), dates and times ({@code java.util.Date}, {@code Instant} and values with an offset
 *       as timestamptz), UUIDs, lists by their first non-null element, maps as structs, every
 *       column optional.
 * </ul>
 *
 * Fields with nothing to infer from (a null, an empty list or map, bytes in a schemaless map; in a
 * Struct's schema, a struct without fields) get no column; with
 * schema evolution on, a later record that has them adds them. A schemaless map's keys name
 * struct fields by their text ({@link ConnectJson#keyText(Object)}), as in Iceberg's connector;
 * of keys that differ only in case, the first the map gives is kept. Raw JSON (bytes or strings)
 * carries no schema: null.
 */
final class RecordSchemas {
  private RecordSchemas() {}

  /** The schema {@code record}'s value gives a new table (placeholder ids), or null if it gives none. */
  static Schema of(SinkRecord record) {
    Type type;
    AtomicInteger ids = new AtomicInteger(1);
    if (record.value() instanceof org.apache.kafka.connect.data.Struct struct) {
      type = ConnectSchemaEvolution.icebergType(struct.schema(), ids);
    } else if (record.value() instanceof Map<?, ?> map && record.valueSchema() == null) {
      type = inferred(map, ids);
    } else {
      return null;
    }
    return type == null ? null : new Schema(type.asStructType().fields());
  }

  private static Type inferred(Object value, AtomicInteger ids) {
    return switch (value) {
      case null -> null;
      case String _ -> Types.StringType.get();
      case Boolean _ -> Types.BooleanType.get();
      case BigDecimal d -> d.scale() > 38 ? null : Types.DecimalType.of(38, Math.max(0, d.scale()));
      case Byte _, Short _, Integer _, Long _ -> Types.LongType.get();
      case Float _, Double _ -> Types.DoubleType.get();
      case LocalDate _ -> Types.DateType.get();
      case LocalTime _ -> Types.TimeType.get();
      case LocalDateTime _ -> Types.TimestampType.withoutZone();
      case OffsetDateTime _, ZonedDateTime _, Instant _, java.util.Date _ -> Types.TimestampType.withZone();
      case UUID _ -> Types.UUIDType.get();
      case org.apache.kafka.connect.data.Struct struct -> ConnectSchemaEvolution.icebergType(struct.schema(), ids);
      case List<?> list -> {
        Type element = list.stream().filter(e -> e != null).findFirst().map(e -> inferred(e, ids)).orElse(null);
        yield element == null ? null : Types.ListType.ofOptional(ids.getAndIncrement(), element);
      }
      case Map<?, ?> map -> {
        List<Types.NestedField> fields = new ArrayList<>();
        Set<String> names = new HashSet<>(); // of fields that differ only in case, the first
        for (Map.Entry<?, ?> e : map.entrySet()) {
          Type type = e.getKey() == null ? null : inferred(e.getValue(), ids);
          String name = ConnectJson.keyText(e.getKey()); // the key the record's JSON gives the field
          if (type != null && names.add(name.toLowerCase(Locale.ROOT))) {
            fields.add(Types.NestedField.optional(ids.getAndIncrement(), name, type));
          }
        }
        yield fields.isEmpty() ? null : Types.StructType.of(fields);
      }
      default -> null;
    };
  }
}
