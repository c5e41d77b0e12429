/**
 * floe's benchmark corpora, deterministic by seed so two engines can be fed byte-identical input.
 *
 * <pre>{@code
 * NexmarkGenerator nexmark = new NexmarkGenerator(42);
 * byte[] message = NexmarkJson.toBytes(nexmark.next()); // Flink's Kafka JSON format
 * byte[] synthetic = new SyntheticGenerator(42).nextBytes(); // ~142-byte flat event
 * }</pre>
 */
package dev.floe.corpus;
