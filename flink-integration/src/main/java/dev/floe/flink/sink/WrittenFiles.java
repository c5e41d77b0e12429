package dev.floe.flink.sink;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.iceberg.PartitionTypes;
import dev.floe.iceberg.WrittenSchemas;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.flink.sink.DeltaManifests;
import org.apache.iceberg.flink.sink.DeltaManifestsSerializer;
import org.apache.iceberg.flink.sink.FlinkManifestUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.JsonUtil;

/**
 * The files a writer finished for a checkpoint, or all of a checkpoint's files, as bytes that a
 * later floe and a later Iceberg still read: what travels from the writers to the aggregator and
 * what the committer keeps in Flink's checkpoints until the commit is known.
 *
 * <p>Each data or delete file is Iceberg's own JSON form ({@link ContentFileParser}, the REST
 * catalog's, which Iceberg keeps readable across releases), so the bytes never depend on the
 * classes' Java serialization: Iceberg's file classes declare no {@code serialVersionUID}, and the
 * computed one changes between releases ({@code BaseFile} and {@code PartitionData} from 1.11 to
 * 1.12, {@code WriteResult} from 1.10 to 1.11), which would leave a savepoint unreadable after an
 * upgrade. Decoding needs the table's partition specs by id; encoding the spec of each file.
 *
 * <p>Layout: a sequence of entries, each a kind byte, a length (int) and that many bytes. There is
 * no header, so the concatenation of encodings is the encoding of all their files (the
 * aggregator's merge). Kinds: a data file, a delete file, a referenced data file's location, a
 * rewritten delete file, a schema the files were written with (Iceberg's schema JSON; the commit
 * checks the table still reads their columns so, {@link WrittenSchemas}; a floe before it does
 * not read this kind), a Java-serialized {@link WriteResult} as floe wrote it before this form
 * (version 1 of both serializers), read from state restored from such a build, and the manifests of
 * a committable of Iceberg's {@code IcebergSink} (its version 1 has the layout of floe's), restored
 * into floe's committer by a job that switched sinks under the same uid.
 */
public final class WrittenFiles {
  private static final byte DATA_FILE = 1;
  private static final byte DELETE_FILE = 2;
  private static final byte REFERENCED_DATA_FILE = 3;
  private static final byte REWRITTEN_DELETE_FILE = 4;
  private static final byte WRITTEN_SCHEMA = 5;
  private static final byte JAVA_SERIALIZED_WRITE_RESULT = 9;
  private static final byte ICEBERG_DELTA_MANIFESTS = 10;

  private final byte[] bytes;

  private WrittenFiles(byte[] bytes) {
    this.bytes = bytes;
  }

  /** {@code result}'s files; {@code specs} holds the spec of each (a table's {@code specs()}). */
  static WrittenFiles of(WriteResult result, Map<Integer, PartitionSpec> specs) {
    return of(result, specs, List.of());
  }

