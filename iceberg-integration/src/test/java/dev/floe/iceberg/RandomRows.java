package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Seeded random Iceberg records for a schema -- nulls, negatives, zero, unicode, NaN, pre-1970
 * times -- and each record as the JSON message a producer would send, so floe (JSON in) and
 * Iceberg's Java writer (records in) get the same rows.
 */
final class RandomRows {
  private static final String[] TEXT = {"", "a", "zürich", "東京", "😀 emoji", "quote \" back \\", "nul \u0000", "zzz"};
  private final Random random;

  RandomRows(long seed) {
    this.random = new Random(seed);
  }

  List<Record> records(Schema schema, int count) {
    List<Record> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(struct(schema.asStruct(), i));
    }
    return out;
  }

  private Record struct(Types.StructType type, int row) {
    GenericRecord r = GenericRecord.create(type);
    List<Types.NestedField> fields = type.fields();
    for (int f = 0; f < fields.size(); f++) {
      Types.NestedField field = fields.get(f);
      boolean isNull = field.isOptional() && random.nextInt(8) == 0;
      r.set(f, isNull ? null : value(field.type(), row));
    }
    return r;
  }

  private Object value(Type type, int row) {
    boolean edge = random.nextInt(6) == 0;
    return switch (type.typeId()) {
      case BOOLEAN -> random.nextBoolean();
      case INTEGER -> edge ? pick(0, Integer.MIN_VALUE, Integer.MAX_VALUE, -1) : random.nextInt();
      case LONG -> edge ? pick(0L, Long.MIN_VALUE, Long.MAX_VALUE, -1L) : random.nextLong();
      case FLOAT -> edge ? pick(Float.NaN, -0.0f, 0.0f, Float.MAX_VALUE) : (random.nextFloat() - 0.5f) * 1e6f;
      case DOUBLE -> edge ? pick(Double.NaN, -0.0, Double.MIN_VALUE, -1e300) : random.nextGaussian() * 1e9;
      case DECIMAL -> {
        Types.DecimalType d = (Types.DecimalType) type;
        BigInteger unscaled = new BigInteger(Math.min(120, d.precision() * 3), random);
        BigDecimal v = new BigDecimal(unscaled.mod(BigInteger.TEN.pow(d.precision())), d.scale());
        yield random.nextBoolean() ? v.negate() : v;
      }
      case DATE -> LocalDate.ofEpochDay(random.nextInt(80_000) - 40_000);
      case TIME -> LocalTime.ofNanoOfDay((long) (random.nextDouble() * 86_400_000_000L) * 1000);
      case TIMESTAMP -> {
        LocalDateTime t = LocalDateTime.ofEpochSecond(
            random.nextLong(-3_000_000_000L, 4_000_000_000L), random.nextInt(1_000_000) * 1000, ZoneOffset.UTC);
        yield ((Types.TimestampType) type).shouldAdjustToUTC() ? t.atOffset(ZoneOffset.UTC) : t;
      }
      case TIMESTAMP_NANO -> {
        LocalDateTime t = LocalDateTime.ofEpochSecond(
            random.nextLong(-3_000_000_000L, 4_000_000_000L), random.nextInt(1_000_000_000), ZoneOffset.UTC);
        yield ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? t.atOffset(ZoneOffset.UTC) : t;
      }
      case STRING -> TEXT[random.nextInt(TEXT.length)] + (edge ? "" : Integer.toString(random.nextInt(1000)));
      case UUID -> new UUID(random.nextLong(), random.nextLong());
      case FIXED -> bytes(((Types.FixedType) type).length());
      case BINARY -> ByteBuffer.wrap(bytes(random.nextInt(20)));
      case STRUCT -> struct(type.asStructType(), row);
      case LIST -> {
        List<Object> list = new ArrayList<>();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          boolean isNull = type.asListType().isElementOptional() && random.nextInt(5) == 0;
          list.add(isNull ? null : value(type.asListType().elementType(), row));
        }
        yield list;
      }
      case MAP -> {
        Map<Object, Object> map = new LinkedHashMap<>();
        int n = random.nextInt(3);
        for (int i = 0; i < n; i++) {
          boolean isNull = type.asMapType().isValueOptional() && random.nextInt(5) == 0;
          map.put("k" + i + TEXT[random.nextInt(TEXT.length)], isNull ? null : value(type.asMapType().valueType(), row));
        }
        yield map;
      }
      default -> throw new IllegalArgumentException("no random values for " + type);
    };
  }

  @SafeVarargs
  private <T> T pick(T... options) {
    return options[random.nextInt(options.length)];
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  /** The record as one JSON object, in the formats floe's decoder reads. */
  /**
   * floe writes {@code rows} into {@code table}: as JSON messages in one batch, decoded and written
   * natively by the table's task writer. The files are not committed.
   */
  static WriteResult writeWithFloe(Table table, List<Record> rows, BufferAllocator allocator) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newTaskWriter()) {
      for (Record row : rows) {
        batch.add(toJson(row).getBytes(StandardCharsets.UTF_8));
      }
      writer.write(decoder, batch, BadRecordPolicy.FAIL);
      return writer.complete();
    }
  }

  static String toJson(Record record) {
    StringBuilder out = new StringBuilder();
    appendStruct(record, record.struct(), out);
    return out.toString();
  }

  private static void appendStruct(Record r, Types.StructType type, StringBuilder out) {
    out.append('{');
    boolean first = true;
    for (int f = 0; f < type.fields().size(); f++) {
      Object v = r.get(f);
      if (v == null && f % 2 == 0) {
        continue; // absent and explicit null both mean null; exercise both
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      quote(type.fields().get(f).name(), out);
      out.append(':');
      append(v, type.fields().get(f).type(), out);
    }
    out.append('}');
  }

  private static void append(Object v, Type type, StringBuilder out) {
    if (v == null) {
      out.append("null");
      return;
    }
    switch (type.typeId()) {
      case BOOLEAN, INTEGER, LONG -> out.append(v);
      case FLOAT -> {
        float f = (Float) v;
        if (Float.isNaN(f)) {
          out.append("\"NaN\"");
        } else {
          out.append(Float.toString(f));
        }
      }
      case DOUBLE -> {
        double d = (Double) v;
        if (Double.isNaN(d)) {
          out.append("\"NaN\"");
        } else {
          out.append(Double.toString(d));
        }
      }
      case DECIMAL -> out.append(((BigDecimal) v).toPlainString());
      case DATE, TIME -> quote(v.toString(), out);
      case TIMESTAMP, TIMESTAMP_NANO ->
          quote(v instanceof OffsetDateTime o ? o.toString() : v.toString(), out);
      case STRING -> quote((String) v, out);
      case UUID -> quote(v.toString(), out);
      case FIXED -> quote(Base64.getEncoder().encodeToString((byte[]) v), out);
      case BINARY -> {
        ByteBuffer b = ((ByteBuffer) v).duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        quote(Base64.getEncoder().encodeToString(bytes), out);
      }
      case STRUCT -> appendStruct((Record) v, type.asStructType(), out);
      case LIST -> {
        out.append('[');
        boolean first = true;
        for (Object e : (List<?>) v) {
          if (!first) {
            out.append(',');
          }
          first = false;
          append(e, type.asListType().elementType(), out);
        }
        out.append(']');
      }
      case MAP -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          if (!first) {
            out.append(',');
          }
          first = false;
          quote((String) e.getKey(), out);
          out.append(':');
          append(e.getValue(), type.asMapType().valueType(), out);
        }
        out.append('}');
      }
      default -> throw new IllegalArgumentException("no JSON for " + type);
    }
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
