package dev.floe.cli;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.ParquetWriterConfig;
import dev.floe.iceberg.Commits;
import dev.floe.iceberg.DecodedMessages;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.PartitionSpecs;
import dev.floe.iceberg.SchemaFiles;
import dev.floe.iceberg.WriterSettings;
import dev.floe.iceberg.CycleWriters;
import dev.floe.iceberg.TableEvolution;
import dev.floe.iceberg.UnknownFieldNotes;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.WriteResult;

/**
 * Appends to an Iceberg table through floe's task writer (partitioned tables get one file per
 * partition). A missing table is created in the same commit as the append (a create transaction),
 * so a failed run leaves neither data files nor an empty table behind.
 *
 * <p>With schema evolution (an existing table only), each batch first evolves the table for the
 * fields it carries and the table lacks and the values too wide for their column, and the rest of
 * the run writes the new schema ({@link CycleWriters}); the one commit holds every row.
 */
final class IcebergTableTarget implements WriteTarget {
  private final TableIdentifier name;
  private final Table table;
  private final Transaction create;
  private final NativeFileWriterFactory files;
  /** Schema evolution, or null without. */
  private final TableEvolution evolution;
  private final UnknownFieldNotes unknownFields;
  /** The run's writers, started with the first batch's decoder. */
  private CycleWriters writers;

  private IcebergTableTarget(
      TableIdentifier name, Table table, Transaction create, boolean evolve, BufferAllocator allocator) {
    this.name = name;
    this.table = table;
    this.create = create;
    this.files = NativeFileWriterFactory.forTable(table, allocator);
    this.evolution = evolve
        ? new TableEvolution(() -> table, current -> NativeFileWriterFactory.forTable(current, allocator), nanos -> {})
        : null;
    this.unknownFields = new UnknownFieldNotes(name, values -> {});
  }

  /**
   * Opens {@code name}, or prepares to create it from {@code schemaFile} with {@code partitionBy}
   * and the writer settings as its properties. For an existing table, a given partitioning and
   * writer settings must be what the table already has (they only apply on creation).
   */
  static IcebergTableTarget open(
      Catalog catalog,
      TableIdentifier name,
      Path schemaFile,
      String partitionBy,
      Map<String, String> writerProperties,
      boolean evolve,
      BufferAllocator allocator) {
    if (catalog.tableExists(name)) {
      if (schemaFile != null) {
        SchemaFiles.read(schemaFile); // the table's own schema decides, but a broken file is still said (helper-79)
      }
      Table table = catalog.loadTable(name);
      checkSettings(name, table, partitionBy, writerProperties);
      return new IcebergTableTarget(name, table, null, evolve, allocator);
    }
    if (schemaFile == null) {
      throw new IllegalArgumentException("table " + name + " does not exist; give --schema to create it");
    }
    if (evolve) {
      throw new IllegalArgumentException("table " + name + " does not exist: --evolve-schema evolves an existing"
          + " table (create it with a first run without the flag, or give the schema its fields)");
    }
    org.apache.iceberg.Schema schema = SchemaFiles.read(schemaFile);
    PartitionSpec spec = partitionBy == null ? PartitionSpec.unpartitioned() : partitioning(partitionBy, schema);
    if (catalog instanceof SupportsNamespaces namespaces
        && !name.namespace().isEmpty()
        && !namespaces.namespaceExists(name.namespace())) {
      namespaces.createNamespace(name.namespace());
    }
    Map<String, String> properties = new HashMap<>(writerProperties);
    properties.putIfAbsent(TableProperties.FORMAT_VERSION, "2");
    Transaction create = catalog.newCreateTableTransaction(name, schema, spec, properties);
    return new IcebergTableTarget(name, create.table(), create, false, allocator);
  }

