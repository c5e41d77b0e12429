package dev.floe.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.BaseTaskWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * The stock Java path for upserts, as Iceberg's Flink sink does them: per partition, Iceberg's
 * {@code BaseEqualityDeltaWriter} with {@code deleteKey(key)} then {@code write(row)} for every
 * row, through the generic Parquet appenders; or, as that sink writes a changelog outside upsert
 * mode, {@link #insert} and {@link #delete}. The reference floe's upserts are compared with (in
 * tests and in the JMH benchmark).
 */
public final class IcebergJavaUpsertWriter extends BaseTaskWriter<Record> {
  private final Schema schema;
  private final Schema keySchema;
  private final InternalRecordWrapper internal;
  private final PartitionKey partitionKey;
  private final Map<PartitionKey, DeltaWriter> writers = new HashMap<>();

  public IcebergJavaUpsertWriter(Table table, long taskId) {
    this(table, appenders(table), OutputFileFactory.builderFor(table, 1, taskId).format(FileFormat.PARQUET).build());
  }

  private IcebergJavaUpsertWriter(Table table, GenericAppenderFactory appenders, OutputFileFactory files) {
    super(table.spec(), FileFormat.PARQUET, appenders, files, table.io(), Long.MAX_VALUE);
    this.schema = table.schema();
    this.keySchema = TypeUtil.select(schema, schema.identifierFieldIds());
    this.internal = new InternalRecordWrapper(schema.asStruct());
    this.partitionKey = new PartitionKey(table.spec(), schema);
  }

  private static GenericAppenderFactory appenders(Table table) {
    Schema schema = table.schema();
    int[] ids = schema.identifierFieldIds().stream().sorted().mapToInt(Integer::intValue).toArray();
    GenericAppenderFactory appenders =
        new GenericAppenderFactory(schema, table.spec(), ids, TypeUtil.select(schema, schema.identifierFieldIds()), null);
    appenders.setAll(table.properties());
    return appenders;
  }

  @Override
  public void write(Record row) throws IOException {
    writerOf(row).upsert(row);
  }

  /**
   * Outside upsert mode, as Iceberg's Flink sink writes a changelog's {@code INSERT}: the row
   * replaces only a row of its key that this writer wrote.
   */
  public void insert(Record row) throws IOException {
    writerOf(row).write(row);
  }

  /** Outside upsert mode, as Iceberg's Flink sink writes a changelog's {@code DELETE}: by {@code row}'s key. */
  public void delete(Record row) throws IOException {
    DeltaWriter writer = writerOf(row);
    writer.deleteKey(writer.keyOf(row));
  }

  private DeltaWriter writerOf(Record row) {
    partitionKey.partition(internal.wrap(row));
    DeltaWriter writer = writers.get(partitionKey);
    if (writer == null) {
      PartitionKey copy = partitionKey.copy();
      writer = new DeltaWriter(spec().isUnpartitioned() ? null : copy);
      writers.put(copy, writer);
    }
    return writer;
  }

  @Override
  public void close() throws IOException {
    for (DeltaWriter writer : writers.values()) {
      writer.close();
    }
    writers.clear();
  }

  private final class DeltaWriter extends BaseEqualityDeltaWriter {
    private final InternalRecordWrapper rowWrapper = new InternalRecordWrapper(schema.asStruct());
    private final InternalRecordWrapper keyWrapper = new InternalRecordWrapper(keySchema.asStruct());

    DeltaWriter(StructLike partition) {
      super(partition, schema, keySchema);
    }

    void upsert(Record row) {
      try {
        deleteKey(keyOf(row));
        write(row);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    Record keyOf(Record row) {
      Record key = GenericRecord.create(keySchema);
      for (Types.NestedField field : keySchema.columns()) {
        key.setField(field.name(), row.getField(field.name()));
      }
      return key;
    }

    @Override
    protected StructLike asStructLike(Record data) {
      return rowWrapper.wrap(data);
    }

    @Override
    protected StructLike asStructLikeKey(Record key) {
      return keyWrapper.wrap(key);
    }
  }
}
