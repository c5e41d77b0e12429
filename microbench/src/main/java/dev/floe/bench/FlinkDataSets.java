package dev.floe.bench;

import dev.floe.bench.corpus.NexmarkTables;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.iceberg.Schema;

/**
 * The Flink benchmarks' data sets: {@code nexmark} (all events, the Nexmark schema as Iceberg's
 * Flink module maps it) and {@code synthetic} (~142-byte flat events), and what a Flink format
 * needs to open outside a job.
 */
public final class FlinkDataSets {
  private FlinkDataSets() {}

  /** The data set's Iceberg schema. */
  public static Schema schema(String dataset) {
    return switch (dataset) {
      case "nexmark" -> NexmarkTables.EVENT;
      case "synthetic" -> NexmarkTables.SYNTHETIC;
      default -> throw new IllegalArgumentException("unknown dataset " + dataset);
    };
  }

  /** The data set's first {@code count} Kafka values. */
  public static List<byte[]> messages(String dataset, long seed, int count) {
    schema(dataset); // refuses an unknown name
    return dataset.equals("nexmark")
        ? NexmarkTables.nexmarkMessages(seed, count)
        : NexmarkTables.syntheticMessages(seed, count);
  }

  /** How the data set writes timestamps: Flink's SQL form for Nexmark, ISO-8601 instants for the synthetic events. */
  public static TimestampFormat timestamps(String dataset) {
    return dataset.equals("nexmark") ? TimestampFormat.SQL : TimestampFormat.ISO_8601;
  }

  /** What {@link DeserializationSchema#open} is given: no metrics kept, this class's loader. */
  public static DeserializationSchema.InitializationContext openContext() {
    return new DeserializationSchema.InitializationContext() {
      @Override
      public MetricGroup getMetricGroup() {
        return new UnregisteredMetricsGroup();
      }

      @Override
      public UserCodeClassLoader getUserCodeClassLoader() {
        return SimpleUserCodeClassLoader.create(FlinkDataSets.class.getClassLoader());
      }
    };
  }
}
