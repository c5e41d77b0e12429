package dev.floe.bench;

import dev.floe.bench.corpus.NexmarkBidStream;
import dev.floe.iceberg.Catalogs;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A throw-away local warehouse with floe's embedded catalog (Iceberg's JDBC catalog on SQLite),
 * where the benchmarks create their bids tables. {@link #close()} closes the catalog and deletes
 * the folder with every table in it.
 */
final class BidWarehouse implements AutoCloseable {
  /** bucket[4] on auction: four partitions, every bid's key in exactly one. */
  static final PartitionSpec SPEC =
      PartitionSpec.builderFor(NexmarkBidStream.SCHEMA).bucket("auction", 4).build();

  /**
   * The same Parquet settings as the file benchmarks ({@link Writers}), as table properties both
   * writers read: zstd level 3, 128 MiB row groups, 1 MiB pages, 2 MiB dictionary pages.
   */
  static final Map<String, String> PROPERTIES =
      Map.of(
          TableProperties.FORMAT_VERSION, "2",
          TableProperties.PARQUET_COMPRESSION, "zstd",
          TableProperties.PARQUET_COMPRESSION_LEVEL, "3",
          TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Long.toString(Writers.ROW_GROUP_BYTES),
          TableProperties.PARQUET_PAGE_SIZE_BYTES, Long.toString(Writers.PAGE_BYTES),
          TableProperties.PARQUET_DICT_SIZE_BYTES, Long.toString(Writers.DICTIONARY_PAGE_BYTES));

  private static final Namespace NAMESPACE = Namespace.of("bench");

  private final Path dir;
  private final Catalog catalog;

  private BidWarehouse(Path dir) {
    this.dir = dir;
    this.catalog = Catalogs.embedded(dir);
    ((SupportsNamespaces) catalog).createNamespace(NAMESPACE);
  }

  /** A new warehouse in a fresh folder under {@code parent} (the system temp dir if null). */
  static BidWarehouse create(Path parent) {
    try {
      return new BidWarehouse(
          parent == null
              ? Files.createTempDirectory("floe-tables-")
              : Files.createTempDirectory(Files.createDirectories(parent), "floe-tables-"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An empty format v2 bids table, bucket[4] on auction, identifier fields (auction, bidder). */
  Table newBidTable(String name) {
    return newBidTable(name, 2);
  }

  /** As {@link #newBidTable(String)}, in format {@code formatVersion} (3: upserts write deletion vectors). */
  Table newBidTable(String name, int formatVersion) {
    Map<String, String> properties = new java.util.HashMap<>(PROPERTIES);
    properties.put(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion));
    return catalog.createTable(TableIdentifier.of(NAMESPACE, name), NexmarkBidStream.SCHEMA, SPEC, properties);
  }

  Table load(String name) {
    return catalog.loadTable(TableIdentifier.of(NAMESPACE, name));
  }

  @Override
  public void close() throws IOException {
    try {
      if (catalog instanceof Closeable closeable) {
        closeable.close();
      }
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }
}
