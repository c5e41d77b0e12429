package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.TypeUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code RowData} path's writer: rows are copied into Arrow batches in Java and each full
 * batch is encoded natively -- or, for Flink's binary rows, their bytes are handed to
 * libfloe, which reads them into Arrow itself ({@link BinaryRows}). At each checkpoint the open
 * files are closed and handed on.
 *
 * <p>As Iceberg's Flink sink writes them ({@link RowWriteMode}): into a table without identifier
 * fields, {@code INSERT} and {@code UPDATE_AFTER} rows are appended and the others refused. On a
 * table with identifier fields, {@code INSERT} and {@code UPDATE_AFTER} rows are inserted, replacing
 * a row of the same key written in the same checkpoint, and {@code UPDATE_BEFORE} and {@code
 * DELETE} delete their key's rows. In upsert mode, {@code INSERT} and {@code UPDATE_AFTER} replace
 * the row with the same key, {@code DELETE} removes it and {@code UPDATE_BEFORE} is skipped (its
 * {@code UPDATE_AFTER} replaces the row). Rows and deletes keep their order: a batch of one kind is
 * written before a row of the other is taken.
 */
final class RowDataWriter implements CommittingSinkWriter<RowData, WrittenFiles> {
  private static final Logger LOG = LoggerFactory.getLogger(RowDataWriter.class);
  private final Catalog catalog;
  private final BufferAllocator allocator = new RootAllocator();
  private final NativeFileWriterFactory files;
  /** The table's partition specs by id, to encode the files' partitions. */
  private final Map<Integer, PartitionSpec> specs;
  private final RowWriteMode mode;
  private final int batchRows;
  private final RowDataToArrow rows;
  /** Binary rows read natively (inserts and upserts); null when libfloe cannot read the rows. */
  private final BinaryRows binaryRows;
  /** Deleted rows: whole ({@link #deleteWholeRows}) or their key columns; null when appending. */
  private final RowDataToArrow deletes;
  /**
   * Whether deletes go by whole rows: outside upsert mode into a table partitioned by a column
   * that is not a key, where each deleted row names its partition. Elsewhere the keys suffice, and
   * a {@code DELETE} may carry only its key.
   */
  private final boolean deleteWholeRows;
  private final Counter rowsWritten;
  private final Counter rowsDeleted;
  private final Counter dataFiles;
  private final Counter deleteFiles;
  private NativeTaskWriter writer;

  RowDataWriter(IcebergTableRef tableRef, RowDataWriterSettings settings, int subtask, long attempt, MetricGroup metrics) {
    this.catalog = tableRef.openCatalog();
    try {
      Table table = catalog.loadTable(tableRef.identifier());
      this.files = NativeFileWriterFactory.forTable(table, allocator, subtask, attempt, settings.tableProperties());
      this.specs = table.specs();
      this.mode = settings.mode();
      this.batchRows = settings.batchRows();
      RowsAgainstTable against = RowsAgainstTable.of(table, settings.rowType(), settings.plannedSchemaId());
      if (!against.renamed().isEmpty() || against.dropsFields()) {
        LOG.warn("table {} changed since the job was planned: its rows' fields {} are written to the renamed columns, "
            + "and the fields {} of dropped columns are not written", table.name(), against.renamed(), against.dropped());
      }
      RowType rowType = against.rowType();
      this.rows = new RowDataToArrow(table.schema(), rowType, false, against.dropped(), allocator);
      // libfloe reads binary rows whose every field has its column: with dropped ones, Java copies them
      this.binaryRows = against.dropsFields() ? null : BinaryRows.forRows(files.arrowSchema(), rowType, batchRows);
      this.deleteWholeRows = mode == RowWriteMode.DELTA && NativeFileWriterFactory.keyedWritesRefusal(table) != null;
      this.deletes = !mode.byKey() ? null
          : deleteWholeRows ? new RowDataToArrow(table.schema(), rowType, false, against.dropped(), allocator)
          : new RowDataToArrow(TypeUtil.select(table.schema(), table.schema().identifierFieldIds()), rowType, true, allocator);
      MetricGroup group = metrics.addGroup("floe");
      this.rowsWritten = group.counter("rows");
      this.rowsDeleted = group.counter("deletes");
      this.dataFiles = group.counter("dataFiles");
      this.deleteFiles = group.counter("deleteFiles");
    } catch (RuntimeException | Error e) {
      closeAfterFailedStart(e); // Flink gets no writer to close
      throw e;
    }
  }

