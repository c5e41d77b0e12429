package dev.floe.iceberg;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Creates floe's native writers for one table, as Iceberg's {@code FileWriterFactory} does for
 * its Java writers: file names and locations from the table's location provider, Parquet settings
 * and target file size from its properties, metrics from its {@link MetricsConfig}.
 */
public final class NativeFileWriterFactory {
  private final Schema schema;
  private final PartitionSpec spec;
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private final FileIO io;
  private final OutputFileFactory files;
  /** Names the Puffin files that hold deletion vectors (format v3 upserts). */
  private final OutputFileFactory deletionVectorFiles;
  private final WriterSettings settings;
  /** Settings of delete files: the table's {@code write.delete.parquet.*} properties. */
  private final WriterSettings deleteSettings;
  private final MetricsConfig metricsConfig;
  private final MetricsConfig positionDeleteMetricsConfig;
  private final int formatVersion;
  /**
   * The older partition specs upserts delete in: those that held live data files when this
   * factory was made ({@link #tableOlderSpecs}), and any a writer added ({@link #alsoDeletingIn}).
   */
  private final List<PartitionSpec> olderSpecsWithData;
  /** The table's other partition specs that held live data files when this factory was made. */
  private final List<PartitionSpec> tableOlderSpecs;
  /** The table's own properties that shape its files ({@link #writingProperties}), as of then. */
  private final Map<String, String> writingProperties;
  private final BufferAllocator allocator;

  private NativeFileWriterFactory(
      Schema schema,
      PartitionSpec spec,
      FileIO io,
      OutputFileFactory files,
      OutputFileFactory deletionVectorFiles,
      WriterSettings settings,
      WriterSettings deleteSettings,
      MetricsConfig metricsConfig,
      MetricsConfig positionDeleteMetricsConfig,
      int formatVersion,
      List<PartitionSpec> olderSpecsWithData,
      List<PartitionSpec> tableOlderSpecs,
      Map<String, String> writingProperties,
      BufferAllocator allocator) {
    this.schema = schema;
    this.spec = spec;
    this.arrowSchema = ArrowSchemas.toArrow(schema);
    this.io = io;
    this.files = files;
    this.deletionVectorFiles = deletionVectorFiles;
    this.settings = settings;
    this.deleteSettings = deleteSettings;
    this.metricsConfig = metricsConfig;
    this.positionDeleteMetricsConfig = positionDeleteMetricsConfig;
    this.formatVersion = formatVersion;
    this.olderSpecsWithData = olderSpecsWithData;
    this.tableOlderSpecs = tableOlderSpecs;
    this.writingProperties = writingProperties;
    this.allocator = allocator;
  }

  /**
   * A factory for {@code table}'s current schema and spec.
   *
   * @param allocator used only for the short-lived C Data structs of each native call
   */
  public static NativeFileWriterFactory forTable(Table table, BufferAllocator allocator) {
    return forTable(table, allocator, 0, 0);
  }

  /** As {@link #forTable(Table, BufferAllocator)}, naming files for a task within an operation. */
  public static NativeFileWriterFactory forTable(
      Table table, BufferAllocator allocator, int partitionId, long taskId) {
    return forTable(table, allocator, partitionId, taskId, Map.of());
  }

