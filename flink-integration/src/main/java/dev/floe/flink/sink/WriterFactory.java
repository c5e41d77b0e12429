package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import java.io.Serializable;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Makes one input path's sink writers: what tells a raw-payload sink from a {@code RowData} one.
 * It travels with the job graph; aggregator and committer are the same for every path.
 */
interface WriterFactory<T> extends Serializable {
  CommittingSinkWriter<T, WrittenFiles> create(IcebergTableRef table, WriterInitContext context);
}
