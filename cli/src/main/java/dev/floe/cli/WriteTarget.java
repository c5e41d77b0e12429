package dev.floe.cli;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.io.IOException;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Where {@code floe write} puts decoded rows: a Parquet file or an Iceberg table. Nothing is
 * visible under the target's name until {@link #commit()}; {@link #close()} without a commit
 * discards everything written.
 */
interface WriteTarget extends AutoCloseable {
  /** What the input lines decode to (with Iceberg field ids). */
  Schema arrowSchema();

  /** Decodes {@code messages} straight into the target. */
  DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy);

  /** Makes the rows visible: renames the file, or commits the table's new files. */
  Written commit() throws IOException;

  @Override
  void close() throws IOException;

  /**
   * What a commit made visible.
   *
   * @param where the file path, or the table name
   * @param files data files written
   * @param bytes their total size
   * @param detail a line's worth of extra facts (row groups, snapshot id)
   */
  record Written(String where, int files, long bytes, String detail) {}
}
