package dev.floe.flink;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * Seeded random Flink rows of a row type: nulls where the type allows, extremes, NaN, unicode,
 * pre-1970 times, empty and nested collections -- the input both Iceberg's Flink sink and floe's
 * write in the equality tests.
 */
public final class RandomRowData {
  private static final String[] TEXT = {"", "a", "zürich", "東京", "😀 emoji", "quote \" back \\", "nul \u0000"};
  private final Random random;

  public RandomRowData(long seed) {
    this.random = new Random(seed);
  }

  public List<RowData> rows(RowType type, int count) {
    List<RowData> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(row(type));
    }
    return out;
  }

  GenericRowData row(RowType type) {
    GenericRowData row = new GenericRowData(type.getFieldCount());
    for (int f = 0; f < type.getFieldCount(); f++) {
      row.setField(f, nullableValue(type.getTypeAt(f)));
    }
    return row;
  }

  private Object nullableValue(LogicalType type) {
    return type.isNullable() && random.nextInt(8) == 0 ? null : value(type);
  }

  Object value(LogicalType type) {
    boolean edge = random.nextInt(6) == 0;
    return switch (type.getTypeRoot()) {
      case BOOLEAN -> random.nextBoolean();
      case TINYINT -> (byte) random.nextInt();
      case SMALLINT -> (short) random.nextInt();
      case INTEGER -> edge ? pick(0, Integer.MIN_VALUE, Integer.MAX_VALUE, -1) : random.nextInt();
      case BIGINT -> edge ? pick(0L, Long.MIN_VALUE, Long.MAX_VALUE, -1L) : random.nextLong();
      case FLOAT -> edge ? pick(Float.NaN, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE) : (random.nextFloat() - 0.5f) * 1e6f;
      case DOUBLE -> edge ? pick(Double.NaN, -0.0, Double.NEGATIVE_INFINITY, -1e300) : random.nextGaussian() * 1e9;
      case DECIMAL -> {
        DecimalType d = (DecimalType) type;
        BigInteger unscaled = new BigInteger(d.getPrecision() * 3, random).mod(BigInteger.TEN.pow(d.getPrecision()));
        BigDecimal v = new BigDecimal(random.nextBoolean() ? unscaled.negate() : unscaled, d.getScale());
        yield DecimalData.fromBigDecimal(v, d.getPrecision(), d.getScale());
      }
      case DATE -> random.nextInt(80_000) - 40_000;
      case TIME_WITHOUT_TIME_ZONE -> random.nextInt(86_400_000);
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          // before and after 1970; nanoseconds only where the type keeps them (Iceberg keeps micros)
          TimestampData.fromEpochMillis(
              random.nextLong(-4_000_000_000_000L, 4_000_000_000_000L),
              LogicalTypeChecks.getPrecision(type) > 6 ? random.nextInt(1_000_000) : random.nextInt(1000) * 1000);
      case CHAR, VARCHAR -> StringData.fromString(edge ? pick(TEXT) : "s" + random.nextInt(1000) + pick(TEXT));
      case BINARY -> bytes(((BinaryType) type).getLength());
      case VARBINARY -> bytes(random.nextInt(12));
      case ROW -> row((RowType) type);
      case ARRAY -> {
        Object[] elements = new Object[random.nextInt(4)];
        for (int i = 0; i < elements.length; i++) {
          elements[i] = nullableValue(((ArrayType) type).getElementType());
        }
        yield new GenericArrayData(elements);
      }
      case MAP -> {
        MapType map = (MapType) type;
        Map<Object, Object> entries = new LinkedHashMap<>();
        int size = random.nextInt(4);
        for (int i = 0; i < size; i++) {
          entries.put(value(map.getKeyType()), nullableValue(map.getValueType()));
        }
        yield new GenericMapData(entries);
      }
      default -> throw new IllegalArgumentException("no random values for " + type);
    };
  }

  private byte[] bytes(int length) {
    byte[] out = new byte[length];
    random.nextBytes(out);
    return out;
  }

  @SafeVarargs
  private <T> T pick(T... choices) {
    return choices[random.nextInt(choices.length)];
  }
}