  @Override
  public void write(RowData row, Context context) {
    switch (row.getRowKind()) {
      case INSERT, UPDATE_AFTER -> {
        if (deletes != null && deletes.rowCount() > 0) {
          writeDeletes();
        }
        if (binaryRows != null && row instanceof BinaryRowData binary) {
          appendBinary(binary);
          return;
        }
        if (binaryRows != null && binaryRows.size() > 0) {
          writeBinaryRows();
        }
        rows.append(row);
        if (rows.rowCount() >= batchRows) {
          writeRows();
        }
      }
      case UPDATE_BEFORE -> {
        requireKeys(row);
        if (mode == RowWriteMode.DELTA) {
          delete(row);
        }
      }
      case DELETE -> {
        requireKeys(row);
        delete(row);
      }
    }
  }

  /** A row whose key is to be deleted, after the rows before it. */
  private void delete(RowData row) {
    if (rows.rowCount() > 0) {
      writeRows();
    }
    writeBinaryRows();
    deletes.append(row);
    if (deletes.rowCount() >= batchRows) {
      writeDeletes();
    }
  }

  /** A binary row, after the Java rows before it (rows keep their order within a file). */
  private void appendBinary(BinaryRowData row) {
    if (rows.rowCount() > 0) {
      writeRows();
    }
    binaryRows.add(row);
    if (binaryRows.full()) {
      writeBinaryRows();
    }
  }

  private void writeBinaryRows() {
    if (binaryRows == null || binaryRows.size() == 0) {
      return;
    }
    rowsWritten.inc(binaryRows.writeTo(writer()));
  }

  private void requireKeys(RowData row) {
    if (!mode.byKey()) {
      throw new IllegalArgumentException(
          "a " + row.getRowKind() + " row reached an append-only floe sink: an overwrite takes inserts only,"
              + " and otherwise changelog input needs a table with identifier fields (format v2 or later), which"
              + " floe deletes by, or upsert mode (FloeIcebergSink.forRowData(...).upsert(true), the table's"
              + " write.upsert.enabled=true, or 'upsert-enabled'='true' in SQL) on such a table");
    }
  }

  private NativeTaskWriter writer() {
    if (writer == null) {
      writer = switch (mode) {
        case APPEND -> files.newTaskWriter();
        case DELTA -> files.newDeltaTaskWriter();
        case UPSERT -> files.newUpsertTaskWriter();
      };
    }
    return writer;
  }

  private void writeRows() {
    if (rows.rowCount() == 0) {
      return;
    }
    writer().write(rows.root());
    rowsWritten.inc(rows.rowCount());
    rows.reset();
  }

  private void writeDeletes() {
    if (deletes == null || deletes.rowCount() == 0) {
      return;
    }
    if (deleteWholeRows) {
      writer().deleteRows(deletes.root());
    } else {
      writer().deleteKeys(deletes.root());
    }
    rowsDeleted.inc(deletes.rowCount());
    deletes.reset();
  }

  @Override
  public void flush(boolean endOfInput) {
    writeBinaryRows();
    writeRows();
    writeDeletes();
  }

  @Override
  public Collection<WrittenFiles> prepareCommit() {
    flush(false);
    if (writer == null) {
      return List.of();
    }
    WriteResult result = writer.complete();
    writer = null;
    dataFiles.inc(result.dataFiles().length);
    deleteFiles.inc(result.deleteFiles().length);
    return List.of(WrittenFiles.of(result, specs, List.of(files.schema())));
  }

  private void closeAfterFailedStart(Throwable failure) {
    try {
      close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  @Override
  public void close() throws Exception {
    try (allocator;
        rows;
        AutoCloseable keys = deletes == null ? () -> {} : deletes;
        AutoCloseable binary = binaryRows == null ? () -> {} : binaryRows) {
      if (writer != null) {
        writer.abort();
      }
    } finally {
      IcebergTableRef.close(catalog);
    }
  }
}
