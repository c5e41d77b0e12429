package dev.floe.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Plain Kafka clients against a {@link LocalKafkaBroker}; values are {@code "v<i>"}. */
final class TestClients {
  private TestClients() {}

  static KafkaProducer<String, String> producer(String bootstrap) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    // Short backoffs so that a producer reconnects quickly after a broker restart.
    config.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
    config.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
    return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
  }

  static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
    config.put(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
    if (group != null) {
      config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    }
    return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
  }

  /** Sends values {@code v<from>..v<to-1>} keyed by {@code k<i>} and waits for every ack. */
  static void produce(KafkaProducer<String, String> producer, String topic, int from, int to) {
    List<Future<?>> acks = new ArrayList<>();
    for (int i = from; i < to; i++) {
      acks.add(producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
    }
    producer.flush();
    for (var ack : acks) {
      try {
        ack.get();
      } catch (InterruptedException | ExecutionException e) {
        throw new AssertionError("send failed", e);
      }
    }
  }

  /** Polls until exactly {@code count} records arrived, failing after {@code timeout}. */
  static List<ConsumerRecord<String, String>> poll(
      KafkaConsumer<String, String> consumer, int count, Duration timeout) {
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (records.size() < count) {
      if (System.nanoTime() > deadline) {
        fail("got " + records.size() + " of " + count + " records within " + timeout);
      }
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    }
    assertEquals(count, records.size(), "more records than produced");
    return records;
  }

  /** Every record of {@code topic} from the beginning, by partition assignment (no group). */
  static List<ConsumerRecord<String, String>> readAll(
      String bootstrap, String topic, int partitions, int count) {
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, null)) {
      List<TopicPartition> all = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        all.add(new TopicPartition(topic, p));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      List<ConsumerRecord<String, String>> records = poll(consumer, count, Duration.ofSeconds(30));
      // Nothing beyond what was expected: the end offsets add up to the count.
      long end = consumer.endOffsets(all).values().stream().mapToLong(Long::longValue).sum();
      assertEquals(count, end, "end offsets of " + topic);
      return records;
    }
  }

  /** The sequence numbers {@code i} of values {@code v<i>}, sorted. */
  static List<Integer> sortedSequence(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(r -> Integer.parseInt(r.value().substring(1))).sorted().toList();
  }

  static List<Integer> range(int from, int to) {
    return IntStream.range(from, to).boxed().toList();
  }
}
