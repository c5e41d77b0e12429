package dev.floe.flink.sink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.InvalidArgumentException;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.iceberg.NativeTaskWriter;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code RowData} path's fast lane: rows that arrive as Flink's {@link BinaryRowData} (from
 * {@code floe-json}, or from any operator after a network shuffle) have their bytes copied into a
 * {@link MessageBatch}, and libfloe reads each full batch into the table's Arrow columns and
 * encodes it in one call -- no Java copy of each value into Arrow ({@link RowDataToArrow} does
 * that for the other rows). The values are the same either way; {@code BinaryRowsTest} checks it.
 *
 * <p>Not thread-safe; owns its batch and native decoder until {@link #close()}.
 */
final class BinaryRows implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BinaryRows.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long BATCH_BYTES = 32L << 20;

  private final NativeJsonDecoder decoder;
  private final MessageBatch batch;
  private final int batchRows;

  private BinaryRows(NativeJsonDecoder decoder, int batchRows) {
    this.decoder = decoder;
    this.batchRows = batchRows;
    this.batch = new MessageBatch(1 << 20, batchRows);
  }

  /**
   * Binary rows of {@code rowType} into columns of {@code arrowSchema}, or null when libfloe does
   * not read some column from these rows (arrays, maps, fixed or uuid columns, other type
   * pairings): the caller then copies every row in Java. Logs which column, once per writer.
   */
  static BinaryRows forRows(Schema arrowSchema, RowType rowType, int batchRows) {
    try {
      return new BinaryRows(NativeJsonDecoder.forFlinkRows(arrowSchema, rowTypeJson(rowType)), batchRows);
    } catch (InvalidArgumentException e) {
      LOG.info("rows are copied into Arrow in Java: {}", e.getMessage());
      return null;
    }
  }

  /** Adds a row's bytes (copied). */
  void add(BinaryRowData row) {
    MemorySegment[] segments = row.getSegments();
    if (segments.length == 1 && !segments[0].isOffHeap()) {
      batch.add(segments[0].getHeapMemory(), row.getOffset(), row.getSizeInBytes());
    } else {
      batch.add(BinarySegmentUtils.copyToBytes(segments, row.getOffset(), row.getSizeInBytes()));
    }
  }

  int size() {
    return batch.size();
  }

  boolean full() {
    return batch.size() >= batchRows || batch.byteSize() >= BATCH_BYTES;
  }

  /**
   * Writes the rows added since the last call and empties the batch: the number written. A row
   * libfloe cannot take (a null in a required column) fails the write, naming the column.
   */
  long writeTo(NativeTaskWriter writer) {
    long rows = writer.write(decoder, batch, BadRecordPolicy.FAIL).rows();
    batch.clear();
    return rows;
  }

  /**
   * Reads the rows added since the last call into an Arrow batch the caller closes, and empties
   * the batch: the native half alone, for tests and benchmarks (the sink uses {@link #writeTo}).
   */
  DecodedBatch readBatch(BufferAllocator allocator) {
    DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator);
    batch.clear();
    return decoded;
  }

  @Override
  public void close() {
    try (decoder;
        batch) {
      // both closed
    }
  }

  /** The rows' type as libfloe's binary-row reader takes it ({@link NativeJsonDecoder#forFlinkRows}). */
  static String rowTypeJson(RowType rowType) {
    return JSON.createObjectNode().set("fields", fields(rowType)).toString();
  }

  private static ArrayNode fields(RowType rowType) {
    ArrayNode fields = JSON.createArrayNode();
    for (RowType.RowField field : rowType.getFields()) {
      LogicalType type = field.getType();
      ObjectNode node = fields.addObject().put("name", field.getName()).put("type", type.getTypeRoot().name());
      switch (type.getTypeRoot()) {
        case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
            node.put("precision", LogicalTypeChecks.getPrecision(type));
        case DECIMAL -> node.put("precision", ((DecimalType) type).getPrecision()).put("scale", ((DecimalType) type).getScale());
        case ROW -> node.set("fields", fields((RowType) type));
        default -> {}
      }
    }
    return fields;
  }
}
