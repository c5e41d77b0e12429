package dev.floe.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A 50-column flat table: 20 int64, 10 float64, 10 short utf8 strings, 5 int32, 5 timestamps.
 * Columns alternate between shapes a writer meets in practice -- sequential ids, low-cardinality
 * codes (dictionary-friendly), and high-entropy values (dictionary falls back to plain) -- so
 * the benchmark does not only measure one encoding path. Field ids are 1..50 in column order.
 */
final class WideTable {
  static final int DEFAULT_ROWS = 200_000;

  private static final long BASE_MICROS =
      Instant.parse("2026-11-30T12:00:00Z").toEpochMilli() * 1000;
  private static final String[] WORDS = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "north", "south", "east", "west",
    "up", "down"
  };
  /** Share of nulls in every string column (the only nullable ones). */
  private static final double NULL_SHARE = 0.02;

  private WideTable() {}

  static GeneratedTable generate(int rows, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Column> columns = new ArrayList<>();
    int id = 1;
    for (int i = 0; i < 20; i++, id++) {
      columns.add(Column.int64(id, "l%02d".formatted(i), longs(rows, i, random)));
    }
    for (int i = 0; i < 10; i++, id++) {
      columns.add(Column.float64(id, "d%02d".formatted(i), doubles(rows, i, random)));
    }
    for (int i = 0; i < 10; i++, id++) {
      columns.add(Column.utf8(id, "s%02d".formatted(i), true, strings(rows, i, random)));
    }
    for (int i = 0; i < 5; i++, id++) {
      columns.add(Column.int32(id, "i%02d".formatted(i), ints(rows, i, random)));
    }
    for (int i = 0; i < 5; i++, id++) {
      columns.add(Column.timestampMicros(id, "t%02d".formatted(i), timestamps(rows, i, random)));
    }
    return new GeneratedTable("wide50", rows, columns);
  }

  private static long[] longs(int rows, int column, SplittableRandom random) {
    long[] values = new long[rows];
    for (int r = 0; r < rows; r++) {
      values[r] =
          switch (column % 4) {
            case 0 -> 1_000_000L * column + (long) r * (column + 1); // sequential id
            case 1 -> random.nextLong(1000); // low-cardinality code
            case 2 -> random.nextLong(); // high entropy
            default -> random.nextLong(1_000_000); // mid-range quantity
          };
    }
    return values;
  }

  private static double[] doubles(int rows, int column, SplittableRandom random) {
    double[] values = new double[rows];
    for (int r = 0; r < rows; r++) {
      values[r] =
          column % 2 == 0
              ? Math.round(random.nextDouble() * 100_000) / 100.0 // a price in cents
              : random.nextDouble() * 1e6; // a measurement, full mantissa
    }
    return values;
  }

  private static String[] strings(int rows, int column, SplittableRandom random) {
    String[] values = new String[rows];
    for (int r = 0; r < rows; r++) {
      if (random.nextDouble() < NULL_SHARE) {
        continue;
      }
      values[r] =
          column % 2 == 0
              ? WORDS[random.nextInt(WORDS.length)] // a category
              : randomWord(5 + random.nextInt(8), random); // a free-form short string
    }
    return values;
  }

  private static String randomWord(int length, SplittableRandom random) {
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(chars);
  }

  private static int[] ints(int rows, int column, SplittableRandom random) {
    int[] values = new int[rows];
    for (int r = 0; r < rows; r++) {
      values[r] = column % 2 == 0 ? random.nextInt(100) : random.nextInt(1_000_000);
    }
    return values;
  }

  /** Event times: rising by a millisecond per row (times column + 1), with up to 1 s of jitter. */
  private static long[] timestamps(int rows, int column, SplittableRandom random) {
    long[] values = new long[rows];
    for (int r = 0; r < rows; r++) {
      values[r] = BASE_MICROS + (long) r * 1000 * (column + 1) + random.nextLong(1_000_000);
    }
    return values;
  }
}
