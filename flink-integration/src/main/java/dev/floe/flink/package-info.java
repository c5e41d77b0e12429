/**
 * floe inside Flink jobs: {@link dev.floe.flink.IcebergTableRef} (where tasks find the table),
 * {@link dev.floe.flink.KafkaPayload} and its Kafka deserializer (the raw path's records), and
 * the sink in {@link dev.floe.flink.sink}.
 */
package dev.floe.flink;
