package dev.floe.arrow;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The result of {@link NativeJsonDecoder#decode}: the good messages as Arrow (owned by the caller:
 * close it) and what was rejected.
 *
 * @param root the decoded rows, in message order; allocated from the caller's allocator
 * @param rejectedCount messages rejected
 * @param rejected the rejected messages under {@link BadRecordPolicy#DEAD_LETTER}, else empty
 */
public record DecodedBatch(VectorSchemaRoot root, long rejectedCount, List<RejectedMessage> rejected)
    implements AutoCloseable {
  @Override
  public void close() {
    root.close();
  }
}
