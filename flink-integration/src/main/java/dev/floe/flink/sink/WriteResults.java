package dev.floe.flink.sink;

import java.io.IOException;
import java.util.Collection;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.apache.iceberg.io.WriteResult;

/**
 * Iceberg {@link WriteResult}s as bytes: what a writer hands the aggregator, and what a committable
 * carries. Java serialization, which Iceberg's data and delete files support for exactly this use
 * (Spark and Flink ship them between tasks the same way).
 */
final class WriteResults implements SimpleVersionedSerializer<WriteResult> {
  private static final int VERSION = 1;

  static byte[] toBytes(WriteResult result) throws IOException {
    return InstantiationUtil.serializeObject(result);
  }

  static WriteResult fromBytes(byte[] bytes) throws IOException {
    try {
      return InstantiationUtil.deserializeObject(bytes, WriteResult.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IOException("cannot read a write result: " + e.getMessage(), e);
    }
  }

  /** All files of {@code results} as one result. */
  static WriteResult merge(Collection<WriteResult> results) {
    return WriteResult.builder().addAll(results).build();
  }

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(WriteResult result) throws IOException {
    return toBytes(result);
  }

  @Override
  public WriteResult deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException("unknown write result version " + version + " (this floe reads " + VERSION + ")");
    }
    return fromBytes(serialized);
  }
}
