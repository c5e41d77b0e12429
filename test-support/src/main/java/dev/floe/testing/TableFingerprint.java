package dev.floe.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * An order-independent fingerprint of a table's rows, read through Iceberg's generic reader (an
 * independent reader: not floe's code): the row count and the sum of a 64-bit hash of each row's
 * canonical text. Equal multisets of rows give equal fingerprints; a lost, duplicated or changed
 * row changes them.
 *
 * <p>Canonical text: {@code (v1,v2,...)} per struct, {@code [..]} for lists, {@code {k=v,..}} for
 * maps, {@code null}, numbers as Java prints them, timestamps and times as microseconds, dates as
 * days since the epoch, strings quoted, bytes in hex.
 */
public record TableFingerprint(long rows, long hashSum) {
  public static TableFingerprint of(Table table) {
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      return ofRecords(records, table.schema().columns().size());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fingerprint of a projection of the table: only {@code columns}, in the table's order. */
  public static TableFingerprint of(Table table, List<String> columns) {
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).select(columns).build()) {
      return ofRecords(records, columns.size());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fingerprint of records read by Iceberg's generic reader, each of its first {@code fields} fields. */
  public static TableFingerprint ofRecords(Iterable<Record> records, int fields) {
    long rows = 0;
    long sum = 0;
    for (Record r : records) {
      rows++;
      sum += hash(canonical(r, fields));
    }
    return new TableFingerprint(rows, sum);
  }

  /** The fingerprint of rows given as canonical texts ({@link Canonical}). */
  public static TableFingerprint ofCanonical(Iterable<String> rows) {
    long count = 0;
    long sum = 0;
    for (String row : rows) {
      count++;
      sum += hash(row);
    }
    return new TableFingerprint(count, sum);
  }

  /** A record's canonical text, of its first {@code fields} fields (reads may append _pos). */
  public static String canonical(Record record, int fields) {
    StringBuilder out = new StringBuilder();
    out.append('(');
    for (int i = 0; i < fields; i++) {
      if (i > 0) {
        out.append(',');
      }
      append(record.get(i), out);
    }
    return out.append(')').toString();
  }

  private static void append(Object v, StringBuilder out) {
    switch (v) {
      case null -> out.append("null");
      case Record r -> out.append(canonical(r, r.size()));
      case CharSequence s -> out.append('"').append(s).append('"');
      case LocalDateTime t -> out.append(micros(t.toInstant(ZoneOffset.UTC)));
      case OffsetDateTime t -> out.append(micros(t.toInstant()));
      case LocalDate d -> out.append(d.toEpochDay());
      case LocalTime t -> out.append(t.toNanoOfDay() / 1000);
      case ByteBuffer b -> {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        out.append(HexFormat.of().formatHex(bytes));
      }
      case byte[] b -> out.append(HexFormat.of().formatHex(b));
      case List<?> l -> {
        out.append('[');
        for (int i = 0; i < l.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          append(l.get(i), out);
        }
        out.append(']');
      }
      case Map<?, ?> m -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : m.entrySet()) {
          if (!first) {
            out.append(',');
          }
          first = false;
          append(e.getKey(), out);
          out.append('=');
          append(e.getValue(), out);
        }
        out.append('}');
      }
      default -> out.append(v);
    }
  }

  private static long micros(java.time.Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
  }

  /** 64-bit FNV-1a over UTF-8, then a final mix so sums of hashes spread well. */
  static long hash(String text) {
    long h = 0xcbf29ce484222325L;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return h;
  }
}
