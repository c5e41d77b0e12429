package dev.floe.bench.stock;

import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitionedFanoutWriter;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The stock Java append path for a partitioned table: Iceberg's {@link PartitionedFanoutWriter}
 * (one rolling Parquet file per partition, rows in any order) over a {@link
 * GenericAppenderFactory} configured from the table's properties, partitioning each {@code
 * GenericRecord} with Iceberg's {@link PartitionKey}. The same construction as the fanout writer
 * floe's partitioned-write tests compare against; one instance per task, not thread-safe.
 *
 * <p>Iceberg 1.11 deprecates {@code GenericAppenderFactory} for {@code GenericFileWriterFactory}
 * (removal planned in 1.12); it is still the generic writer path of this Iceberg version.
 */
@SuppressWarnings("deprecation")
public final class IcebergJavaFanoutWriter extends PartitionedFanoutWriter<Record> {
  private final PartitionKey key;
  private final InternalRecordWrapper internal;

  private IcebergJavaFanoutWriter(
      Table table, GenericAppenderFactory appenders, OutputFileFactory files, long targetFileSize) {
    super(table.spec(), FileFormat.PARQUET, appenders, files, table.io(), targetFileSize);
    this.key = new PartitionKey(table.spec(), table.schema());
    this.internal = new InternalRecordWrapper(table.schema().asStruct());
  }

  /** A writer for {@code table}'s schema, spec, Parquet settings and target file size. */
  public static IcebergJavaFanoutWriter forTable(Table table, long taskId) {
    GenericAppenderFactory appenders = new GenericAppenderFactory(table.schema(), table.spec());
    appenders.setAll(table.properties());
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, taskId).format(FileFormat.PARQUET).build();
    long target =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    return new IcebergJavaFanoutWriter(table, appenders, files, target);
  }

  /** Iceberg's transforms run on internal values (micros, days), hence the wrapper. */
  @Override
  protected PartitionKey partition(Record row) {
    key.partition(internal.wrap(row));
    return key;
  }
}
