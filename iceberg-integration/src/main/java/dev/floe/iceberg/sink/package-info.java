/**
 * The Kafka -> Iceberg sink: {@link dev.floe.iceberg.sink.KafkaIcebergSink} consumes topics and
 * commits every record to its table exactly once, configured by {@link
 * dev.floe.iceberg.sink.SinkConfig}.
 *
 * <p>Offsets live in the tables ({@link dev.floe.iceberg.sink.SnapshotOffsets}); each commit is
 * fenced against writers that moved them ({@link dev.floe.iceberg.sink.FencedException}); bad
 * records follow a {@link dev.floe.iceberg.sink.BadRecordMode}. See the module README for the
 * pipeline and guarantees.
 */
package dev.floe.iceberg.sink;
