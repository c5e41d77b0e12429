/**
 * floe on Kafka Connect: {@link dev.floe.connect.FloeIcebergSinkConnector}, a drop-in for Apache
 * Iceberg's sink connector. Install the plugin folder ({@code kafka-connect/target/connect-plugin})
 * on the worker's {@code plugin.path}, then change only {@code connector.class}:
 *
 * <pre>{@code
 * connector.class=dev.floe.connect.FloeIcebergSinkConnector
 * topics=events
 * value.converter=org.apache.kafka.connect.converters.ByteArrayConverter
 * iceberg.tables=db.events
 * iceberg.catalog.type=rest
 * iceberg.catalog.uri=http://catalog:8181
 * iceberg.control.commit.interval-ms=10000
 * }</pre>
 *
 * <p>Each task commits its own files with its partitions' offsets in the snapshot summary (the
 * Kafka sink's protocol, {@link dev.floe.kafka.sink.TableCommitter}); the module README has the
 * config keys, the two value paths and the guarantees. Nothing here but the connector and task
 * classes is API.
 */
package dev.floe.connect;
