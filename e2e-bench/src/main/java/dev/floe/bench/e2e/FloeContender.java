package dev.floe.bench.e2e;

import dev.floe.kafka.sink.KafkaIcebergSink;
import dev.floe.kafka.sink.SinkConfig;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** floe's {@link KafkaIcebergSink}, in the JVM that runs it, with a fresh consumer group, until the topic's end. */
final class FloeContender implements Contender {
  private final String id;
  private final int encodeThreads;
  private final boolean encodeAhead;
  private final boolean decodeAhead;
  private final boolean overlapCommits;
  private final boolean evolveSchema;

  FloeContender(String id, int encodeThreads, boolean encodeAhead, boolean decodeAhead, boolean overlapCommits,
      boolean evolveSchema) {
    this.id = id;
    this.encodeThreads = encodeThreads;
    this.encodeAhead = encodeAhead;
    this.decodeAhead = decodeAhead;
    this.overlapCommits = overlapCommits;
    this.evolveSchema = evolveSchema;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String description() {
    return "floe's KafkaIcebergSink (native JSON decode and Parquet encode on "
        + (decodeAhead ? "a decode thread and a writer thread" : "one writer thread")
        + " per table), "
        + (overlapCommits ? "commits in the background" : "consuming paused while a cycle commits")
        + ", stopAtEnd, encode threads " + encodeThreads
        + (encodeAhead ? "" : ", column runs encoded on the writer thread (encode.ahead off)")
        + (evolveSchema ? ", evolve.schema on" : "");
  }

  @Override
  public Outcome run(RunSpec run) {
    SinkConfig config =
        SinkConfig.builder(run.catalog(), run.bootstrapServers(), run.group())
            .route(run.topic().topic(), run.table())
            .commitEvery(run.cadence().interval(), run.cadence().records(), Long.MAX_VALUE)
            .stopAtEnd(true)
            .encodeThreads(encodeThreads)
            .encodeAhead(encodeAhead)
            .decodeAhead(decodeAhead)
            .overlapCommits(overlapCommits)
            .evolveSchema(evolveSchema)
            .build();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      long start = System.nanoTime();
      try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
        timer.schedule(sink::stop, run.timeout().toMillis(), TimeUnit.MILLISECONDS);
        sink.run();
        long nanos = System.nanoTime() - start;
        return new Outcome(nanos, sink.metrics().getRowsWritten(), sink.metrics().getBytesConsumed(), null);
      }
    } finally {
      timer.shutdownNow();
    }
  }
}
