package dev.floe.iceberg.sink;

import dev.floe.arrow.RejectedMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The dead-letter topic: each bad record's original bytes, with headers naming its source topic,
 * partition and offset and the error. {@link #flush()} waits until every record sent is
 * acknowledged: the sink calls it before committing offsets past those records.
 */
final class DeadLetters implements AutoCloseable {
  static final String SOURCE_TOPIC = "floe.source.topic";
  static final String SOURCE_PARTITION = "floe.source.partition";
  static final String SOURCE_OFFSET = "floe.source.offset";
  static final String ERROR = "floe.error";

  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final List<Future<RecordMetadata>> pending = new ArrayList<>();

  DeadLetters(String topic, String bootstrapServers, Map<String, Object> extra) {
    this.topic = topic;
    Map<String, Object> config = new java.util.HashMap<>(extra);
    config.keySet().removeIf(k -> k.startsWith("group.") || k.startsWith("auto.") || k.startsWith("fetch.")
        || k.startsWith("max.poll") || k.startsWith("enable.auto") || k.startsWith("isolation"));
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    this.producer = new KafkaProducer<>(config);
  }

  /** Sends one bad record; thread-safe. */
  synchronized void send(RejectedMessage rejected) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(SOURCE_TOPIC, utf8(String.valueOf(rejected.topic())));
    headers.add(SOURCE_PARTITION, utf8(Integer.toString(rejected.partition())));
    headers.add(SOURCE_OFFSET, utf8(Long.toString(rejected.offset())));
    headers.add(ERROR, utf8(rejected.reason()));
    pending.add(producer.send(new ProducerRecord<>(topic, null, null, null, rejected.payload(), headers)));
  }

  /** Waits for every send so far; throws if any failed (the sink must not move past it). */
  synchronized void flush() {
    producer.flush();
    try {
      for (Future<RecordMetadata> f : pending) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not write to the dead-letter topic " + topic, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing to the dead-letter topic", e);
    }
    pending.clear();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
  }
}
