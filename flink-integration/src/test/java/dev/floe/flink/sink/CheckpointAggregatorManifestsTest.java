package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Catalogs;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.InstantiationUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.types.Types;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.stream.Stream;
import dev.floe.iceberg.ForwardingTableOperations;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Manifests written ahead when the table cannot be loaded (dropped, a catalog that does not
 * answer): the files stay inline in the committable, and each catalog the aggregator opened for
 * it is closed. Found in review (helper-57): one catalog leaked per checkpoint. And manifests of
 * two instances of one job's aggregator that share every id Flink gives them.
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

  /**
   * After a JobManager failover under HA, the job id, the operator id and the run id (in the job
   * graph) stay, and attempt numbers start from 0 again: an instance's manifests must not take the
   * names of an earlier instance's (helper-58's doubt), which a pending committable may still name.
   */
  @Test
  void twoInstancesWithTheSameIdsWriteManifestsUnderDifferentNames() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "events");
    PartitionSpec spec = PartitionSpec.unpartitioned();
    try (AutoCloseable catalog = (AutoCloseable) Catalogs.embedded(warehouse)) {
      ((Catalog) catalog).createTable(id, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())), spec);
    }
    IcebergTableRef ref = IcebergTableRef.of("counting", new Counting(warehouse.toString()), id);
    WrittenFiles files = WrittenFiles.of(WriteResult.builder().addDataFiles(DataFiles.builder(spec)
        .withPath(warehouse.resolve("x.parquet").toString()).withFileSizeInBytes(10).withRecordCount(1).build())
        .build(), Map.of(0, spec));
    CheckpointAggregator first = new CheckpointAggregator(ref, 0);
    CheckpointAggregator second = InstantiationUtil.clone(first); // the same job graph, deployed again
    JobID job = new JobID();
    OperatorID operator = new OperatorID();
    List<List<String>> manifests = new ArrayList<>();
    for (CheckpointAggregator instance : List.of(first, second)) {
      try (OneInputStreamOperatorTestHarness<CommittableMessage<WrittenFiles>, CommittableMessage<FloeCommittable>> aggregator =
          new OneInputStreamOperatorTestHarness<>(instance, new MockEnvironmentBuilder().setJobID(job).build())) {
        aggregator.getStreamConfig().setOperatorID(operator);
        aggregator.open();
        aggregator.processElement(new StreamRecord<>(new CommittableWithLineage<>(files, 7, 0)));
        aggregator.prepareSnapshotPreBarrier(7);
        for (CommittableMessage<FloeCommittable> message : aggregator.extractOutputValues()) {
          if (message instanceof CommittableWithLineage<FloeCommittable> lineage) {
            FloeCommittable committable = lineage.getCommittable();
            List<String> locations = WrittenFiles.fromBytes(committable.files()).manifestLocations();
            assertEquals(1, locations.size(), "written ahead into one manifest");
            assertEquals(1, WrittenFiles.fromBytes(committable.files()).toWriteResult(Map.of(0, spec),
                new HadoopFileIO(new Configuration())).dataFiles().length);
            manifests.add(locations);
          }
        }
      }
    }
    assertEquals(2, manifests.size());
    assertFalse(new HashSet<>(manifests.get(0)).removeAll(manifests.get(1)), "the second instance's manifest has a name of its own: " + manifests);
  }

  /**
   * A checkpoint's manifests whose second cannot be written: the files stay inline, and the
   * manifest written before the failure is deleted, since no committable names it.
   */
  @Test
  void aManifestWrittenBeforeAFailureIsDeleted() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "partial");
    PartitionSpec spec = PartitionSpec.unpartitioned();
    try (AutoCloseable catalog = (AutoCloseable) Catalogs.embedded(warehouse)) {
      ((Catalog) catalog).createTable(id, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())), spec,
          Map.of("format-version", "2"));
    }
    IcebergTableRef ref = IcebergTableRef.of("second-output-fails", new SecondOutputFails(warehouse.toString()), id);
    WrittenFiles files = WrittenFiles.of(WriteResult.builder()
        .addDataFiles(DataFiles.builder(spec).withPath(warehouse.resolve("x.parquet").toString())
            .withFileSizeInBytes(10).withRecordCount(1).build())
        .addDeleteFiles(FileMetadata.deleteFileBuilder(spec).ofPositionDeletes()
            .withPath(warehouse.resolve("d.parquet").toString()).withFileSizeInBytes(10).withRecordCount(1).build())
        .build(), Map.of(0, spec));
    try (OneInputStreamOperatorTestHarness<CommittableMessage<WrittenFiles>, CommittableMessage<FloeCommittable>> aggregator =
        new OneInputStreamOperatorTestHarness<>(new CheckpointAggregator(ref, 0))) {
      aggregator.open();
      aggregator.processElement(new StreamRecord<>(new CommittableWithLineage<>(files, 1, 0)));
      aggregator.prepareSnapshotPreBarrier(1);
      List<FloeCommittable> emitted = aggregator.extractOutputValues().stream()
          .filter(m -> m instanceof CommittableWithLineage<?>)
          .map(m -> ((CommittableWithLineage<FloeCommittable>) m).getCommittable())
          .toList();
      assertEquals(1, emitted.size());
      assertEquals(List.of(), WrittenFiles.fromBytes(emitted.getFirst().files()).manifestLocations(), "inline");
    }
    try (Stream<Path> metadata = Files.list(warehouse.resolve("db").resolve("partial").resolve("metadata"))) {
      assertEquals(List.of(), metadata.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".avro")).toList(),
          "no manifest left behind");
    }
  }

  /** Embedded catalogs whose tables' FileIO refuses the second output file they are asked for. */
  private static final class SecondOutputFails implements CatalogLoader {
    private final String warehouse;

    SecondOutputFails(String warehouse) {
      this.warehouse = warehouse;
    }

    @Override
    public Catalog loadCatalog() {
      Catalog real = Catalogs.embedded(Path.of(warehouse));
      return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(),
          new Class<?>[] {Catalog.class, AutoCloseable.class}, (proxy, method, args) -> {
            try {
              Object result = method.invoke(real, args);
              if (method.getName().equals("loadTable")) {
                Table table = (Table) result;
                FileIO io = new SecondOutputFailsIO(table.io());
                return new BaseTable(new ForwardingTableOperations(((HasTableOperations) table).operations()) {
                  @Override
                  public FileIO io() {
                    return io;
                  }
                }, table.name());
              }
              return result;
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }

    @Override
    @SuppressWarnings("checkstyle:NoClone")
    public CatalogLoader clone() {
      return new SecondOutputFails(warehouse);
    }
  }

  private static final class SecondOutputFailsIO implements FileIO {
    private final FileIO delegate;
    private int outputs;

    SecondOutputFailsIO(FileIO delegate) {
      this.delegate = delegate;
    }

    @Override
    public InputFile newInputFile(String path) {
      return delegate.newInputFile(path);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      if (++outputs == 2) {
        throw new UncheckedIOException(new IOException("injected: the second output file cannot be made"));
      }
      return delegate.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
      delegate.deleteFile(path);
    }
  }
}
