package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.flink.sink.DeltaManifests;
import org.apache.iceberg.flink.sink.DeltaManifestsSerializer;
import org.apache.iceberg.flink.sink.FlinkManifestUtil;
import org.apache.iceberg.flink.sink.IcebergCommittableSerializer;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link WrittenFiles} gives back every field of every kind of file a checkpoint can carry, merges
 * by concatenation, and still reads what floe kept before it (Java-serialized write results).
 */
class WrittenFilesTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(4, "amount", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(5, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(6, "blob", Types.BinaryType.get()),
          Types.NestedField.optional(7, "key", Types.UUIDType.get()),
          Types.NestedField.optional(8, "price", Types.DoubleType.get()));
  private static final PartitionSpec UNPARTITIONED = PartitionSpec.unpartitioned();
  private static final PartitionSpec PARTITIONED =
      PartitionSpec.builderFor(SCHEMA)
          .withSpecId(1)
          .identity("name")
          .bucket("id", 16)
          .day("ts")
          .identity("amount")
          .identity("flag")
          .truncate("blob", 4)
          .identity("key")
          .build();
  /** A v1 table's spec after its partition field was dropped: the field stays, as a void transform. */
  private static final PartitionSpec VOID =
      PartitionSpec.builderFor(SCHEMA).withSpecId(2).alwaysNull("name", "name_null").build();
  private static final Map<Integer, PartitionSpec> SPECS = Map.of(0, UNPARTITIONED, 1, PARTITIONED, 2, VOID);
  private static final SortOrder SORTED = SortOrder.builderFor(SCHEMA).withOrderId(3).asc("id").build();

  private static PartitionData partition(String name) {
    PartitionData partition = new PartitionData(PARTITIONED.partitionType());
    partition.set(0, name); // null in one file: a null partition value
    partition.set(1, 7);
    partition.set(2, 20_000);
    partition.set(3, new BigDecimal("1234.50"));
    partition.set(4, true);
    partition.set(5, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
    partition.set(6, UUID.fromString("6f1c2a9e-3b7d-4c1e-9a2f-0d8b7e6c5a43"));
    return partition;
  }

  private static Metrics metrics(long rows) {
    return new Metrics(
        rows,
        Map.of(1, 100L, 2, 200L, 8, 80L),
        Map.of(1, rows, 2, rows, 8, rows),
        Map.of(1, 0L, 2, 3L, 8, 1L),
        Map.of(8, 2L),
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), -5L), 2, bytes("a\u00e9")),
        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 99L), 2, bytes("zz")));
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private static DataFile partitionedDataFile(String location, String name) {
    return DataFiles.builder(PARTITIONED)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition(name))
        .withFileSizeInBytes(4096)
        .withMetrics(metrics(10))
        .withSplitOffsets(List.of(4L, 2048L))
        .withEncryptionKeyMetadata(ByteBuffer.wrap(new byte[] {9, 8, 7}))
        .withSortOrder(SORTED)
        .build();
  }

  private static DataFile unpartitionedDataFile(String location) {
    return DataFiles.builder(UNPARTITIONED)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1000)
        .withRecordCount(3)
        .build();
  }

  private static DataFile voidPartitionDataFile(String location) {
    return DataFiles.builder(VOID)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withPartition(new PartitionData(VOID.partitionType()))
        .withFileSizeInBytes(700)
        .withRecordCount(2)
        .build();
  }

  private static DeleteFile equalityDeletes(String location) {
    return FileMetadata.deleteFileBuilder(PARTITIONED)
        .ofEqualityDeletes(1, 2)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withPartition(partition("eq"))
        .withFileSizeInBytes(512)
        .withMetrics(metrics(4))
        .withSortOrder(SORTED)
        .build();
  }

  private static DeleteFile positionDeletes(String location) {
    return FileMetadata.deleteFileBuilder(UNPARTITIONED)
        .ofPositionDeletes()
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(300)
        .withRecordCount(2)
        .withReferencedDataFile("file:/w/data/a.parquet")
        .build();
  }

  /** A v3 deletion vector: a blob in a Puffin file, for one data file. */
  private static DeleteFile deletionVector(String location, String dataFile, long offset) {
    return FileMetadata.deleteFileBuilder(PARTITIONED)
        .ofPositionDeletes()
        .withPath(location)
        .withFormat(FileFormat.PUFFIN)
        .withPartition(partition("dv"))
        .withFileSizeInBytes(900)
        .withRecordCount(5)
        .withReferencedDataFile(dataFile)
        .withContentOffset(offset)
        .withContentSizeInBytes(42)
        .build();
  }

  private static WriteResult everyKind() {
    return WriteResult.builder()
        .addDataFiles(partitionedDataFile("file:/w/data/p1.parquet", "x"), partitionedDataFile("file:/w/data/p2.parquet", null))
        .addDataFiles(unpartitionedDataFile("file:/w/data/u.parquet"))
        .addDeleteFiles(equalityDeletes("file:/w/data/eq.parquet"), positionDeletes("file:/w/data/pos.parquet"))
        .addDeleteFiles(deletionVector("file:/w/data/dv.puffin", "file:/w/data/p1.parquet", 4))
        .addReferencedDataFiles("file:/w/data/old.parquet", "file:/w/data/older.parquet")
        .addRewrittenDeleteFiles(deletionVector("file:/w/data/old-dv.puffin", "file:/w/data/old.parquet", 10))
        .build();
  }

  @Test
  void everyFieldOfEveryKindOfFileComesBack() throws IOException {
    // The void-partitioned file only here: Java serialization (the earlier form, below) drops its
    // partition's one null field.
    WriteResult written =
        WriteResult.builder().add(everyKind()).addDataFiles(voidPartitionDataFile("file:/w/data/v.parquet")).build();
    WriteResult read = WrittenFiles.of(written, SPECS).toWriteResult(SPECS);
    assertSameFiles(written, read);
  }

  /**
   * A file whose partition spec the table dropped meanwhile (expiry with clean-expired-metadata,
   * helper-63) is named with the reason, inline or written ahead into a manifest (helper-65: a bare
   * NullPointerException there).
   */
  @Test
  void aFileOfASpecTheTableNoLongerHasIsNamed() throws IOException {
    WriteResult result = WriteResult.builder().addDataFiles(partitionedDataFile("/t/a.parquet", "x")).build();
    Map<Integer, PartitionSpec> withoutSpec1 = Map.of(0, UNPARTITIONED, 2, VOID);
    IOException inline = assertThrows(IOException.class, () -> WrittenFiles.of(result, SPECS).toWriteResult(withoutSpec1));
    assertTrue(inline.getMessage().contains("/t/a.parquet was written under partition spec 1, which the table no longer"
        + " has"), inline.getMessage());
    FileIO io = new InMemoryFileIO();
    WrittenFiles spilled = WrittenFiles.inManifests(result, SPECS, 2, () -> io.newOutputFile("memory:/metadata/m.avro"));
    IOException ahead = assertThrows(IOException.class, () -> spilled.toWriteResult(withoutSpec1, io));
    assertTrue(ahead.getMessage().contains("manifest memory:/metadata/m.avro was written under partition spec 1"),
        ahead.getMessage());
  }

  /**
   * Files written ahead into manifests (a checkpoint with much metadata) come back with every field
   * a commit reads, from a manifest pair per partition spec, and the manifests are named for the
   * committer to delete once committed.
   */
  @Test
  void filesWrittenAheadIntoManifestsComeBack() throws IOException {
    FileIO io = new InMemoryFileIO();
    WriteResult written =
        WriteResult.builder().add(everyKind()).addDataFiles(voidPartitionDataFile("file:/w/data/v.parquet")).build();
    int[] made = {0};
    WrittenFiles spilled = WrittenFiles.inManifests(written, SPECS, 3,
        () -> io.newOutputFile("memory:/metadata/ahead-" + made[0]++ + ".avro"));
    WriteResult read = spilled.toWriteResult(SPECS, io);
    assertSameFiles(byLocation(written), byLocation(read), true);
    // specs 0, 1 and 2 have data files, 0 and 1 delete files: five manifests
    assertEquals(5, made[0]);
    assertEquals(5, spilled.manifestLocations().size());
    for (String location : spilled.manifestLocations()) {
      assertTrue(location.startsWith("memory:/metadata/ahead-"), location);
      assertTrue(io.newInputFile(location).exists(), location);
    }
    assertEquals(List.of(), WrittenFiles.of(written, SPECS).manifestLocations(), "inline files name no manifest");
  }

  /**
   * The schemas the files were written with come back once each, inline, merged by the aggregator
   * and written ahead into manifests; files of a floe that did not keep them have none.
   */
  @Test
  void theSchemasFilesWereWrittenWithComeBack() throws IOException {
    Schema first = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Schema evolved = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "note", Types.StringType.get()));
    WrittenFiles one = WrittenFiles.of(everyKind(), SPECS, List.of(first, evolved));
    WrittenFiles other = WrittenFiles.of(WriteResult.builder().build(), SPECS, List.of(first));
    List<Schema> read = WrittenFiles.concat(List.of(one, other)).schemas();
    assertEquals(2, read.size(), "each schema once");
    assertTrue(read.get(0).sameSchema(first) && read.get(1).sameSchema(evolved), read.toString());
    assertSameFiles(everyKind(), WrittenFiles.concat(List.of(one, other)).toWriteResult(SPECS));

    FileIO io = new InMemoryFileIO();
    int[] made = {0};
    WrittenFiles spilled = WrittenFiles.inManifests(everyKind(), read, SPECS, 2,
        () -> io.newOutputFile("memory:/metadata/s-" + made[0]++ + ".avro"));
    List<Schema> keptAhead = spilled.schemas();
    assertEquals(2, keptAhead.size());
    assertTrue(keptAhead.get(0).sameSchema(first) && keptAhead.get(1).sameSchema(evolved), keptAhead.toString());
    assertEquals(List.of(), WrittenFiles.of(everyKind(), SPECS).schemas());
  }

  /** The same files, each kind in order of location (read from manifests, they come grouped by spec). */
  private static WriteResult byLocation(WriteResult result) {
    java.util.Comparator<ContentFile<?>> order = java.util.Comparator.comparing(ContentFile::location);
    return WriteResult.builder()
        .addDataFiles(Arrays.stream(result.dataFiles()).sorted(order).toList())
        .addDeleteFiles(Arrays.stream(result.deleteFiles()).sorted(order).toList())
        .addReferencedDataFiles(result.referencedDataFiles())
        .addRewrittenDeleteFiles(Arrays.stream(result.rewrittenDeleteFiles()).sorted(order).toList())
        .build();
  }

  @Test
  void theFormIsIcebergsJsonNotJavaSerialization() {
    byte[] bytes = WrittenFiles.of(everyKind(), SPECS).bytes();
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    assertTrue(text.contains("\"file-path\":\"file:/w/data/p1.parquet\""), "Iceberg's content file JSON");
    assertTrue(text.contains("\"content\":\"equality-deletes\""));
    assertTrue(text.contains("\"referenced-data-file\":\"file:/w/data/p1.parquet\""));
    assertTrue(!text.contains("java.") && !text.contains("org.apache"), "no class names in the bytes");
  }

  @Test
  void concatenationMergesWritersFiles() throws IOException {
    WriteResult first = WriteResult.builder().addDataFiles(partitionedDataFile("file:/w/a.parquet", "a")).build();
    WriteResult second = everyKind();
    WrittenFiles merged =
        WrittenFiles.concat(List.of(WrittenFiles.of(first, SPECS), WrittenFiles.of(WriteResult.builder().build(), SPECS),
            WrittenFiles.of(second, SPECS)));
    assertSameFiles(WriteResult.builder().add(first).add(second).build(), merged.toWriteResult(SPECS));
    assertEquals(0, WrittenFiles.concat(List.of()).bytes().length);
    assertEquals(0, WrittenFiles.concat(List.of()).toWriteResult(SPECS).dataFiles().length);
  }

  @Test
  void writeResultsFloeJavaSerializedBeforeAreStillRead() throws IOException {
    WriteResult old = everyKind();
    byte[] javaSerialized = InstantiationUtil.serializeObject(old);

    // A writer's files in flight, as version 1 of the serializer wrote them.
    WrittenFiles inFlight = new WrittenFiles.Serializer().deserialize(1, javaSerialized);
    assertSameFiles(old, inFlight.toWriteResult(SPECS));

    // A committable in a checkpoint, as version 1 of its serializer wrote it.
    FloeCommittable restored =
        new FloeCommittable.Serializer().deserialize(1, committableWithoutRunId("job", "operator", 17, javaSerialized));
    assertEquals(17, restored.checkpointId());
    assertEquals("job", restored.jobId());
    assertEquals("operator", restored.operatorId());
    assertEquals(null, restored.runId());
    // Merged with files written in the new form, as a restored aggregator's committable would be.
    WrittenFiles mixed = WrittenFiles.concat(List.of(WrittenFiles.fromBytes(restored.files()),
        WrittenFiles.of(WriteResult.builder().addDataFiles(unpartitionedDataFile("file:/w/new.parquet")).build(), SPECS)));
    WriteResult all = mixed.toWriteResult(SPECS);
    assertSameFiles(WriteResult.builder().add(old).addDataFiles(unpartitionedDataFile("file:/w/new.parquet")).build(), all);
  }

  /**
   * Iceberg's {@code IcebergSink} keeps committables whose version 1 has the layout of floe's, so a
   * job that switches to floe's sink under the same uid restores them into floe's committer: their
   * files are read from Iceberg's manifests (before, floe read them as a Java-serialized write
   * result and the commit failed at every restore), and an empty one holds no files.
   */
  @Test
  void icebergSinkCommittablesRestoredUnderTheSameUidAreRead() throws Exception {
    FileIO io = new InMemoryFileIO();
    DataFile file = unpartitionedDataFile("file:/w/from-iceberg.parquet");
    DeltaManifests manifests = FlinkManifestUtil.writeCompletedFiles(
        WriteResult.builder().addDataFiles(file).build(),
        () -> io.newOutputFile("memory:/metadata/iceberg-checkpoint-5.avro"), UNPARTITIONED, 2);
    byte[] manifestBytes = SimpleVersionedSerialization.writeVersionAndSerialize(DeltaManifestsSerializer.INSTANCE, manifests);
    FloeCommittable.Serializer floe = new FloeCommittable.Serializer();

    FloeCommittable restored = floe.deserialize(1, icebergCommittable(manifestBytes, "job", "operator", 5));
    assertEquals(List.of("job", "operator", 5L), List.of(restored.jobId(), restored.operatorId(), restored.checkpointId()));
    assertEquals(null, restored.runId());
    WriteResult read = WrittenFiles.fromBytes(restored.files()).toWriteResult(SPECS, io);
    assertEquals(1, read.dataFiles().length);
    DataFile back = read.dataFiles()[0];
    // Read from a manifest not yet committed, as Iceberg's committer reads it: its sequence
    // numbers are unassigned until the commit gives it the snapshot's.
    assertEquals(Arrays.asList(file.location(), file.recordCount(), file.fileSizeInBytes(), file.valueCounts(),
            file.lowerBounds(), file.upperBounds()),
        Arrays.asList(back.location(), back.recordCount(), back.fileSizeInBytes(), back.valueCounts(),
            back.lowerBounds(), back.upperBounds()));
    assertEquals(0, read.deleteFiles().length);
    assertThrows(IOException.class, () -> WrittenFiles.fromBytes(restored.files()).toWriteResult(SPECS),
        "Iceberg's manifests need the table's FileIO");

    FloeCommittable empty = floe.deserialize(1, icebergCommittable(new byte[0], "job", "operator", 6));
    assertEquals(0, WrittenFiles.fromBytes(empty.files()).toWriteResult(SPECS, io).dataFiles().length);
  }

  /** An Iceberg {@code IcebergCommittable} as its own serializer writes it (its class is package-private). */
  private static byte[] icebergCommittable(byte[] manifest, String jobId, String operatorId, long checkpointId)
      throws Exception {
    Class<?> type = Class.forName("org.apache.iceberg.flink.sink.IcebergCommittable");
    Constructor<?> create = type.getDeclaredConstructor(byte[].class, String.class, String.class, long.class);
    create.setAccessible(true);
    Object committable = create.newInstance(manifest, jobId, operatorId, checkpointId);
    IcebergCommittableSerializer serializer = new IcebergCommittableSerializer();
    assertEquals(1, serializer.getVersion(), "the Iceberg version this reading was made for");
    Method serialize = IcebergCommittableSerializer.class.getMethod("serialize", type);
    return (byte[]) serialize.invoke(serializer, committable);
  }

  @Test
  void committablesRoundTripInTheCurrentVersion() throws IOException {
    byte[] files = WrittenFiles.of(everyKind(), SPECS).bytes();
    FloeCommittable.Serializer serializer = new FloeCommittable.Serializer();
    for (String runId : Arrays.asList("run-3", null)) {
      FloeCommittable committable = new FloeCommittable(files, "job-1", "op-2", runId, 42);
      FloeCommittable back = serializer.deserialize(serializer.getVersion(), serializer.serialize(committable));
      assertArrayEquals(files, back.files());
      assertEquals("job-1", back.jobId());
      assertEquals("op-2", back.operatorId());
      assertEquals(runId, back.runId());
      assertEquals(42, back.checkpointId());
      assertSameFiles(everyKind(), WrittenFiles.fromBytes(back.files()).toWriteResult(SPECS));
    }
  }

  @Test
  void versionTwoCommittablesHaveNoRunId() throws IOException {
    byte[] files = WrittenFiles.of(everyKind(), SPECS).bytes();
    FloeCommittable restored =
        new FloeCommittable.Serializer().deserialize(2, committableWithoutRunId("job", "operator", 9, files));
    assertEquals(null, restored.runId());
    assertEquals(9, restored.checkpointId());
    assertArrayEquals(files, restored.files());
  }

  /** A committable as versions 1 and 2 of its serializer wrote it (no run id; the files as given). */
  private static byte[] committableWithoutRunId(String jobId, String operatorId, long checkpointId, byte[] files)
      throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    out.writeUTF(jobId);
    out.writeUTF(operatorId);
    out.writeLong(checkpointId);
    out.writeInt(files.length);
    out.write(files);
    return out.getCopyOfBuffer();
  }

  @Test
  void badBytesAreRefusedWithAReason() {
    byte[] good = WrittenFiles.of(everyKind(), SPECS).bytes();
    IOException truncated =
        assertThrows(IOException.class, () -> WrittenFiles.fromBytes(Arrays.copyOf(good, good.length - 3)).toWriteResult(SPECS));
    assertTrue(truncated.getMessage().contains("bytes"), truncated.getMessage());

    byte[] unknownKind = good.clone();
    unknownKind[0] = 77;
    IOException kind = assertThrows(IOException.class, () -> WrittenFiles.fromBytes(unknownKind).toWriteResult(SPECS));
    assertTrue(kind.getMessage().contains("unknown entry kind 77"), kind.getMessage());

    IOException spec = assertThrows(IOException.class, () -> WrittenFiles.fromBytes(good).toWriteResult(Map.of(0, UNPARTITIONED)));
    assertTrue(spec.getMessage().contains("file:/w/data/p1.parquet"), spec.getMessage());

    IllegalArgumentException missingSpec =
        assertThrows(IllegalArgumentException.class, () -> WrittenFiles.of(everyKind(), Map.of(1, PARTITIONED)));
    assertTrue(missingSpec.getMessage().contains("partition spec 0"), missingSpec.getMessage());

    assertThrows(IOException.class, () -> new WrittenFiles.Serializer().deserialize(3, good));
    assertThrows(IOException.class, () -> new FloeCommittable.Serializer().deserialize(4, new byte[0]));
  }

  private static void assertSameFiles(WriteResult expected, WriteResult actual) {
    assertSameFiles(expected, actual, false);
  }

  /**
   * @param fromManifests {@code actual} was read from manifests not yet committed: the data files
   *     and deletes there have Iceberg's unassigned sequence number (-1), which the commit assigns
   */
  private static void assertSameFiles(WriteResult expected, WriteResult actual, boolean fromManifests) {
    assertEquals(expected.dataFiles().length, actual.dataFiles().length);
    for (int i = 0; i < expected.dataFiles().length; i++) {
      assertSameFile(expected.dataFiles()[i], actual.dataFiles()[i], fromManifests);
    }
    assertEquals(expected.deleteFiles().length, actual.deleteFiles().length);
    for (int i = 0; i < expected.deleteFiles().length; i++) {
      assertSameFile(expected.deleteFiles()[i], actual.deleteFiles()[i], fromManifests);
    }
    assertEquals(
        Arrays.stream(expected.referencedDataFiles()).map(CharSequence::toString).toList(),
        Arrays.stream(actual.referencedDataFiles()).map(CharSequence::toString).toList());
    assertEquals(expected.rewrittenDeleteFiles().length, actual.rewrittenDeleteFiles().length);
    for (int i = 0; i < expected.rewrittenDeleteFiles().length; i++) {
      assertSameFile(expected.rewrittenDeleteFiles()[i], actual.rewrittenDeleteFiles()[i], false); // kept inline
    }
  }

  /** Every field a commit reads from a data or delete file. */
  private static void assertSameFile(ContentFile<?> expected, ContentFile<?> actual, boolean fromManifest) {
    String where = expected.location();
    assertEquals(expected.content(), actual.content(), where);
    assertEquals(expected.location(), actual.location(), where);
    assertEquals(expected.format(), actual.format(), where);
    assertEquals(expected.specId(), actual.specId(), where);
    assertSamePartition(SPECS.get(expected.specId()), expected.partition(), actual.partition(), where);
    assertEquals(expected.recordCount(), actual.recordCount(), where);
    assertEquals(expected.fileSizeInBytes(), actual.fileSizeInBytes(), where);
    assertEquals(expected.columnSizes(), actual.columnSizes(), where);
    assertEquals(expected.valueCounts(), actual.valueCounts(), where);
    assertEquals(expected.nullValueCounts(), actual.nullValueCounts(), where);
    assertEquals(expected.nanValueCounts(), actual.nanValueCounts(), where);
    assertEquals(expected.lowerBounds(), actual.lowerBounds(), where);
    assertEquals(expected.upperBounds(), actual.upperBounds(), where);
    assertEquals(expected.keyMetadata(), actual.keyMetadata(), where);
    assertEquals(expected.splitOffsets(), actual.splitOffsets(), where);
    assertEquals(expected.equalityFieldIds(), actual.equalityFieldIds(), where);
    assertEquals(expected.sortOrderId(), actual.sortOrderId(), where);
    assertEquals(expected.firstRowId(), actual.firstRowId(), where);
    assertEquals(fromManifest ? Long.valueOf(-1) : expected.dataSequenceNumber(), actual.dataSequenceNumber(), where);
    if (expected instanceof DeleteFile deletes) {
      DeleteFile read = (DeleteFile) actual;
      assertEquals(deletes.referencedDataFile(), read.referencedDataFile(), where);
      assertEquals(deletes.contentOffset(), read.contentOffset(), where);
      assertEquals(deletes.contentSizeInBytes(), read.contentSizeInBytes(), where);
    }
  }

  private static void assertSamePartition(PartitionSpec spec, StructLike expected, StructLike actual, String where) {
    assertEquals(spec.partitionType().fields().size(), actual.size(), where);
    for (int i = 0; i < spec.partitionType().fields().size(); i++) {
      Class<?> javaClass = spec.partitionType().fields().get(i).type().typeId().javaClass();
      Object e = expected.get(i, javaClass);
      Object a = actual.get(i, javaClass);
      if (e instanceof CharSequence) {
        assertNotNull(a, where);
        assertEquals(e.toString(), a.toString(), where + " partition field " + i);
      } else {
        assertTrue(Objects.equals(e, a), where + " partition field " + i + ": " + e + " against " + a);
      }
    }
  }
}
