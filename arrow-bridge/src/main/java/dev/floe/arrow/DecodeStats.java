package dev.floe.arrow;

import java.util.List;

/**
 * The result of {@link NativeJsonDecoder#decodeInto}: rows written straight into the writer, and
 * what was rejected.
 *
 * @param rows messages decoded and written
 * @param rejectedCount messages rejected
 * @param rejected the rejected messages under {@link BadRecordPolicy#DEAD_LETTER}, else empty
 */
public record DecodeStats(long rows, long rejectedCount, List<RejectedMessage> rejected) {}
