package dev.floe.flink.table;

import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.sink.RowWriteMode;
import dev.floe.iceberg.NativeFileWriterFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.types.logical.RowType;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkCatalogFactory;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.FlinkWriteConf;
import org.apache.iceberg.flink.FlinkWriteOptions;

/**
 * {@code 'connector' = 'floe-iceberg'}: Iceberg's {@code 'connector' = 'iceberg'} sink options,
 * written through floe. The catalog options ({@code catalog-name}, {@code catalog-type} or {@code
 * catalog-impl}, {@code uri}, {@code warehouse}, ... and {@code catalog-database} / {@code
 * catalog-table}, defaulting to the Flink table's database and name) build the catalog as
 * Iceberg's connector builds it, and a missing database or table is created from the DDL the same
 * way (columns, {@code PRIMARY KEY} as identifier fields, {@code PARTITIONED BY}, the options as
 * table properties). Write options are read with Iceberg's precedence (option, then Flink
 * configuration, then table property): {@code upsert-enabled}, {@code distribution-mode} ({@code
 * none} or {@code hash}), {@code write-parallelism}, {@code target-file-size-bytes}, {@code
 * compression-codec}, {@code compression-level}.
 *
 * <pre>{@code
 * CREATE TABLE bids_by_auction (auction BIGINT, bids BIGINT, PRIMARY KEY (auction) NOT ENFORCED)
 * WITH ('connector' = 'floe-iceberg', 'catalog-name' = 'lake', 'catalog-type' = 'rest',
 *       'uri' = 'http://localhost:8181', 'catalog-database' = 'nexmark',
 *       'format-version' = '2', 'upsert-enabled' = 'true');
 * }</pre>
 *
 * <p>In a {@link FloeFlinkCatalogFactory} catalog ({@code CREATE CATALOG ... WITH ('type' =
 * 'floe-iceberg', ...)}, Iceberg's catalog options) every table writes through this factory, with
 * no connector options at all.
 *
 * <p>{@code INSERT OVERWRITE} (batch mode) replaces the partitions its rows fall into, as Iceberg's
 * connector does; so does every commit of a table whose DDL says {@code overwrite-enabled} = {@code
 * true}, in streaming mode too (each checkpoint's rows replace their partitions), as in Iceberg's
 * sink. The DDL's option decides over the statement, and a session's is not read, as there.
 *
 * <p>What floe does not write is refused, never ignored: file formats other than Parquet, branches
 * other than {@code main}, Iceberg's maintenance in the sink ({@code flink-maintenance.*.enabled}; floe
 * expires snapshots with {@code floe.expire-snapshots.interval}), {@code table-refresh-interval}
 * and {@code use-dynamic-iceberg-sink}. {@code range} distribution is written as {@code hash} (the
 * same rows, not sorted across writers). {@code uid-suffix} names the sink's operators, as in
 * Iceberg's sink.
 */
public final class FloeIcebergTableFactory implements DynamicTableSinkFactory {
  public static final String IDENTIFIER = "floe-iceberg";

  static final ConfigOption<String> CATALOG_NAME = ConfigOptions.key("catalog-name").stringType().noDefaultValue();
  static final ConfigOption<String> CATALOG_DATABASE = ConfigOptions.key("catalog-database").stringType().noDefaultValue();
  static final ConfigOption<String> CATALOG_TABLE = ConfigOptions.key("catalog-table").stringType().noDefaultValue();
  /**
   * floe's own: how often the committer expires the table's old snapshots (after a commit, by the
   * table's retention properties); unset or zero, never. As an option or in the Flink
   * configuration ({@code SET 'floe.expire-snapshots.interval' = '1 h'}); not a table property.
   */
  public static final ConfigOption<Duration> EXPIRE_SNAPSHOTS_INTERVAL =
      ConfigOptions.key("floe.expire-snapshots.interval").durationType().noDefaultValue();

  /** Set when this factory serves the tables of a {@link FloeFlinkCatalog}. */
  private final FloeFlinkCatalog boundCatalog;

