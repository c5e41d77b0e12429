package dev.floe.bench.e2e;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The ceiling on this machine: one consumer with floe's fetch settings reads the whole topic and
 * throws the records away (it only counts them and their bytes, which the harness checks).
 */
final class BareConsumeContender implements Contender {
  @Override
  public String id() {
    return "bare-consume";
  }

  @Override
  public String description() {
    return "one KafkaConsumer (floe's fetch settings, fresh group) reading to the end and discarding";
  }

  @Override
  public boolean writesTable() {
    return false;
  }

  @Override
  public Outcome run(RunSpec run) {
    long deadline = System.nanoTime() + run.timeout().toNanos();
    long start = System.nanoTime();
    long records = 0;
    long bytes = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(Consumers.config(run.bootstrapServers(), run.group()))) {
      TopicEnd end = new TopicEnd(consumer);
      consumer.subscribe(List.of(run.topic().topic()), end);
      while (!end.reached() && System.nanoTime() < deadline) {
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          bytes += r.value() == null ? 0 : r.value().length;
        }
        records += polled.count();
      }
      return new Outcome(System.nanoTime() - start, records, bytes, null);
    }
  }
}
