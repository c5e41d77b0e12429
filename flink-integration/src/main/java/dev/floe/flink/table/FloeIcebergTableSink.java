package dev.floe.flink.table;

import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.flink.sink.RowWriteMode;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.DistributionMode;

/**
 * The planner's view of a {@code floe-iceberg} table: an append-only sink, or an upsert sink
 * (inserts, updates and deletes by primary key) when upsert mode is on. Rows go to {@link
 * FloeIcebergSink#forRowData}.
 */
final class FloeIcebergTableSink implements DynamicTableSink, SupportsPartitioning, SupportsOverwrite {
  private final IcebergTableRef table;
  private final RowType rowType;
  private final boolean upsert;
  /** How the rows are written: the changelog the sink takes follows from it. */
  private final RowWriteMode mode;
  /** Why the table is not written by key (appends only); null when it is. */
  private final String notByKey;
  private final DistributionMode distribution;
  private final Integer writeParallelism;
  private final Map<String, String> fileProperties;
  private final Duration expireSnapshotsEvery;
  /** The operators' uid suffix ({@code uid-suffix}); null: the one the planner generates. */
  private final String uidSuffix;
  /**
   * The DDL's {@code overwrite-enabled}, or null: when given it decides, over the statement, whether
   * commits replace the partitions their rows fall into (Iceberg's connector sets the statement's
   * choice as the sink's option and then the DDL's options over it; a session's setting never applies).
   */
  private final Boolean overwriteOption;
  /** {@code INSERT OVERWRITE} (set by the planner). */
  private boolean overwriteStatement;

  FloeIcebergTableSink(
      IcebergTableRef table,
      RowType rowType,
      boolean upsert,
      RowWriteMode mode,
      String notByKey,
      DistributionMode distribution,
      Integer writeParallelism,
      Map<String, String> fileProperties,
      Duration expireSnapshotsEvery,
      String uidSuffix,
      Boolean overwriteOption) {
    this.table = table;
    this.rowType = rowType;
    this.upsert = upsert;
    this.mode = mode;
    this.notByKey = notByKey;
    this.distribution = distribution;
    this.writeParallelism = writeParallelism;
    this.fileProperties = fileProperties;
    this.expireSnapshotsEvery = expireSnapshotsEvery;
    this.uidSuffix = uidSuffix;
    this.overwriteOption = overwriteOption;
  }

  /** Whether commits replace partitions: the DDL's {@code overwrite-enabled}, else the statement's. */
  private boolean overwrite() {
    return overwriteOption != null ? overwriteOption : overwriteStatement;
  }

  /**
   * Upsert mode takes upserts (no {@code UPDATE_BEFORE}). A table with identifier fields takes
   * the query's changes with both halves of an update, as Iceberg's connector does: the {@code
   * UPDATE_BEFORE} deletes the key's row. Any other table takes inserts only.
   */
  @Override
  public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
    if (overwrite()) {
      if (!requestedMode.containsOnly(RowKind.INSERT)) {
        throw new ValidationException((overwriteOption != null ? "table " + table + " ('overwrite-enabled')" : "INSERT OVERWRITE into "
            + table) + " takes inserts only, and the query produces updates or deletes");
      }
      return ChangelogMode.insertOnly();
    }
    switch (mode) {
      case UPSERT -> {
        return ChangelogMode.upsert();
      }
      case DELTA -> {
        ChangelogMode.Builder changes = ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT);
        if (requestedMode.contains(RowKind.UPDATE_AFTER) || requestedMode.contains(RowKind.UPDATE_BEFORE)) {
          changes.addContainedKind(RowKind.UPDATE_BEFORE).addContainedKind(RowKind.UPDATE_AFTER);
        }
        if (requestedMode.contains(RowKind.DELETE)) {
          changes.addContainedKind(RowKind.DELETE);
        }
        return changes.build();
      }
      default -> {
        if (!requestedMode.containsOnly(RowKind.INSERT)) {
          // Refused at planning time, saying what would take it.
          throw new ValidationException("table " + table + " takes inserts only, and the query produces updates or"
              + " deletes: floe writes those by the Iceberg table's identifier fields (a PRIMARY KEY when floe creates"
              + " the table; ALTER TABLE ... SET IDENTIFIER FIELDS in Spark), on format v2 or later; as upserts with"
              + " 'upsert-enabled' = 'true' on such a table partitioned only by them. Here: " + notByKey);
        }
        return ChangelogMode.insertOnly();
      }
    }
  }

  @Override
  public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
    if (overwriteStatement && !context.isBounded()) {
      // Flink 2.1's planner lets it through in streaming mode, where it passes every input as unbounded
      // (even VALUES): each checkpoint's rows would replace the ones before (helper-91, helper-92)
      throw new ValidationException("INSERT OVERWRITE into " + table + " needs batch mode ('execution.runtime-mode'"
          + " = 'batch'): in streaming mode each checkpoint's rows would replace the ones before (Iceberg's connector"
          + " refuses it too)");
    }
    boolean overwrite = overwrite();
    return new DataStreamSinkProvider() {
      @Override
      public DataStreamSink<?> consumeDataStream(ProviderContext provider, DataStream<RowData> rows) {
        FloeIcebergSink.RowDataBuilder sink =
            FloeIcebergSink.forRowData(table)
                .rowType(rowType)
                .upsert(upsert)
                .distributionMode(distribution)
                .expireSnapshotsEvery(expireSnapshotsEvery)
                .overwrite(overwrite);
        fileProperties.forEach(sink::tableProperty);
        if (writeParallelism != null) {
          sink.writeParallelism(writeParallelism);
        }
        if (uidSuffix != null) {
          sink.uidSuffix(uidSuffix);
        } else {
          provider.generateUid("floe-iceberg").ifPresent(sink::uidSuffix);
        }
        return sink.append(rows);
      }
    };
  }

  /**
   * {@code INSERT OVERWRITE}, in batch mode: each commit replaces the partitions its rows fall into,
   * an unpartitioned table all of it, as Iceberg's connector does, unless the DDL says {@code
   * 'overwrite-enabled' = 'false'}; refused with upserts, as by Iceberg's connector.
   */
  @Override
  public void applyOverwrite(boolean overwrite) {
    this.overwriteStatement = overwrite;
    if (overwrite() && upsert) {
      throw new ValidationException("INSERT OVERWRITE into " + table + " cannot upsert ('upsert-enabled'): an"
          + " overwrite replaces partitions (Iceberg's connector refuses it too)");
    }
  }

  /** Static partition values need nothing here: the planner writes them into the rows. */
  @Override
  public void applyStaticPartition(Map<String, String> partition) {}

  @Override
  public DynamicTableSink copy() {
    FloeIcebergTableSink copy = new FloeIcebergTableSink(
        table, rowType, upsert, mode, notByKey, distribution, writeParallelism, fileProperties, expireSnapshotsEvery, uidSuffix,
        overwriteOption);
    copy.overwriteStatement = overwriteStatement;
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "floe-iceberg table sink: " + table;
  }
}
