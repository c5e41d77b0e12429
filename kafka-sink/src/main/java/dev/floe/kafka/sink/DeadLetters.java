package dev.floe.kafka.sink;

import dev.floe.arrow.JsonDecoderConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The dead-letter topic: each bad record as it arrived -- key, value (a tombstone stays null),
 * timestamp and headers -- plus headers naming its source topic, partition and offset and the
 * error. {@link #flush()} waits until every record sent is acknowledged: the sink calls it before
 * committing offsets past those records.
 *
 * <p>The producer takes the Kafka client settings shared with the consumer (security, timeouts)
 * and every {@code producer.}-prefixed sink setting, prefix removed. Its default request size
 * fits the largest message the decoder accepts.
 */
final class DeadLetters implements AutoCloseable {
  static final String SOURCE_TOPIC = "floe.source.topic";
  static final String SOURCE_PARTITION = "floe.source.partition";
  static final String SOURCE_OFFSET = "floe.source.offset";
  static final String ERROR = "floe.error";
  /** Room for the key, the headers and the record's framing over the largest accepted value. */
  static final int MAX_REQUEST_BYTES = JsonDecoderConfig.defaults().maxMessageBytes() + (1 << 20);

  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final List<Pending> pending = new ArrayList<>();

  /** A dead letter: the record as it arrived, where it came from, and why it is bad. */
  record DeadLetter(
      String topic, int partition, long offset, String reason, byte[] key, byte[] value, Long timestamp,
      Header[] headers) {}

  private record Pending(DeadLetter letter, Future<RecordMetadata> ack) {}

  DeadLetters(String topic, Map<String, Object> producerConfig) {
    this.topic = topic;
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_REQUEST_BYTES);
    config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Math.max(32L << 20, 2L * MAX_REQUEST_BYTES));
    config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
    config.putAll(producerConfig);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    this.producer = new KafkaProducer<>(config);
  }

  /** Sends one bad record; thread-safe. */
  synchronized void send(DeadLetter letter) {
    RecordHeaders headers = new RecordHeaders();
    if (letter.headers() != null) {
      for (Header h : letter.headers()) {
        headers.add(h);
      }
    }
    headers.add(SOURCE_TOPIC, utf8(String.valueOf(letter.topic())));
    headers.add(SOURCE_PARTITION, utf8(Integer.toString(letter.partition())));
    headers.add(SOURCE_OFFSET, utf8(Long.toString(letter.offset())));
    headers.add(ERROR, utf8(letter.reason()));
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, null, letter.timestamp(), letter.key(), letter.value(), headers);
    pending.add(new Pending(letter, producer.send(record)));
  }

  /** Waits for every send so far; throws if any failed (the sink must not move past it). */
  synchronized void flush() {
    producer.flush();
    try {
      for (Pending p : pending) {
        try {
          p.ack().get();
        } catch (ExecutionException e) {
          throw failed(p.letter(), e.getCause());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while writing to the dead-letter topic", e);
    }
    pending.clear();
  }

  private SinkException failed(DeadLetter letter, Throwable cause) {
    String record = "the bad record at topic " + letter.topic() + ", partition " + letter.partition() + ", offset "
        + letter.offset() + " (" + (letter.value() == null ? 0 : letter.value().length) + " bytes)";
    if (cause instanceof RecordTooLargeException) {
      return new SinkException("could not dead-letter " + record + " to topic " + topic + ": it is larger than "
          + "the topic or the producer accept. Raise the topic's max.message.bytes (e.g. kafka-configs.sh --alter "
          + "--entity-type topics --entity-name " + topic + " --add-config max.message.bytes=" + MAX_REQUEST_BYTES
          + ") and, past " + MAX_REQUEST_BYTES + " bytes, the sink's producer.max.request.size; "
          + "nothing past this record is committed until it is dead-lettered", cause);
    }
    return new SinkException("could not dead-letter " + record + " to topic " + topic + " (" + cause
        + (cause instanceof TimeoutException ? "; is the topic there? A producer waits delivery.timeout.ms for a"
            + " missing one when the broker does not create topics" : "")
        + "); nothing past it is committed until it is dead-lettered", cause);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
  }
}
