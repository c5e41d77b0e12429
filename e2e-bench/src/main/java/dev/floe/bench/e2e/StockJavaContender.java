package dev.floe.bench.e2e;

import org.apache.iceberg.Table;

/** {@link StockJavaSink}: Kafka consumer + Jackson + Iceberg's Java writers, one thread, in this JVM. */
final class StockJavaContender implements Contender {
  @Override
  public String id() {
    return "stock-java";
  }

  @Override
  public String description() {
    return "one KafkaConsumer thread + Jackson -> Iceberg GenericRecord + GenericAppenderFactory in a "
        + "PartitionedFanoutWriter (Parquet, zstd), append commits on the same cadence; no offsets in the "
        + "snapshot summary";
  }

  @Override
  public Outcome run(RunSpec run) throws Exception {
    Table table = run.catalog().loadTable(run.table());
    long start = System.nanoTime();
    try (StockJavaSink sink =
        new StockJavaSink(table, Consumers.config(run.bootstrapServers(), run.group()), run.topic().topic(),
            run.cadence(), run.timeout())) {
      sink.run();
      return new Outcome(System.nanoTime() - start, sink.rowsWritten(), sink.bytesConsumed(), null);
    }
  }
}