  /**
   * As {@link #forTable(Table, BufferAllocator, int, long)}, with {@code overrides} taking the place
   * of the table's own file-writing properties ({@code write.parquet.*}, {@code
   * write.target-file-size-bytes}, ...) for this writer only, as a job's write options do in
   * Iceberg's engines.
   */
  public static NativeFileWriterFactory forTable(
      Table table, BufferAllocator allocator, int partitionId, long taskId, Map<String, String> overrides) {
    Map<String, String> properties = new HashMap<>(table.properties());
    properties.putAll(overrides);
    String format = properties.getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
    if (!format.equalsIgnoreCase("parquet")) { // refused, not ignored: the table's readers expect that format
      throw new IllegalArgumentException("table " + table.name() + " asks for " + format + " data files ("
          + TableProperties.DEFAULT_FILE_FORMAT + "); floe writes Parquet");
    }
    requireUnencrypted(table, properties);
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, partitionId, taskId).format(FileFormat.PARQUET).build();
    OutputFileFactory deletionVectors =
        OutputFileFactory.builderFor(table, partitionId, taskId).format(FileFormat.PUFFIN).build();
    return new NativeFileWriterFactory(
        table.schema(),
        table.spec(),
        table.io(),
        files,
        deletionVectors,
        WriterSettings.of(properties).withColumnSettings(table.schema(), properties),
        WriterSettings.forDeletes(properties),
        MetricsConfig.forTable(table),
        MetricsConfig.forPositionDelete(table),
        TableUtil.formatVersion(table),
        olderSpecsWithData(table),
        olderSpecsWithData(table),
        writingProperties(table),
        allocator);
  }

  /**
   * Refuses an encrypted table: Iceberg encrypts its Parquet files with Parquet's modular
   * encryption and records each file's key metadata, which libfloe does not write. Written
   * through the table's encrypting streams instead, the files would be unreadable and their
   * recorded sizes wrong.
   */
  private static void requireUnencrypted(Table table, Map<String, String> properties) {
    String keyId = properties.get(TableProperties.ENCRYPTION_TABLE_KEY);
    if (keyId != null || !(table.encryption() instanceof PlaintextEncryptionManager)) {
      throw new IllegalArgumentException("table " + table.name() + " is encrypted ("
          + (keyId != null ? TableProperties.ENCRYPTION_TABLE_KEY + " = " + keyId : table.encryption().getClass().getName())
          + "); floe writes no encrypted Parquet files");
    }
  }

  /**
   * Why {@code table} cannot be written by key ({@link #newUpsertTaskWriter}, {@link
   * #newDeltaTaskWriter}), or null if it can: a format v2+ table whose identifier fields are
   * top-level columns and the source of every partition field, in the current spec and in every
   * older spec that still holds live data files (a key must name its partition in each). Adapters
   * that choose between appending and writing by key ask this before they start.
   */
  public static String keyedWritesRefusal(Table table) {
    return keyedWritesRefusal(
        "table " + table.name(), table.schema(), table.spec(), TableUtil.formatVersion(table), olderSpecsWithData(table),
        false);
  }

  /**
   * Why a table about to be created as {@code schema}, {@code spec} and {@code formatVersion}
   * could not be written by key (the rules of {@link #keyedWritesRefusal(Table)}), or null if it
   * could: asked before creating it, so that a refused table is not left behind.
   */
  public static String keyedWritesRefusal(String table, Schema schema, PartitionSpec spec, int formatVersion) {
    return keyedWritesRefusal("table " + table, schema, spec, formatVersion, List.of(), false);
  }

  /**
   * Why {@code table} cannot take inserts and deletes of whole rows by key ({@link
   * #newDeltaTaskWriter} with {@link NativeTaskWriter#deleteRows}), or null if it can: the rules
   * of {@link #keyedWritesRefusal(Table)}, except that the current spec may partition by any
   * column (a deleted row names its partition, as in Iceberg's Flink sink outside upsert mode).
   */
  public static String deltaWritesRefusal(Table table) {
    return keyedWritesRefusal(
        "table " + table.name(), table.schema(), table.spec(), TableUtil.formatVersion(table), olderSpecsWithData(table),
        true);
  }

  /**
   * The rules of {@link #keyedWritesRefusal(Table)}, over what a factory keeps of its table, which
   * messages call {@code table}; with {@code wholeRows}, those of {@link #deltaWritesRefusal}.
   */
  private static String keyedWritesRefusal(String table, Schema schema, PartitionSpec spec, int formatVersion,
      List<PartitionSpec> olderSpecsWithData, boolean wholeRows) {
    Set<Integer> keys = schema.identifierFieldIds();
    if (formatVersion < 2) {
      return table + " is format v1: row-level deletes need format v2 or later";
    }
    if (keys.isEmpty()) {
      return table + " has no identifier fields";
    }
    for (int id : keys) {
      if (schema.columns().stream().noneMatch(column -> column.fieldId() == id)) {
        return "identifier field '" + schema.findColumnName(id) + "' of " + table
            + " is nested in a struct; it must be a top-level column";
      }
    }
    for (PartitionField field : wholeRows ? List.<PartitionField>of() : spec.fields()) {
      if (!keys.contains(field.sourceId())) {
        return table + " is partitioned by '" + field.name() + "' of column '"
            + schema.findColumnName(field.sourceId()) + "', which is not an identifier field";
      }
    }
    for (PartitionSpec older : olderSpecsWithData) {
      for (PartitionField field : older.fields()) {
        if (!keys.contains(field.sourceId())) {
          return table + "'s older partition spec " + older.specId() + ", which still holds live data files, is"
              + " partitioned by '" + field.name() + "' of column '" + schema.findColumnName(field.sourceId())
              + "', which is not an identifier field: rewrite those files to the current spec first (Iceberg's"
              + " rewriteDataFiles)";
        }
      }
    }
    return null;
  }

  /**
   * The partition specs other than the current one that data files of the current snapshot were
   * written with (read from its manifest list): after partition evolution, until those files are
   * rewritten.
   */
  private static List<PartitionSpec> olderSpecsWithData(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null || table.specs().size() == 1) {
      return List.of(); // a table that never changed its spec: no manifest list to read (each cycle, per table)
    }
    Set<Integer> ids = new TreeSet<>();
    for (ManifestFile manifest : current.dataManifests(table.io())) {
      if (manifest.partitionSpecId() != table.spec().specId() && (manifest.hasAddedFiles() || manifest.hasExistingFiles())) {
        ids.add(manifest.partitionSpecId());
      }
    }
    return ids.stream().map(table.specs()::get).toList();
  }

  /**
   * This factory with {@code threads} threads sharing out each run's columns (default 1: a run
   * is encoded whole, ahead on libfloe's shared threads unless {@link #withEncoding} turns that
   * off). Files are byte for byte the same; more threads finish a busy writer sooner when cores
   * are idle, at no gain on a machine that is already busy.
   */
  public NativeFileWriterFactory withEncodeThreads(int threads) {
    return withEncoding(threads, settings.parquet().encodeAhead());
  }

  /**
   * This factory with {@code threads} threads encoding each file's columns and, with one thread,
   * column runs encoded ahead on threads shared by every writer ({@code ahead}, the default) or
   * on the writing thread. Files are byte for byte the same either way.
   */
  public NativeFileWriterFactory withEncoding(int threads, boolean ahead) {
    return copy(settings.withEncoding(threads, ahead), deleteSettings.withEncoding(threads, ahead), olderSpecsWithData,
        tableOlderSpecs);
  }

  /**
   * Whether the older specs that hold data in {@code table} (as its metadata was last read) are
   * those this factory's upserts were made for: data that landed in another older spec (a cycle
   * of the writer's own, committed after the spec changed), or left one (rewritten), calls for a
   * new factory at the next cycle. Not checked within a cycle: its writers keep one reach, which
   * the commit checks ({@link EqualityDeleteReach}).
   */
  public boolean deletesInOlderSpecsOf(Table table) {
    return olderSpecsWithData(table).equals(tableOlderSpecs);
  }

  /**
   * This factory for the rest of a cycle {@code previous} began: its upserts delete in exactly the
   * older specs {@code previous}'s did and in {@code previous}'s own spec (besides this one's),
   * whatever the table shows now. Every key of the cycle is then deleted in at least the specs
   * its first keys were, so the commit's check of the cycle's reach ({@link EqualityDeleteReach})
   * holds for each key: a spec that gained data meanwhile fences the cycle, and the next one
   * deletes there (this factory is not current for it, see {@link #deletesInOlderSpecsOf}).
   * {@code previous}'s own spec may hold rows of the sink's cycle before, still landing.
   */
  public NativeFileWriterFactory deletingNoWiderThan(NativeFileWriterFactory previous) {
    Map<Integer, PartitionSpec> older = new TreeMap<>();
    previous.olderSpecsWithData.forEach(s -> older.put(s.specId(), s));
    older.put(previous.spec.specId(), previous.spec);
    older.remove(spec.specId());
    List<PartitionSpec> reach = List.copyOf(older.values());
    if (reach.equals(olderSpecsWithData) && reach.equals(tableOlderSpecs)) {
      return this;
    }
    return copy(settings, deleteSettings, reach, reach);
  }

  /**
   * This factory with upserts deleting in {@code specs} too, besides the older specs the table
   * showed data in: specs a writer wrote data in itself that may not be committed yet (a
   * checkpoint's files land after the next one's writers are made), which the table cannot show.
   */
  public NativeFileWriterFactory alsoDeletingIn(Collection<PartitionSpec> specs) {
    Map<Integer, PartitionSpec> older = new TreeMap<>();
    olderSpecsWithData.forEach(s -> older.put(s.specId(), s));
    specs.stream().filter(s -> s.specId() != spec.specId()).forEach(s -> older.put(s.specId(), s));
    if (older.size() == olderSpecsWithData.size()) {
      return this;
    }
    return copy(settings, deleteSettings, List.copyOf(older.values()), tableOlderSpecs);
  }

  /**
   * This factory with other file settings, and with upserts deleting in {@code deletingIn}, as if
   * made when the table showed data in {@code tableShowed}.
   */
  private NativeFileWriterFactory copy(WriterSettings settings, WriterSettings deleteSettings,
      List<PartitionSpec> deletingIn, List<PartitionSpec> tableShowed) {
    return new NativeFileWriterFactory(
        schema,
        spec,
        io,
        files,
        deletionVectorFiles,
        settings,
        deleteSettings,
        metricsConfig,
        positionDeleteMetricsConfig,
        formatVersion,
        deletingIn,
        tableShowed,
        writingProperties,
        allocator);
  }

  /** The Arrow schema batches must have (field ids included). */
  public org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    return arrowSchema;
  }

  /** The table schema files are written with (as the table's was when this factory was made). */
  public Schema schema() {
    return schema;
  }

  /** The partition spec files are written for. */
  public PartitionSpec spec() {
    return spec;
  }

  /**
   * Whether this factory still writes what {@code table} asks for now (as its metadata was last
   * read): its schema, partition spec, format version and file-writing properties ({@code write.*},
   * {@code encryption.*}). False once an {@code ALTER TABLE} changed any of them, and a writer
   * that follows the table makes a new factory. (A table upgraded to format v3 refuses the
   * position-delete files a v2 factory's upserts write; a new codec or target size applies from the
   * next file on, as in Iceberg's Kafka Connect sink, which loads the table for each commit cycle.)
   */
  public boolean isCurrentFor(Table table) {
    return table.schema().schemaId() == schema.schemaId()
        && table.spec().specId() == spec.specId()
        && TableUtil.formatVersion(table) == formatVersion
        && writingProperties(table).equals(writingProperties);
  }

  /**
   * The table properties that shape its files: codecs, sizes, metrics modes, bloom filters, file
   * locations, encryption. Not the rest: writers (floe's sinks among them) change other properties
   * at every commit.
   */
  private static Map<String, String> writingProperties(Table table) {
    Map<String, String> out = new java.util.TreeMap<>();
    table.properties().forEach((key, value) -> {
      if (key.startsWith("write.") || key.startsWith("encryption.")) {
        out.put(key, value);
      }
    });
    return out;
  }

  FileIO io() {
    return io;
  }

  /** One data file in {@code partition} (null for an unpartitioned table). */
  public NativeDataWriter newDataWriter(StructLike partition) {
    OutputFile file = newOutputFile(partition);
    return new NativeDataWriter(file, io, arrowSchema, settings, metricsConfig, spec, partition, allocator);
  }

  /** The size at which task writers roll to a new file ({@code write.target-file-size-bytes}). */
  public long targetFileSizeBytes() {
    return settings.targetFileSizeBytes();
  }

  /**
   * A task writer for the table's spec: on a partitioned table, rows of each batch go to files of
   * their partition (one rolling file per partition, any number open); unpartitioned, to one
   * rolling file.
   */
  public NativeTaskWriter newTaskWriter() {
    return newTaskWriter(Integer.MAX_VALUE);
  }

  /**
   * As {@link #newTaskWriter()}, keeping at most {@code maxOpenFiles} files open at once on a
   * partitioned table (the least recently written is finished first): native memory stays under
   * about {@code maxOpenFiles x} the row-group size.
   */
  public NativeTaskWriter newTaskWriter(int maxOpenFiles) {
    if (maxOpenFiles < 1) {
      throw new IllegalArgumentException("maxOpenFiles must be at least 1, got " + maxOpenFiles);
    }
    if (spec.isUnpartitioned()) {
      return new UnpartitionedTaskWriter(this, null, allocator);
    }
    return new FanoutTaskWriter(this, spec, allocator, maxOpenFiles);
  }

  /**
   * A task writer that upserts by the table's identifier fields (format v2 or later): each row
   * replaces the table's row with the same key. Commit its result with {@link Commits#rowDelta}.
   *
   * @throws IllegalArgumentException if the table cannot be written by key ({@link
   *     #keyedWritesRefusal(Table)} says why)
   */
  public NativeTaskWriter newUpsertTaskWriter() {
    requireKeyedDeletes("upserts", false);
    return new UpsertTaskWriter(this, spec, olderSpecsWithData, allocator, true, null);
  }

  /**
   * An upsert task writer that continues {@code earlier}'s commit with this factory's schema and
   * spec, for a commit cycle that schema evolution moved to a new schema: a key {@code earlier}
   * (or a writer it continues) wrote is replaced here as a key written earlier by the same writer
   * is (a position delete of its row), and a key deleted there stays deleted. Stop writing into
   * {@code earlier} once this one takes rows, and commit both writers' results together (in one
   * {@link Commits#rowDelta}).
   *
   * @throws IllegalArgumentException if {@code earlier} is not an upsert writer of this library,
   *     or the table cannot be written by key
   */
  public NativeTaskWriter newUpsertTaskWriterAfter(NativeTaskWriter earlier) {
    if (!(earlier instanceof UpsertTaskWriter before)) {
      throw new IllegalArgumentException("only an upsert writer's commit can be continued, not a " + earlier.getClass().getSimpleName());
    }
    requireKeyedDeletes("upserts", false);
    return new UpsertTaskWriter(this, spec, olderSpecsWithData, allocator, true, before);
  }

  /** Refuses, up front, a table this factory cannot write by key ({@link #keyedWritesRefusal(Table)}). */
  private void requireKeyedDeletes(String what, boolean wholeRows) {
    String refusal = keyedWritesRefusal("the table", schema, spec, formatVersion, olderSpecsWithData, wholeRows);
    if (refusal != null) {
      throw new IllegalArgumentException(what + " cannot be written: " + refusal);
    }
  }

  /**
   * A task writer of inserts and deletes by the table's identifier fields, as Iceberg's Flink sink
   * writes a changelog into a table with identifier fields outside upsert mode: a row is inserted
   * (replacing only a row of its key this writer wrote in its partition), and {@link
   * NativeTaskWriter#deleteRows} deletes whole rows by key in their partitions ({@link
   * NativeTaskWriter#deleteKeys} deletes keys where the keys name the partition). Commit the result
   * with {@link Commits#rowDelta}.
   *
   * @throws IllegalArgumentException when {@link #deltaWritesRefusal} refuses the table
   */
  public NativeTaskWriter newDeltaTaskWriter() {
    requireKeyedDeletes("inserts and deletes by key", true);
    return new UpsertTaskWriter(this, spec, olderSpecsWithData, allocator, false, null);
  }

  /**
   * The Arrow schema of the table's keys: its identifier fields, in table order. Equality-delete
   * files hold rows of it, and {@link NativeTaskWriter#deleteKeys} takes batches of it.
   */
  public org.apache.arrow.vector.types.pojo.Schema equalityDeleteArrowSchema() {
    return ArrowSchemas.toArrow(TypeUtil.select(schema, schema.identifierFieldIds()));
  }

  private OutputFile newOutputFile(StructLike partition) {
    return newOutputFile(spec, partition);
  }

  private OutputFile newOutputFile(PartitionSpec fileSpec, StructLike partition) {
    return (partition == null || fileSpec.isUnpartitioned()
            ? files.newOutputFile()
            : files.newOutputFile(fileSpec, partition))
        .encryptingOutputFile();
  }

  /** An equality-delete file keyed by the identifier fields, in {@code partition}. */
  NativeEqualityDeleteWriter newEqualityDeleteWriter(StructLike partition) {
    return newEqualityDeleteWriter(spec, partition);
  }

  /**
   * An equality-delete file keyed by the identifier fields, in {@code partition} of {@code
   * deleteSpec} (one of the table's specs; null partition when it is unpartitioned).
   */
  NativeEqualityDeleteWriter newEqualityDeleteWriter(PartitionSpec deleteSpec, StructLike partition) {
    int[] ids = schema.identifierFieldIds().stream().sorted().mapToInt(Integer::intValue).toArray();
    return new NativeEqualityDeleteWriter(
        newOutputFile(deleteSpec, partition),
        io,
        equalityDeleteArrowSchema(),
        deleteSettings,
        metricsConfig,
        deleteSpec,
        partition,
        ids,
        allocator);
  }

  /** Whether keys alone place rows in this factory's table: {@link #keyedWritesRefusal(Table)}'s rules hold. */
  boolean keysNamePartitions() {
    return keyedWritesRefusal("the table", schema, spec, formatVersion, olderSpecsWithData, false) == null;
  }

  /**
   * Whether rows deleted by position are written as deletion vectors (format v3 and later, where
   * position-delete files may no longer be added) rather than as position-delete files.
   */
  boolean usesDeletionVectors() {
    return formatVersion >= 3;
  }

  /**
   * Deletion vectors for data files this writer wrote (none had deletes before): one Puffin file
   * for all partitions, written by Iceberg's own {@link BaseDVFileWriter} on close.
   */
  DVFileWriter newDeletionVectorWriter() {
    return new BaseDVFileWriter(deletionVectorFiles, path -> null);
  }

  /** Position deletes for data files of {@code partition}; the file is created on completion. */
  NativePositionDeleteWriter newPositionDeleteWriter(StructLike partition) {
    return new NativePositionDeleteWriter(
        () -> newOutputFile(partition),
        io,
        ArrowSchemas.toArrow(DeleteSchemaUtil.pathPosSchema()),
        deleteSettings,
        positionDeleteMetricsConfig,
        spec,
        partition,
        allocator);
  }

  /**
   * A task writer for rows all known to be in {@code partition} (null: the unpartitioned table):
   * no transforms are applied, files roll at the target size.
   */
  public NativeTaskWriter newSinglePartitionTaskWriter(StructLike partition) {
    return new UnpartitionedTaskWriter(this, partition, allocator);
  }
}
