package dev.floe.bench.e2e;

import dev.floe.testing.TableFingerprint;

/**
 * A corpus loaded into a Kafka topic: what every contender reads, and what its output must equal.
 *
 * @param corpus the corpus
 * @param topic the topic's name
 * @param partitions its partition count (event {@code i} went to partition {@code i % partitions})
 * @param events the number of messages
 * @param payloadBytes the sum of the message values' sizes
 * @param expected the fingerprint of the rows the messages stand for
 */
public record LoadedTopic(
    Corpus corpus, String topic, int partitions, long events, long payloadBytes, TableFingerprint expected) {}