  private static void checkSettings(
      TableIdentifier name, Table table, String partitionBy, Map<String, String> writerProperties) {
    if (partitionBy != null) {
      PartitionSpec wanted = partitioning(partitionBy, table.schema());
      if (!wanted.compatibleWith(table.spec())) {
        throw new IllegalArgumentException(
            "table " + name + " exists with partitioning " + describe(table.spec())
                + ", not '" + partitionBy + "' (--partition-by applies when creating a table)");
      }
    }
    Map<String, String> merged = new HashMap<>(table.properties());
    merged.putAll(writerProperties);
    if (!withCodecLevel(WriterSettings.of(merged)).equals(withCodecLevel(WriterSettings.of(table.properties())))) {
      throw new IllegalArgumentException(
          "table " + name + " exists with other writer settings than " + writerProperties
              + " (writer flags apply when creating a table; change its write.parquet.* properties instead)");
    }
  }

  /**
   * The settings with the codec's default level written out: {@code --level 3} on a zstd table
   * without a level asks for what it has (helper-89).
   */
  private static WriterSettings withCodecLevel(WriterSettings settings) {
    ParquetWriterConfig parquet = settings.parquet();
    if (parquet.level() != null || parquet.codec() == null) {
      return settings;
    }
    Integer level = java.util.Arrays.stream(WriterOptions.Codec.values())
        .filter(codec -> codec.name().equalsIgnoreCase(parquet.codec()))
        .map(WriterOptions.Codec::defaultLevel)
        .findFirst()
        .orElse(null);
    return level == null ? settings : new WriterSettings(parquet.toBuilder().level(level).build(), settings.targetFileSizeBytes());
  }

  private static String describe(PartitionSpec spec) {
    if (spec.isUnpartitioned()) {
      return "none";
    }
    return spec.fields().stream()
        .map(f -> f.transform() + "(" + spec.schema().findColumnName(f.sourceId()) + ")")
        .toList()
        .toString();
  }

  @Override
  public Schema arrowSchema() {
    return files.arrowSchema();
  }

  @Override
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    if (writers == null) {
      writers = new CycleWriters(files, decoder, null, evolution);
    }
    if (evolution == null) {
      return writers.firstWriter().write(decoder, messages, policy);
    }
    DecodedMessages rows = writers.decode(messages, policy, unknownFields);
    return writers.write(writers.decodingWriter(), rows);
  }

  @Override
  public Written commit() {
    WriteResult result = writers == null ? WriteResult.builder().build() : writers.complete(table.io()).files();
    DataFile[] written = result.dataFiles();
    try {
      Snapshot snapshot = written.length > 0 ? Commits.append(table, result, Map.of()) : null;
      if (create != null) {
        create.commitTransaction();
      }
      long bytes = Arrays.stream(written).mapToLong(DataFile::fileSizeInBytes).sum();
      String detail =
          (create != null ? "created, " : "")
              + (snapshot != null ? "snapshot " + snapshot.snapshotId() : "no rows, no new snapshot");
      return new Written(name.toString(), written.length, bytes, detail);
    } catch (CommitStateUnknownException e) {
      throw e; // the commit may have succeeded: the files must stay
    } catch (RuntimeException e) {
      deleteQuietly(written);
      throw e;
    }
  }

  private void deleteQuietly(DataFile[] written) {
    for (DataFile file : written) {
      try {
        table.io().deleteFile(file.location());
      } catch (RuntimeException ignored) {
        // Best effort: an orphan file is invisible to readers; the commit error is what matters.
      }
    }
  }

  @Override
  public void close() {
    if (writers != null) {
      writers.abort(); // deletes their files unless they were completed
      writers.closeOwnDecoders();
    }
  }

  /** A --partition-by the schema does not take: bad usage (exit 2), not a failed run. */
  static final class BadPartitioningException extends IllegalArgumentException {
    BadPartitioningException(IllegalArgumentException cause) {
      super(cause.getMessage(), cause);
    }
  }

  private static PartitionSpec partitioning(String partitionBy, org.apache.iceberg.Schema schema) {
    try {
      return PartitionSpecs.parse(partitionBy, schema);
    } catch (IllegalArgumentException e) {
      throw new BadPartitioningException(e);
    }
  }
}
