package dev.floe.bench.corpus;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.corpus.SyntheticGenerator;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/** Iceberg schemas of the benchmark corpora, and the corpora as message lists. */
public final class NexmarkTables {
  private NexmarkTables() {}

  private static Types.TimestampType timestamp() {
    return Types.TimestampType.withoutZone();
  }

  /** The whole Nexmark event, as Flink's Kafka table declares it (nested fields nullable). */
  public static final Schema EVENT =
      new Schema(
          required(1, "event_type", Types.IntegerType.get()),
          optional(2, "person", Types.StructType.of(
              optional(5, "id", Types.LongType.get()),
              optional(6, "name", Types.StringType.get()),
              optional(7, "emailAddress", Types.StringType.get()),
              optional(8, "creditCard", Types.StringType.get()),
              optional(9, "city", Types.StringType.get()),
              optional(10, "state", Types.StringType.get()),
              optional(11, "dateTime", timestamp()),
              optional(12, "extra", Types.StringType.get()))),
          optional(3, "auction", Types.StructType.of(
              optional(13, "id", Types.LongType.get()),
              optional(14, "itemName", Types.StringType.get()),
              optional(15, "description", Types.StringType.get()),
              optional(16, "initialBid", Types.LongType.get()),
              optional(17, "reserve", Types.LongType.get()),
              optional(18, "dateTime", timestamp()),
              optional(19, "expires", timestamp()),
              optional(20, "seller", Types.LongType.get()),
              optional(21, "category", Types.LongType.get()),
              optional(22, "extra", Types.StringType.get()))),
          optional(4, "bid", Types.StructType.of(
              optional(23, "auction", Types.LongType.get()),
              optional(24, "bidder", Types.LongType.get()),
              optional(25, "price", Types.LongType.get()),
              optional(26, "channel", Types.StringType.get()),
              optional(27, "url", Types.StringType.get()),
              optional(28, "dateTime", timestamp()),
              optional(29, "extra", Types.StringType.get()))));

  /** The ~142-byte synthetic events. */
  public static final Schema SYNTHETIC =
      new Schema(
          required(1, "id", Types.StringType.get()),
          required(2, "user_id", Types.LongType.get()),
          required(3, "event_type", Types.StringType.get()),
          required(4, "value", Types.DoubleType.get()),
          optional(5, "info", Types.StringType.get()),
          required(6, "ts", Types.TimestampType.withZone()));

  /** The first {@code count} Nexmark events of {@code seed}, as Kafka message values. */
  public static List<byte[]> nexmarkMessages(long seed, int count) {
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(NexmarkJson.toBytes(generator.next()));
    }
    return out;
  }

  /** The first {@code count} bid messages of the Nexmark corpus of {@code seed}. */
  public static List<byte[]> nexmarkBidMessages(long seed, int count) {
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    List<byte[]> out = new ArrayList<>(count);
    while (out.size() < count) {
      var event = generator.next();
      if (event.eventType() == 2) {
        out.add(NexmarkJson.toBytes(event));
      }
    }
    return out;
  }

  public static List<byte[]> syntheticMessages(long seed, int count) {
    SyntheticGenerator generator = new SyntheticGenerator(seed);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(generator.nextBytes());
    }
    return out;
  }
}
