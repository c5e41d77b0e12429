package dev.floe.arrow;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A schema with every Arrow type Iceberg maps to, each field carrying a {@code PARQUET:field_id},
 * and a seeded filler that puts nulls, edge values and unicode in every column.
 */
final class AllTypes {
  static final String FIELD_ID = "PARQUET:field_id";

  private AllTypes() {}

  static Field field(String name, int id, boolean nullable, ArrowType type, Field... children) {
    return new Field(
        name,
        new FieldType(nullable, type, null, id < 0 ? null : Map.of(FIELD_ID, Integer.toString(id))),
        children.length == 0 ? null : List.of(children));
  }

  static Schema schema() {
    AtomicInteger ids = new AtomicInteger(1);
    return new Schema(
        List.of(
            field("id", ids.getAndIncrement(), false, new ArrowType.Int(64, true)),
            field("flag", ids.getAndIncrement(), true, ArrowType.Bool.INSTANCE),
            field("i32", ids.getAndIncrement(), true, new ArrowType.Int(32, true)),
            field("i64", ids.getAndIncrement(), true, new ArrowType.Int(64, true)),
            field("f32", ids.getAndIncrement(), true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            field("f64", ids.getAndIncrement(), true, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            field("dec9", ids.getAndIncrement(), true, new ArrowType.Decimal(9, 2, 128)),
            field("dec18", ids.getAndIncrement(), true, new ArrowType.Decimal(18, 4, 128)),
            field("dec38", ids.getAndIncrement(), true, new ArrowType.Decimal(38, 10, 128)),
            field("day", ids.getAndIncrement(), true, new ArrowType.Date(DateUnit.DAY)),
            field("time_us", ids.getAndIncrement(), true, new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
            field("ts_us", ids.getAndIncrement(), true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
            field("ts_us_utc", ids.getAndIncrement(), true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
            field("ts_ns", ids.getAndIncrement(), true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
            field("ts_ns_utc", ids.getAndIncrement(), true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC")),
            field("text", ids.getAndIncrement(), true, ArrowType.Utf8.INSTANCE),
            field("large_text", ids.getAndIncrement(), true, ArrowType.LargeUtf8.INSTANCE),
            field("bin", ids.getAndIncrement(), true, ArrowType.Binary.INSTANCE),
            field("large_bin", ids.getAndIncrement(), true, ArrowType.LargeBinary.INSTANCE),
            field("uuid", ids.getAndIncrement(), true, new ArrowType.FixedSizeBinary(16)),
            field(
                "point", ids.getAndIncrement(), true, ArrowType.Struct.INSTANCE,
                field("x", ids.getAndIncrement(), false, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                field("label", ids.getAndIncrement(), true, ArrowType.Utf8.INSTANCE)),
            field(
                "tags", ids.getAndIncrement(), true, ArrowType.List.INSTANCE,
                field("element", ids.getAndIncrement(), true, new ArrowType.Int(64, true))),
            field(
                "attrs", ids.getAndIncrement(), true, new ArrowType.Map(false),
                field(
                    "entries", -1, false, ArrowType.Struct.INSTANCE,
                    field("key", ids.getAndIncrement(), false, ArrowType.Utf8.INSTANCE),
                    field("value", ids.getAndIncrement(), true, new ArrowType.Int(32, true))))));
  }

  /** Fills a root with {@code rows} rows; row r is null in every nullable column when r % 7 == 3. */
  static VectorSchemaRoot batch(BufferAllocator allocator, int rows, long seed) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
    Random random = new Random(seed);
    for (FieldVector v : root.getFieldVectors()) {
      v.setInitialCapacity(rows);
      v.allocateNew();
    }
    for (int r = 0; r < rows; r++) {
      boolean nulls = r % 7 == 3;
      ((BigIntVector) root.getVector("id")).setSafe(r, seed * 1_000_000 + r);
      for (FieldVector v : root.getFieldVectors()) {
        if (v.getName().equals("id")) {
          continue;
        }
        if (nulls) {
          v.setNull(r);
        } else {
          fill(v, r, random);
        }
      }
    }
    root.setRowCount(rows);
    return root;
  }

  private static final String[] TEXTS = {"", "a", "zürich", "東京", "emoji 😀", "quote \" and \\", "nul \0 inside"};

  private static void fill(FieldVector v, int r, Random random) {
    switch (v.getName()) {
      case "flag" -> ((BitVector) v).setSafe(r, random.nextBoolean() ? 1 : 0);
      case "i32" -> ((IntVector) v).setSafe(r, pick(random, r, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, random.nextInt()));
      case "i64" -> ((BigIntVector) v).setSafe(r, pick(random, r, Long.MIN_VALUE, Long.MAX_VALUE, 0L, random.nextLong()));
      case "f32" -> ((Float4Vector) v).setSafe(r, pick(random, r, Float.NaN, -0.0f, Float.NEGATIVE_INFINITY, random.nextFloat() * 1e6f - 5e5f));
      case "f64" -> ((Float8Vector) v).setSafe(r, pick(random, r, Double.NaN, Double.MAX_VALUE, -Double.MIN_VALUE, random.nextGaussian() * 1e12));
      case "dec9" -> ((DecimalVector) v).setSafe(r, decimal(random, 9, 2));
      case "dec18" -> ((DecimalVector) v).setSafe(r, decimal(random, 18, 4));
      case "dec38" -> ((DecimalVector) v).setSafe(r, decimal(random, 38, 10));
      case "day" -> ((DateDayVector) v).setSafe(r, random.nextInt(200_000) - 100_000);
      case "time_us" -> ((TimeMicroVector) v).setSafe(r, Math.floorMod(random.nextLong(), 86_400_000_000L));
      case "ts_us", "ts_us_utc", "ts_ns", "ts_ns_utc" -> ((TimeStampVector) v).setSafe(r, random.nextLong() / 4);
      case "text" -> ((VarCharVector) v).setSafe(r, text(random, r));
      case "large_text" -> ((LargeVarCharVector) v).setSafe(r, text(random, r + 3));
      case "bin" -> ((VarBinaryVector) v).setSafe(r, bytes(random, random.nextInt(40)));
      case "large_bin" -> ((LargeVarBinaryVector) v).setSafe(r, bytes(random, random.nextInt(40)));
      case "uuid" -> ((FixedSizeBinaryVector) v).setSafe(r, bytes(random, 16));
      case "point" -> {
        StructVector s = (StructVector) v;
        s.setIndexDefined(r);
        ((Float8Vector) s.getChild("x")).setSafe(r, random.nextDouble());
        VarCharVector label = (VarCharVector) s.getChild("label");
        if (r % 5 == 0) {
          label.setNull(r);
        } else {
          label.setSafe(r, text(random, r));
        }
      }
      case "tags" -> {
        ListVector list = (ListVector) v;
        BigIntVector element = (BigIntVector) list.getDataVector();
        int start = list.startNewValue(r);
        int n = r % 4;
        for (int k = 0; k < n; k++) {
          if (k == 2) {
            element.setNull(start + k);
          } else {
            element.setSafe(start + k, random.nextLong());
          }
        }
        list.endValue(r, n);
      }
      case "attrs" -> {
        MapVector map = (MapVector) v;
        StructVector entries = (StructVector) map.getDataVector();
        VarCharVector keys = (VarCharVector) entries.getChildByOrdinal(0);
        IntVector values = (IntVector) entries.getChildByOrdinal(1);
        int start = map.startNewValue(r);
        int n = r % 3;
        for (int k = 0; k < n; k++) {
          entries.setIndexDefined(start + k);
          keys.setSafe(start + k, ("k" + k + TEXTS[r % TEXTS.length]).getBytes(StandardCharsets.UTF_8));
          if (k == 1) {
            values.setNull(start + k);
          } else {
            values.setSafe(start + k, random.nextInt());
          }
        }
        map.endValue(r, n);
      }
      default -> throw new IllegalArgumentException(v.getName());
    }
  }

  @SafeVarargs
  private static <T> T pick(Random random, int r, T... edgesThenRandom) {
    int edges = edgesThenRandom.length - 1;
    return r % 11 < edges ? edgesThenRandom[r % 11] : edgesThenRandom[edges];
  }

  private static BigDecimal decimal(Random random, int precision, int scale) {
    StringBuilder digits = new StringBuilder(random.nextBoolean() ? "-" : "");
    int n = 1 + random.nextInt(precision);
    for (int i = 0; i < n; i++) {
      digits.append((char) ('0' + random.nextInt(10)));
    }
    return new BigDecimal(new java.math.BigInteger(digits.toString()), scale);
  }

  private static byte[] text(Random random, int r) {
    String base = TEXTS[r % TEXTS.length];
    return (base + (r % 2 == 0 ? "" : Integer.toString(random.nextInt(1000)))).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