  /** The factory Flink finds by {@code 'connector' = 'floe-iceberg'}. */
  public FloeIcebergTableFactory() {
    this(null);
  }

  /** The factory of the tables of {@code catalog}: they live in it, whatever their options say. */
  FloeIcebergTableFactory(FloeFlinkCatalog catalog) {
    this.boundCatalog = catalog;
  }

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(CATALOG_NAME);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    // Like Iceberg's connector, every other option goes to the catalog and the table as well.
    return Set.of(CATALOG_DATABASE, CATALOG_TABLE, EXPIRE_SNAPSHOTS_INTERVAL);
  }

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    ResolvedCatalogTable ddl = context.getCatalogTable();
    Map<String, String> options = ddl.getOptions();
    ObjectIdentifier id = context.getObjectIdentifier();
    String catalogName;
    TableIdentifier tableId;
    CatalogLoader loader;
    if (boundCatalog != null) {
      catalogName = boundCatalog.getName();
      tableId = boundCatalog.identifier(id.toObjectPath());
      loader = boundCatalog.loader();
    } else {
      catalogName = options.get(CATALOG_NAME.key());
      if (catalogName == null && options.containsKey("src-catalog")) {
        // CREATE TABLE ... LIKE a table of an Iceberg catalog names it so; Iceberg merges in its properties
        throw new IllegalArgumentException("floe-iceberg does not read 'src-catalog' (a table made with CREATE TABLE"
            + " ... LIKE a table of an Iceberg catalog): give the catalog's options, 'catalog-name' first");
      }
      if (catalogName == null) {
        throw new IllegalArgumentException("a 'floe-iceberg' table needs the option 'catalog-name'");
      }
      tableId =
          TableIdentifier.of(
              options.getOrDefault(CATALOG_DATABASE.key(), id.getDatabaseName()),
              options.getOrDefault(CATALOG_TABLE.key(), id.getObjectName()));
      loader = catalogLoader(catalogName, options);
    }
    Catalog catalog = loader.loadCatalog();
    FlinkWriteConf write;
    RowWriteMode mode;
    String notByKey;
    try {
      // read while the catalog is open: a JDBC catalog's tables load their metadata lazily
      Table table = loadOrCreate(catalog, tableId, ddl);
      write = new FlinkWriteConf(table, options, context.getConfiguration());
      refuseWhatFloeDoesNotWrite(write, options, tableId);
      if (write.upsertMode()) {
        requireKeyIsIdentifierFields(ddl, table, tableId);
      }
      mode = RowWriteMode.of(table, write.upsertMode());
      notByKey = mode == RowWriteMode.APPEND ? NativeFileWriterFactory.deltaWritesRefusal(table) : null;
    } finally {
      try {
        IcebergTableRef.close(catalog);
      } catch (Exception e) {
        throw new IllegalStateException("cannot close the catalog of table " + tableId, e);
      }
    }
    IcebergTableRef ref = IcebergTableRef.of(catalogName, loader, tableId);
    RowType rowType = (RowType) ddl.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
    Duration expireSnapshotsEvery = org.apache.flink.configuration.Configuration.fromMap(options).getOptional(EXPIRE_SNAPSHOTS_INTERVAL)
        .orElseGet(() -> context.getConfiguration().get(EXPIRE_SNAPSHOTS_INTERVAL));
    String uidSuffix = write.uidSuffix() == null || write.uidSuffix().isEmpty() ? null : write.uidSuffix();
    return new FloeIcebergTableSink(
        ref, rowType, write.upsertMode(), mode, notByKey, distribution(write), write.writeParallelism(), fileProperties(write),
        expireSnapshotsEvery, uidSuffix, overwriteOption(options));
  }

  /**
   * The catalog Iceberg's connector builds from the same options: {@code catalog-impl}, or {@code
   * catalog-type} {@code hive} (the default), {@code hadoop} or {@code rest}.
   */
  static CatalogLoader catalogLoader(String name, Map<String, String> options) {
    Configuration hadoop = FlinkCatalogFactory.clusterHadoopConf();
    String impl = options.get(CatalogProperties.CATALOG_IMPL);
    String type = options.get(FlinkCatalogFactory.ICEBERG_CATALOG_TYPE);
    if (impl != null) {
      if (type != null) {
        throw new IllegalArgumentException("catalog " + name + " sets both catalog-type and catalog-impl; set one");
      }
      return CatalogLoader.custom(name, options, hadoop, impl);
    }
    return switch (type == null ? "hive" : type.toLowerCase(Locale.ROOT)) {
      case "hive" -> {
        // Iceberg's connector reads the two folders for a hive catalog only (helper-91: refused for every type)
        if (options.containsKey(FlinkCatalogFactory.HIVE_CONF_DIR) || options.containsKey(FlinkCatalogFactory.HADOOP_CONF_DIR)) {
          throw new IllegalArgumentException("floe-iceberg does not read 'hive-conf-dir' or 'hadoop-conf-dir' for a hive"
              + " catalog; set 'uri' and 'warehouse', or the cluster's Hadoop configuration");
        }
        yield CatalogLoader.hive(name, hadoop, options);
      }
      case "hadoop" -> CatalogLoader.hadoop(name, hadoop, options);
      case "rest" -> CatalogLoader.rest(name, hadoop, options);
      default -> throw new IllegalArgumentException("unknown catalog-type '" + type + "' (hive, hadoop or rest)");
    };
  }

  /**
   * The table, created first if missing as Iceberg's connector creates it: the DDL's physical
   * columns (its primary key as identifier fields), identity partitions on its {@code PARTITIONED
   * BY} columns, its options (but {@code location}) as table properties.
   */
  private static Table loadOrCreate(Catalog catalog, TableIdentifier id, ResolvedCatalogTable ddl) {
    if (catalog.tableExists(id)) {
      return catalog.loadTable(id);
    }
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(id.namespace())) {
      try {
        namespaces.createNamespace(id.namespace());
      } catch (AlreadyExistsException raced) {
        // another job created it first
      }
    }
    // Iceberg's catalog creates tables of physical columns only, with its messages
    if (!ddl.getResolvedSchema().getColumns().stream().allMatch(Column::isPhysical)) {
      throw new UnsupportedOperationException("Creating table with computed columns is not supported yet.");
    }
    if (!ddl.getResolvedSchema().getWatermarkSpecs().isEmpty()) {
      throw new UnsupportedOperationException("Creating table with watermark specs is not supported yet.");
    }
    Schema schema = FlinkSchemaUtil.convert(ddl.getResolvedSchema());
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    ddl.getPartitionKeys().forEach(spec::identity);
    Map<String, String> properties = new HashMap<>();
    String location = null;
    for (Map.Entry<String, String> option : ddl.getOptions().entrySet()) {
      String key = option.getKey();
      // Iceberg's catalogs refuse to load a table holding these (its reserved keys): not kept. Its
      // Flink catalog matches them in any case (helper-91: 'Location' became a property).
      if (key.equalsIgnoreCase("location")) {
        location = option.getValue();
      } else if (!key.equalsIgnoreCase("connector") && !key.equalsIgnoreCase("src-catalog")
          && !key.equals(EXPIRE_SNAPSHOTS_INTERVAL.key())) { // the sink's setting, not the table's
        properties.put(key, option.getValue());
      }
    }
    try {
      return catalog.createTable(id, schema, spec.build(), location, properties);
    } catch (AlreadyExistsException raced) {
      return catalog.loadTable(id);
    }
  }

  /**
   * The DDL's {@code overwrite-enabled}, or null. Not {@code FlinkWriteConf}'s, which falls back to
   * the session's: Iceberg's connector sets the statement's choice on its sink first, so a session's
   * setting never reaches it (helper-91: floe's session fallback replaced rows an INSERT INTO added to).
   */
  private static Boolean overwriteOption(Map<String, String> options) {
    String value = options.get(FlinkWriteOptions.OVERWRITE_MODE.key());
    return value == null ? null : Boolean.parseBoolean(value.strip());
  }

  private static void refuseWhatFloeDoesNotWrite(FlinkWriteConf write, Map<String, String> options, TableIdentifier path) {
    if (Boolean.TRUE.equals(overwriteOption(options)) && write.upsertMode()) {
      throw new IllegalArgumentException("table " + path + " asks for 'overwrite-enabled' and 'upsert-enabled': an"
          + " overwrite replaces partitions and cannot upsert (Iceberg's connector refuses it too)");
    }
    if (write.compactMode() || write.expireSnapshotsMode() || write.deleteOrphanFilesMode()) {
      throw new IllegalArgumentException("floe's sink runs none of Iceberg's table maintenance; table " + path
          + " enables 'flink-maintenance.*' (floe expires snapshots with 'floe.expire-snapshots.interval')");
    }
    if (write.tableRefreshInterval() != null) {
      throw new IllegalArgumentException(
          "floe's sink reads table " + path + " once per job; 'table-refresh-interval' is not supported");
    }
    if (Boolean.parseBoolean(options.get("use-dynamic-iceberg-sink"))) {
      throw new IllegalArgumentException(
          "floe writes the table the DDL names; table " + path + " asks for 'use-dynamic-iceberg-sink'");
    }
    if (write.dataFileFormat() != FileFormat.PARQUET) {
      throw new IllegalArgumentException(
          "floe writes Parquet data files; table " + path + " asks for " + write.dataFileFormat());
    }
    if (!SnapshotRef.MAIN_BRANCH.equals(write.branch())) {
      throw new IllegalArgumentException("floe commits to the main branch; table " + path + " asks for '" + write.branch() + "'");
    }
  }

  /**
   * The writers' distribution: {@code range} is taken as {@code hash}, as the DataStream builder
   * takes a table's {@code write.distribution-mode}. The rows are the same; range would also sort
   * them across writers, which floe does not. Refusing it refused every table Spark had set {@code
   * write.distribution-mode=range} on, naming an option the DDL never gave (helper-91).
   */
  private static DistributionMode distribution(FlinkWriteConf write) {
    return write.distributionMode() == DistributionMode.RANGE ? DistributionMode.HASH : write.distributionMode();
  }

  /**
   * In upsert mode the planner sends the changes of the DDL's primary key (no {@code
   * UPDATE_BEFORE}), and floe upserts by the table's identifier fields (so does Iceberg's sink,
   * which drops the DDL's key); where the two differ, rows would be replaced or deleted by the
   * wrong key (two rows of one identifier, or a key's row deleted by another's change), so it is
   * refused. Outside upsert mode every change carries its whole row, and the key is not used.
   */
  private static void requireKeyIsIdentifierFields(ResolvedCatalogTable ddl, Table table, TableIdentifier path) {
    java.util.Set<String> identifiers = new java.util.TreeSet<>(table.schema().identifierFieldNames());
    ddl.getResolvedSchema().getPrimaryKey().ifPresent(key -> {
      java.util.Set<String> primaryKey = new java.util.TreeSet<>(key.getColumns());
      if (!primaryKey.equals(identifiers)) {
        throw new IllegalArgumentException(
            "floe upserts into " + path + " by its identifier fields " + identifiers + ", but the table's"
                + " PRIMARY KEY is " + primaryKey + ": declare the identifier fields as the primary key");
      }
    });
  }

  /** The file-writing settings the options resolve to, as table properties for the writers. */
  private static Map<String, String> fileProperties(FlinkWriteConf write) {
    Map<String, String> properties = new HashMap<>();
    // Parquet (anything else is refused): the 'write-format' option wins over the table's default format
    properties.put(TableProperties.DEFAULT_FILE_FORMAT, write.dataFileFormat().name().toLowerCase(java.util.Locale.ROOT));
    properties.put(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(write.targetDataFileSize()));
    properties.put(TableProperties.PARQUET_COMPRESSION, write.parquetCompressionCodec());
    if (write.parquetCompressionLevel() != null) {
      properties.put(TableProperties.PARQUET_COMPRESSION_LEVEL, write.parquetCompressionLevel());
    }
    return properties;
  }
}
