package dev.floe.flink.nexmark;

import java.util.Map;

/** The two ways the suite runs a query: the same SQL, only the format and the sink connector differ. */
public enum NexmarkEngine {
  /**
   * Flink's {@code json} format into Iceberg's {@code iceberg} connector, on its Sink V2 ({@code
   * IcebergSink}, the topology floe's sink has). The connector's default, the older {@code
   * FlinkSink}, loses rows in bounded runs here (a writer's last files missing from the commits;
   * see the suite's README), so it cannot be a validated baseline.
   */
  STOCK("json", "iceberg", Map.of("table.exec.iceberg.use-v2-sink", "true")),
  /** floe's {@code floe-json} format into floe's {@code floe-iceberg} connector. */
  FLOE("floe-json", "floe-iceberg", Map.of());

  private final String format;
  private final String connector;
  private final Map<String, String> settings;

  NexmarkEngine(String format, String connector, Map<String, String> settings) {
    this.format = format;
    this.connector = connector;
    this.settings = settings;
  }

  /** Job settings of this engine on top of the suite's. */
  public Map<String, String> settings() {
    return settings;
  }

  public String format() {
    return format;
  }

  public String connector() {
    return connector;
  }

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
