package dev.floe.iceberg;

import dev.floe.arrow.ParquetFileSummary;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Iceberg {@link Metrics} for a file floe wrote, computed the way Iceberg computes them.
 *
 * <p>The footer bytes libfloe returns are parsed by parquet-java and handed to Iceberg's own
 * {@code ParquetUtil.footerMetrics}, so record count, column sizes, value and null counts, bounds
 * and their truncation follow the table's {@link MetricsConfig} exactly as for a file Iceberg
 * wrote. Float and double columns outside lists and maps also get their NaN counts (counted
 * natively; Parquet statistics have none) and NaN-free bounds, as Iceberg's own Parquet writer
 * reports them, with the sign of a zero at either end as written (Parquet statistics say -0.0 for
 * every zero minimum and 0.0 for every zero maximum).
 */
public final class FileMetrics {
  /**
   * Built once: constructing read options loads a Hadoop configuration, which cost more than
   * writing a small file. The converter is thread-safe (its caches are concurrent).
   */
  private static final ParquetMetadataConverter CONVERTER =
      new ParquetMetadataConverter(ParquetReadOptions.builder().build());

  private FileMetrics() {}

  public static Metrics of(ParquetFileSummary summary, MetricsConfig config) {
    ParquetMetadata footer = parseFooter(summary.footer());
    return ParquetUtil.footerMetrics(footer, floatMetrics(footer, summary).stream(), config);
  }

  /** Row group starting positions, sorted: Iceberg's {@code DataFile.splitOffsets()}. */
  public static List<Long> splitOffsets(ParquetFileSummary summary) {
    return ParquetUtil.getSplitOffsets(parseFooter(summary.footer()));
  }

  static ParquetMetadata parseFooter(byte[] footer) {
    try {
      return CONVERTER.readParquetMetadata(new ByteArrayInputStream(footer), ParquetMetadataConverter.NO_FILTER);
    } catch (IOException e) {
      // bytes in memory that do not parse: libfloe's mistake, no I/O failure worth trying again
      throw new IllegalStateException("cannot parse the Parquet footer libfloe returned", e);
    }
  }

  /** Writer-side metrics for float/double leaves: footer counts and bounds plus NaN counts. */
  private static List<FieldMetrics<?>> floatMetrics(ParquetMetadata footer, ParquetFileSummary summary) {
    Map<String, ParquetFileSummary.NanCount> nanByPath = new HashMap<>();
    for (ParquetFileSummary.NanCount n : summary.nanCounts()) {
      nanByPath.put(String.join(".", n.path()), n);
    }
    Map<String, Accumulator> byPath = new HashMap<>();
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData column : block.getColumns()) {
        String path = column.getPath().toDotString();
        if (nanByPath.containsKey(path)) {
          byPath.computeIfAbsent(path, p -> new Accumulator(column.getPrimitiveType())).add(column);
        }
      }
    }
    List<FieldMetrics<?>> out = new ArrayList<>();
    byPath.forEach(
        (path, acc) -> {
          if (acc.id != null && acc.complete) {
            out.add(acc.build(nanByPath.get(path)));
          }
        });
    return out;
  }

  /** Sums a float/double column's chunks; bounds are the footer's (libfloe excludes NaN). */
  private static final class Accumulator {
    final Integer id;
    final boolean isFloat;
    long values;
    long nulls;
    Double min;
    Double max;
    boolean complete = true;

    Accumulator(PrimitiveType type) {
      this.id = type.getId() == null ? null : type.getId().intValue();
      this.isFloat = type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FLOAT;
    }

    void add(ColumnChunkMetaData column) {
      Statistics<?> stats = column.getStatistics();
      if (stats == null || stats.isEmpty() || !stats.isNumNullsSet()) {
        complete = false; // as Iceberg: no stats in one row group means no metrics for the file
        return;
      }
      values += column.getValueCount();
      nulls += stats.getNumNulls();
      if (stats.hasNonNullValue()) {
        double lo = decode(stats.getMinBytes());
        double hi = decode(stats.getMaxBytes());
        if (!Double.isNaN(lo)) {
          min = min == null ? lo : Math.min(min, lo);
        }
        if (!Double.isNaN(hi)) {
          max = max == null ? hi : Math.max(max, hi);
        }
      }
    }

    private double decode(byte[] bytes) {
      ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
      return isFloat ? b.getFloat() : b.getDouble();
    }

    FieldMetrics<?> build(ParquetFileSummary.NanCount written) {
      long nanCount = written.count();
      // a zero at either end: the one written, as Iceberg's Float.compare keeps it (-0.0 < 0.0)
      if (min != null && min == 0.0) {
        min = written.negativeZero() ? -0.0 : 0.0;
      }
      if (max != null && max == 0.0) {
        max = written.positiveZero() ? 0.0 : -0.0;
      }
      if (isFloat) {
        return new FieldMetrics<>(
            id, values, nulls, nanCount,
            min == null ? null : (float) min.doubleValue(),
            max == null ? null : (float) max.doubleValue());
      }
      return new FieldMetrics<>(id, values, nulls, nanCount, min, max);
    }
  }
}
