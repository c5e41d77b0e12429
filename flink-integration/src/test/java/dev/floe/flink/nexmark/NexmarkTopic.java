package dev.floe.flink.nexmark;

import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.kafka.RoundRobinProducer;
import java.util.ArrayList;
import java.util.List;

/** Fills a topic with the seeded Nexmark corpus, as Flink's Kafka JSON layout writes it. */
public final class NexmarkTopic {
  private NexmarkTopic() {}

  /**
   * Creates {@code topic} with 4 partitions and sends it {@code events} events of {@code seed},
   * event i to partition i mod 4, in chunks so that a big corpus never sits in memory whole.
   *
   * @return how many of the events are bids
   */
  public static long load(LocalKafkaBroker kafka, String topic, int events, long seed) {
    kafka.createTopic(topic, 4);
    int chunk = 100_000; // a multiple of 4: event i still goes to partition i mod 4
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    long bids = 0;
    for (int from = 0; from < events; from += chunk) {
      List<byte[]> messages = new ArrayList<>(chunk);
      for (int i = from; i < Math.min(events, from + chunk); i++) {
        NexmarkEvent event = generator.next();
        bids += event instanceof NexmarkEvent.Bid ? 1 : 0;
        messages.add(NexmarkJson.toBytes(event));
      }
      RoundRobinProducer.send(kafka.bootstrapServers(), topic, 4, messages);
    }
    return bids;
  }
}
