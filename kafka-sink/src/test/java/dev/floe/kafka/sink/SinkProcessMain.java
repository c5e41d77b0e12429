package dev.floe.kafka.sink;

import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A sink in a process of its own, for tests that kill it: {@code SinkProcessMain bootstrap
 * warehouse topic table group commitRecords [commitIntervalMs [stopAtEnd [evolveSchema]]]}
 * (defaults 500, true, false). Runs until the end of the topic (or until killed), then exits 0;
 * any failure exits 1.
 */
public final class SinkProcessMain {
  private SinkProcessMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    String[] names = {"bootstrap", "warehouse", "topic", "table", "group", "commitRecords"};
    for (int i = 0; i < names.length; i++) {
      a.put(names[i], args[i]);
    }
    Catalog catalog = Catalogs.embedded(Path.of(a.get("warehouse")));
    SinkConfig config =
        SinkConfig.builder(catalog, a.get("bootstrap"), a.get("group"))
            .route(a.get("topic"), TableIdentifier.parse(a.get("table")))
            .createTables(SinkFixture.NEXMARK, SinkFixture.BUCKETS, SinkFixture.V2)
            .commitEvery(Duration.ofMillis(args.length > 6 ? Long.parseLong(args[6]) : 500),
                Long.parseLong(a.get("commitRecords")), Long.MAX_VALUE)
            .stopAtEnd(args.length <= 7 || Boolean.parseBoolean(args[7]))
            .evolveSchema(args.length > 8 && Boolean.parseBoolean(args[8]))
            // Static membership: a restarted sink takes its killed predecessor's place at once
            // instead of waiting out the dead member's session.
            .consumerProperty("group.instance.id", "sink-" + a.get("group"))
            .consumerProperty("session.timeout.ms", 10_000)
            .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
    } catch (RuntimeException e) {
      e.printStackTrace();
      System.exit(1);
    }
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
    System.exit(0);
  }
}