  /** {@code result}'s files, and the {@code schemas} they were written with. */
  static WrittenFiles of(WriteResult result, Map<Integer, PartitionSpec> specs, List<Schema> schemas) {
    DataOutputSerializer out = new DataOutputSerializer(1024);
    try {
      writeSchemas(out, schemas);
      for (DataFile file : result.dataFiles()) {
        entry(out, DATA_FILE, json(file, specs));
      }
      for (DeleteFile file : result.deleteFiles()) {
        entry(out, DELETE_FILE, json(file, specs));
      }
      for (CharSequence location : result.referencedDataFiles()) {
        entry(out, REFERENCED_DATA_FILE, location.toString().getBytes(StandardCharsets.UTF_8));
      }
      for (DeleteFile file : result.rewrittenDeleteFiles()) {
        entry(out, REWRITTEN_DELETE_FILE, json(file, specs));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // DataOutputSerializer grows in memory: not expected
    }
    return new WrittenFiles(out.getCopyOfBuffer());
  }

  private static void writeSchemas(DataOutputSerializer out, Collection<Schema> schemas) throws IOException {
    for (Schema schema : schemas) {
      entry(out, WRITTEN_SCHEMA, SchemaParser.toJson(schema).getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * {@code result}'s data and delete files written ahead into Iceberg manifests, a pair per
   * partition spec (as Iceberg's sink writes a checkpoint's), and only the manifests kept: for a
   * checkpoint with so many files that their metadata would swell Flink's state. Referenced data
   * files and rewritten delete files stay inline (few, and a manifest pair of Iceberg's sink does
   * not carry rewritten ones). Read back as Iceberg's own committables are ({@link #toWriteResult}
   * with the table's {@code FileIO}); {@link #manifestLocations} names the files to delete once
   * committed.
   *
   * @param outputs a new manifest file at each call
   */
  static WrittenFiles inManifests(WriteResult result, Map<Integer, PartitionSpec> specs, int formatVersion,
      Supplier<OutputFile> outputs) throws IOException {
    return inManifests(result, List.of(), specs, formatVersion, outputs);
  }

  /** As {@link #inManifests(WriteResult, Map, int, Supplier)}, keeping the {@code schemas} they were written with. */
  static WrittenFiles inManifests(WriteResult result, Collection<Schema> schemas, Map<Integer, PartitionSpec> specs,
      int formatVersion, Supplier<OutputFile> outputs) throws IOException {
    Map<Integer, WriteResult.Builder> bySpec = new TreeMap<>();
    for (DataFile file : result.dataFiles()) {
      PartitionTypes.align(specs, file);
      bySpec.computeIfAbsent(file.specId(), id -> WriteResult.builder()).addDataFiles(file);
    }
    for (DeleteFile file : result.deleteFiles()) {
      PartitionTypes.align(specs, file);
      bySpec.computeIfAbsent(file.specId(), id -> WriteResult.builder()).addDeleteFiles(file);
    }
    DataOutputSerializer out = new DataOutputSerializer(1024);
    writeSchemas(out, schemas);
    for (Map.Entry<Integer, WriteResult.Builder> entry : bySpec.entrySet()) {
      PartitionSpec spec = specs.get(entry.getKey());
      if (spec == null) {
        throw new IllegalArgumentException("files of partition spec " + entry.getKey() + ", which the table does not have");
      }
      DeltaManifests manifests = FlinkManifestUtil.writeCompletedFiles(entry.getValue().build(), outputs, spec, formatVersion);
      entry(out, ICEBERG_DELTA_MANIFESTS,
          SimpleVersionedSerialization.writeVersionAndSerialize(DeltaManifestsSerializer.INSTANCE, manifests));
    }
    for (CharSequence location : result.referencedDataFiles()) {
      entry(out, REFERENCED_DATA_FILE, location.toString().getBytes(StandardCharsets.UTF_8));
    }
    for (DeleteFile file : result.rewrittenDeleteFiles()) {
      entry(out, REWRITTEN_DELETE_FILE, json(file, specs));
    }
    return new WrittenFiles(out.getCopyOfBuffer());
  }

  /** The locations of the Iceberg manifests among these files (written ahead, or Iceberg's sink's). */
  List<String> manifestLocations() throws IOException {
    List<String> locations = new ArrayList<>();
    forEachEntry((kind, at, length) -> {
      if (kind == ICEBERG_DELTA_MANIFESTS && length > 0) {
        DeltaManifests manifests = SimpleVersionedSerialization.readVersionAndDeSerialize(
            DeltaManifestsSerializer.INSTANCE, Arrays.copyOfRange(bytes, at, at + length));
        manifests.manifests().forEach(manifest -> locations.add(manifest.path()));
      }
    });
    return locations;
  }

  /**
   * The schemas the files were written with, each once, in order; empty for files of a floe before
   * these were kept, or of Iceberg's sink.
   */
  List<Schema> schemas() throws IOException {
    Map<String, Schema> schemas = new LinkedHashMap<>();
    forEachEntry((kind, at, length) -> {
      if (kind == WRITTEN_SCHEMA) {
        String json = new String(bytes, at, length, StandardCharsets.UTF_8);
        if (!schemas.containsKey(json)) {
          try {
            schemas.put(json, SchemaParser.fromJson(json));
          } catch (RuntimeException e) {
            throw new IOException("written files: cannot read a schema they were written with: " + e.getMessage(), e);
          }
        }
      }
    });
    return List.copyOf(schemas.values());
  }

  /** What {@link #forEachEntry} calls with each entry: its kind, and where its bytes are. */
  @FunctionalInterface
  private interface EntryVisitor {
    void visit(byte kind, int at, int length) throws IOException;
  }

  /** Calls {@code visitor} with each entry in order; refuses entries whose length runs past the end. */
  private void forEachEntry(EntryVisitor visitor) throws IOException {
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    while (in.available() > 0) {
      byte kind = in.readByte();
      int length = in.readInt();
      if (length < 0 || length > in.available()) {
        throw new IOException("written files: an entry of " + length + " bytes where " + in.available() + " are left");
      }
      int at = in.getPosition();
      in.skipBytesToRead(length);
      visitor.visit(kind, at, length);
    }
  }

  /** The files of a Java-serialized {@link WriteResult} (floe's form before this one). */
  static WrittenFiles ofJavaSerialized(byte[] writeResult) {
    return single(JAVA_SERIALIZED_WRITE_RESULT, writeResult);
  }

  /**
   * The files of an Iceberg {@code IcebergCommittable}'s manifest bytes (Flink's versioned form of
   * Iceberg's {@code DeltaManifests}; empty when its checkpoint had no files): read with the table's
   * {@code FileIO} when committed.
   */
  static WrittenFiles ofIcebergManifests(byte[] manifest) {
    return single(ICEBERG_DELTA_MANIFESTS, manifest);
  }

  private static WrittenFiles single(byte kind, byte[] value) {
    DataOutputSerializer out = new DataOutputSerializer(value.length + 5);
    try {
      entry(out, kind, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // DataOutputSerializer grows in memory: not expected
    }
    return new WrittenFiles(out.getCopyOfBuffer());
  }

  /** Bytes from {@link #bytes()}; they are checked when {@link #toWriteResult} reads them. */
  static WrittenFiles fromBytes(byte[] bytes) {
    return new WrittenFiles(bytes);
  }

  /** All the files of {@code parts}. */
  static WrittenFiles concat(Collection<WrittenFiles> parts) {
    int length = 0;
    for (WrittenFiles part : parts) {
      length += part.bytes.length;
    }
    byte[] all = new byte[length];
    int at = 0;
    for (WrittenFiles part : parts) {
      System.arraycopy(part.bytes, 0, all, at, part.bytes.length);
      at += part.bytes.length;
    }
    return new WrittenFiles(all);
  }

  byte[] bytes() {
    return bytes;
  }

  /** The files again, read with the table's partition specs by id (no Iceberg manifests among them). */
  WriteResult toWriteResult(Map<Integer, PartitionSpec> specs) throws IOException {
    return toWriteResult(specs, null);
  }

  /** The files again, read with the table's partition specs by id and, for Iceberg's manifests, its {@code io}. */
  WriteResult toWriteResult(Map<Integer, PartitionSpec> specs, FileIO io) throws IOException {
    WriteResult.Builder result = WriteResult.builder();
    forEachEntry((kind, at, length) -> {
      switch (kind) {
        case DATA_FILE -> result.addDataFiles((DataFile) file(at, length, specs, DataFile.class));
        case DELETE_FILE -> result.addDeleteFiles((DeleteFile) file(at, length, specs, DeleteFile.class));
        case REFERENCED_DATA_FILE -> result.addReferencedDataFiles(new String(bytes, at, length, StandardCharsets.UTF_8));
        case REWRITTEN_DELETE_FILE ->
            result.addRewrittenDeleteFiles((DeleteFile) file(at, length, specs, DeleteFile.class));
        case WRITTEN_SCHEMA -> {} // read by schemas()
        case JAVA_SERIALIZED_WRITE_RESULT -> result.add(javaSerialized(Arrays.copyOfRange(bytes, at, at + length)));
        case ICEBERG_DELTA_MANIFESTS -> {
          if (length > 0) {
            result.add(icebergManifests(Arrays.copyOfRange(bytes, at, at + length), specs, io));
          }
        }
        default -> throw new IOException("written files: unknown entry kind " + kind + " (this floe reads 1-5, 9 and 10)");
      }
    });
    return result.build();
  }

  private static void entry(DataOutputSerializer out, byte kind, byte[] value) throws IOException {
    out.writeByte(kind);
    out.writeInt(value.length);
    out.write(value);
  }

  private static byte[] json(ContentFile<?> file, Map<Integer, PartitionSpec> specs) {
    PartitionSpec spec = specs.get(file.specId());
    if (spec == null) {
      throw new IllegalArgumentException(
          "file " + file.location() + " has partition spec " + file.specId() + ", which the table does not have");
    }
    PartitionTypes.align(specs, file); // written before a partition column was widened in the same checkpoint
    return ContentFileParser.toJson(file, spec).getBytes(StandardCharsets.UTF_8);
  }

  /** The file whose JSON is {@code bytes[at, at + length)}. */
  private ContentFile<?> file(int at, int length, Map<Integer, PartitionSpec> specs, Class<?> expected)
      throws IOException {
    JsonNode node = JsonUtil.mapper().readTree(bytes, at, length);
    requireSpec(node.path("spec-id").asInt(-1), node.path("file-path").asText("a file"), specs);
    ContentFile<?> file;
    try {
      file = ContentFileParser.fromJson(node, specs);
    } catch (IllegalArgumentException e) {
      throw new IOException("written files: cannot read " + node.path("file-path").asText("a file") + ": "
          + e.getMessage(), e);
    }
    if (!expected.isInstance(file)) {
      throw new IOException("written files: " + file.location() + " is a " + file.content()
          + " file where a " + expected.getSimpleName() + " was written");
    }
    return file;
  }

  /**
   * Refuses a file (or a manifest of files) written under a partition spec the table no longer has:
   * snapshot expiry with clean-expired-metadata removed it while a checkpoint held the file.
   */
  private static void requireSpec(int specId, String what, Map<Integer, PartitionSpec> specs) throws IOException {
    if (specId >= 0 && !specs.containsKey(specId)) {
      throw new IOException("written files: " + what + " was written under partition spec " + specId + ", which the"
          + " table no longer has (its specs are " + specs.keySet() + "): snapshot expiry with clean-expired-metadata"
          + " removed it while a checkpoint held the file, which can no longer be committed: its rows must be written"
          + " again, from the source's offsets before the checkpoint");
    }
  }

  private static WriteResult javaSerialized(byte[] bytes) throws IOException {
    try {
      return InstantiationUtil.deserializeObject(bytes, WriteResult.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IOException("cannot read a write result of an earlier floe: " + e.getMessage(), e);
    }
  }

  private static WriteResult icebergManifests(byte[] manifest, Map<Integer, PartitionSpec> specs, FileIO io)
      throws IOException {
    if (io == null) {
      throw new IOException("written files: Iceberg's manifests need the table's FileIO to be read");
    }
    DeltaManifests manifests =
        SimpleVersionedSerialization.readVersionAndDeSerialize(DeltaManifestsSerializer.INSTANCE, manifest);
    for (ManifestFile file : manifests.manifests()) {
      requireSpec(file.partitionSpecId(), "manifest " + file.path(), specs);
    }
    return FlinkManifestUtil.readCompletedFiles(manifests, io, specs);
  }

  /** A writer's files on their way to the aggregator (in-flight data, kept by unaligned checkpoints). */
  static final class Serializer implements SimpleVersionedSerializer<WrittenFiles> {
    /** 1: a Java-serialized {@link WriteResult}; 2: this class's entries. */
    private static final int VERSION = 2;

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(WrittenFiles files) {
      return files.bytes;
    }

    @Override
    public WrittenFiles deserialize(int version, byte[] serialized) throws IOException {
      return switch (version) {
        case 1 -> ofJavaSerialized(serialized);
        case VERSION -> fromBytes(serialized);
        default -> throw new IOException("unknown written files version " + version + " (this floe reads 1 and 2)");
      };
    }
  }
}
