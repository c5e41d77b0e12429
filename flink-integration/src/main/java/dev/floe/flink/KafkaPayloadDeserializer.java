package dev.floe.flink;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The raw path's Kafka deserializer: keeps each record's value (and key) as bytes, with its topic,
 * partition and offset. Nothing is parsed here; the key is the array Kafka's consumer made anyway.
 *
 * <pre>{@code
 * KafkaSource<KafkaPayload> source = KafkaSource.<KafkaPayload>builder()
 *     .setBootstrapServers(bootstrap).setTopics("events")
 *     .setDeserializer(new KafkaPayloadDeserializer())
 *     .build();
 * }</pre>
 */
public final class KafkaPayloadDeserializer implements KafkaRecordDeserializationSchema<KafkaPayload> {
  private static final long serialVersionUID = 1L;

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<KafkaPayload> out) {
    out.collect(new KafkaPayload(record.topic(), record.partition(), record.offset(), record.value(), record.key()));
  }

  @Override
  public TypeInformation<KafkaPayload> getProducedType() {
    return TypeInformation.of(KafkaPayload.class);
  }
}
