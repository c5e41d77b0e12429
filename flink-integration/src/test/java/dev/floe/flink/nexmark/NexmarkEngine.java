package dev.floe.flink.nexmark;

/** The two ways the suite runs a query: the same SQL, only the format and the sink connector differ. */
public enum NexmarkEngine {
  /** Flink's {@code json} format into Iceberg's {@code iceberg} connector. */
  STOCK("json", "iceberg"),
  /** floe's {@code floe-json} format into floe's {@code floe-iceberg} connector. */
  FLOE("floe-json", "floe-iceberg");

  private final String format;
  private final String connector;

  NexmarkEngine(String format, String connector) {
    this.format = format;
    this.connector = connector;
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
