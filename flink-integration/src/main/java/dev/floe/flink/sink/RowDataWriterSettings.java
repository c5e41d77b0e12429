package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import java.util.Map;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * What a {@code RowData} writer needs to know besides the table.
 *
 * @param rowType the rows' type; fields are matched to the table's columns by name
 * @param mode appends, inserts and deletes by key, or upserts
 * @param batchRows rows per Arrow batch handed to the native writer
 * @param tableProperties file-writing properties that take the place of the table's for this job
 * @param plannedSchemaId the id of the table's schema the rows were checked against when the job
 *     was built, which a writer follows renamed and dropped columns from ({@link
 *     RowsAgainstTable}); null: the rows are matched to the table's columns by name alone
 */
record RowDataWriterSettings(
    RowType rowType, RowWriteMode mode, int batchRows, Map<String, String> tableProperties, Integer plannedSchemaId)
    implements WriterFactory<RowData> {
  static final int DEFAULT_BATCH_ROWS = 4096;

  RowDataWriterSettings(RowType rowType, RowWriteMode mode, int batchRows, Map<String, String> tableProperties) {
    this(rowType, mode, batchRows, tableProperties, null);
  }

  RowDataWriterSettings {
    if (batchRows <= 0) {
      throw new IllegalArgumentException("batches need room: " + batchRows + " rows");
    }
    tableProperties = Map.copyOf(tableProperties);
  }

  @Override
  public CommittingSinkWriter<RowData, WrittenFiles> create(IcebergTableRef table, WriterInitContext context) {
    return new RowDataWriter(
        table,
        this,
        context.getTaskInfo().getIndexOfThisSubtask(),
        context.getTaskInfo().getAttemptNumber(),
        context.metricGroup());
  }
}
