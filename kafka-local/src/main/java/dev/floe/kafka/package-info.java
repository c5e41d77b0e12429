/**
 * A real single-node Kafka broker (KRaft) on loopback for tests, benchmarks and {@code scripts/floe
 * kafka}, run as its own JVM from the broker jars this module's build resolved.
 *
 * <pre>{@code
 * try (LocalKafkaBroker kafka = LocalKafkaBroker.start(tempDir)) {
 *   kafka.createTopic("events", 4);
 *   String bootstrap = kafka.bootstrapServers(); // for producers and consumers
 *   kafka.restart(); // same data dir and ports
 *   kafka.kill();    // SIGKILL; LocalKafkaBroker.start(tempDir) recovers the data
 * }
 * }</pre>
 *
 * <p>{@link dev.floe.kafka.ServingPartitions} waits until a topic's partitions take produce
 * requests, for code that creates topics on any broker.
 *
 * <p>Depending on this module brings only {@code kafka-clients}; the broker's own jars stay out
 * of the caller's classpath.
 */
package dev.floe.kafka;
