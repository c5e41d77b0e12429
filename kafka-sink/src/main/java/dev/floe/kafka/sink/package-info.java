/**
 * The Kafka -> Iceberg sink: {@link dev.floe.kafka.sink.KafkaIcebergSink} consumes topics and
 * commits every record to its table exactly once, configured by {@link
 * dev.floe.kafka.sink.SinkConfig}.
 *
 * <pre>{@code
 * SinkConfig config = SinkConfig.builder(catalog, "localhost:9092", "my-sink")
 *     .route("events", TableIdentifier.of("db", "events"))
 *     .build();
 * try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
 *   sink.run(); // until sink.stop() from another thread
 * }
 * }</pre>
 *
 * <p>Offsets live in the tables ({@link dev.floe.kafka.sink.SnapshotOffsets}); each commit is
 * fenced against writers that moved them ({@link dev.floe.kafka.sink.FencedException}); bad
 * records follow a {@link dev.floe.arrow.BadRecordPolicy}. The module README has the pipeline;
 * {@code docs/sink-guarantees.md} what is exactly once.
 */
package dev.floe.kafka.sink;
