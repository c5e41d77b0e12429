package dev.floe.bench.e2e;

import dev.floe.testing.TableFingerprint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Loads a corpus into a fresh topic once, streaming (the 10M-event corpus is never held in
 * memory), and computes on the way what the tables must hold: the rows' fingerprint.
 */
final class TopicLoader {
  private TopicLoader() {}

  /**
   * Creates {@code topic} with {@code partitions} partitions and produces the first {@code events}
   * events of the corpus stream for {@code seed}, event {@code i} to partition {@code i %
   * partitions}, acknowledged by the broker, compressed with {@code compression}.
   */
  static LoadedTopic load(
      String bootstrap, Corpus corpus, String topic, int partitions, long events, long seed, String compression) {
    Topics.create(bootstrap, topic, partitions);
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    // One request in flight and no idempotence: the idempotent producer was seen stuck on
    // OUT_OF_ORDER_SEQUENCE_NUMBER (a busy broker, a just-created topic). Retries cannot reorder
    // this way; a duplicate would show in the end offsets checked below.
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 10);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L << 20);
    config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    Corpus.Events stream = corpus.events(seed);
    AtomicReference<Exception> failure = new AtomicReference<>();
    long bytes = 0;
    long hashSum = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (long i = 0; i < events; i++) {
        byte[] message = stream.next();
        bytes += message.length;
        // The fingerprint is a sum over rows: add one row at a time.
        hashSum += TableFingerprint.ofCanonical(List.of(stream.canonical())).hashSum();
        producer.send(
            new ProducerRecord<>(topic, (int) (i % partitions), null, message),
            (metadata, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
        if (failure.get() != null) {
          break;
        }
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("loading " + corpus.id() + " into " + topic + " failed", failure.get());
    }
    checkEndOffsets(bootstrap, topic, partitions, events);
    return new LoadedTopic(corpus, topic, partitions, events, bytes, new TableFingerprint(events, hashSum));
  }

  /** The topic holds exactly {@code events} records: nothing lost, nothing produced twice. */
  private static void checkEndOffsets(String bootstrap, String topic, int partitions, long events) {
    List<TopicPartition> all = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      all.add(new TopicPartition(topic, p));
    }
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Consumers.config(bootstrap, "loader-check"))) {
      long total = consumer.endOffsets(all).values().stream().mapToLong(Long::longValue).sum();
      if (total != events) {
        throw new IllegalStateException("topic " + topic + " holds " + total + " records, not " + events);
      }
    }
  }
}
