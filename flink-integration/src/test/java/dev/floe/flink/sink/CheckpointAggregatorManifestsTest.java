package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Catalogs;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.WriteResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Manifests written ahead when the table cannot be loaded (dropped, a catalog that does not
 * answer): the files stay inline in the committable, and each catalog the aggregator opened for
 * it is closed. Found in review (helper-57): one catalog leaked per checkpoint.
 */
class CheckpointAggregatorManifestsTest {
  private static final AtomicInteger OPENED = new AtomicInteger();
  private static final AtomicInteger CLOSED = new AtomicInteger();

  @TempDir Path warehouse;

  /** Embedded catalogs that count how many were opened and closed. */
  private static final class Counting implements CatalogLoader {
    private final String warehouse;

    Counting(String warehouse) {
      this.warehouse = warehouse;
    }

    @Override
    public Catalog loadCatalog() {
      Catalog real = Catalogs.embedded(Path.of(warehouse));
      OPENED.incrementAndGet();
      return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(),
          new Class<?>[] {Catalog.class, AutoCloseable.class}, (proxy, method, args) -> {
            if (method.getName().equals("close")) {
              CLOSED.incrementAndGet();
            }
            try {
              return method.invoke(real, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }

    @Override
    @SuppressWarnings("checkstyle:NoClone")
    public CatalogLoader clone() {
      return new Counting(warehouse);
    }
  }

  @Test
  void aTableThatCannotBeLoadedKeepsTheFilesInlineAndClosesEachCatalog() throws Exception {
    IcebergTableRef ref =
        IcebergTableRef.of("counting", new Counting(warehouse.toString()), TableIdentifier.of("db", "missing"));
    PartitionSpec spec = PartitionSpec.unpartitioned();
    WrittenFiles files = WrittenFiles.of(WriteResult.builder().addDataFiles(DataFiles.builder(spec)
        .withPath(warehouse.resolve("x.parquet").toString()).withFileSizeInBytes(10).withRecordCount(1).build())
        .build(), Map.of(0, spec));
    List<FloeCommittable> emitted;
    try (OneInputStreamOperatorTestHarness<CommittableMessage<WrittenFiles>, CommittableMessage<FloeCommittable>> aggregator =
        new OneInputStreamOperatorTestHarness<>(new CheckpointAggregator(ref, 0))) {
      aggregator.open();
      for (long checkpoint = 1; checkpoint <= 5; checkpoint++) {
        aggregator.processElement(new StreamRecord<>(new CommittableWithLineage<>(files, checkpoint, 0)));
        aggregator.prepareSnapshotPreBarrier(checkpoint);
      }
      emitted = aggregator.extractOutputValues().stream()
          .filter(m -> m instanceof CommittableWithLineage<?>)
          .map(m -> ((CommittableWithLineage<FloeCommittable>) m).getCommittable())
          .toList();
    }
    assertEquals(5, OPENED.get(), "one try per checkpoint");
    assertEquals(OPENED.get(), CLOSED.get(), "every catalog the aggregator opened is closed");
    assertEquals(5, emitted.size());
    for (FloeCommittable committable : emitted) {
      WrittenFiles back = WrittenFiles.fromBytes(committable.files());
      assertEquals(List.of(), back.manifestLocations(), "inline");
      assertEquals(1, back.toWriteResult(Map.of(0, spec)).dataFiles().length);
    }
  }
}
