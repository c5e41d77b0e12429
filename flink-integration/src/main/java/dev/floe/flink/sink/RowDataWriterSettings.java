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
 */
record RowDataWriterSettings(RowType rowType, RowWriteMode mode, int batchRows, Map<String, String> tableProperties)
    implements WriterFactory<RowData> {
  static final int DEFAULT_BATCH_ROWS = 4096;

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
