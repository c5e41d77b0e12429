package dev.floe.cli;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends events to explicit partitions of one topic with an idempotent, {@code acks=all} producer
 * (no duplicates on retry, order kept per partition), batched for throughput. Records have no key:
 * the caller picks the partition, so the same events give the same partition contents.
 *
 * <p>Lifecycle: {@link #send} any number of times, then {@link #finish} waits for every
 * acknowledgement; {@link #close} without {@code finish} drops what is still unsent.
 */
final class KafkaEventSender implements AutoCloseable {
  /** Batches fill up to this size; a partition's batch goes out when full or after {@link #LINGER_MS}. */
  static final int BATCH_BYTES = 256 * 1024;

  static final int LINGER_MS = 20;

  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private boolean finished;

  KafkaEventSender(String bootstrap, String topic, String compression, Duration timeout) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "floe-generate");
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, BATCH_BYTES);
    config.put(ProducerConfig.LINGER_MS_CONFIG, LINGER_MS);
    config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
    config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
    // How long send() may block on metadata or a full buffer before giving up.
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis());
    this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    this.topic = topic;
  }

  /** Queues event {@code index} for {@code partition}; fails if an earlier send already failed. */
  void send(long index, int partition, byte[] value) {
    checkNoFailure();
    try {
      producer.send(
          new ProducerRecord<>(topic, partition, null, value),
          (metadata, e) -> {
            if (e != null) {
              failure.compareAndSet(
                  null, new IllegalStateException(rejected(index, partition) + e.getMessage(), e));
            }
          });
    } catch (KafkaException e) {
      throw new IllegalStateException(rejected(index, partition) + e.getMessage(), e);
    }
  }

  /** Sends what is queued and waits until the broker acknowledged every event. */
  void finish() {
    producer.flush();
    checkNoFailure();
    finished = true;
  }

  private String rejected(long index, int partition) {
    return "Kafka did not take event " + index + " (topic " + topic + ", partition " + partition + "): ";
  }

  private void checkNoFailure() {
    RuntimeException e = failure.get();
    if (e != null) {
      throw e;
    }
  }

  @Override
  public void close() {
    producer.close(finished ? Duration.ofSeconds(30) : Duration.ZERO);
  }
}
