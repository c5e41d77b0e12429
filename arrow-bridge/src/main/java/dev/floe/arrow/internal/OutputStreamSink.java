package dev.floe.arrow.internal;

import dev.floe.ffm.internal.FloeWriteFn;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An upcall that feeds the bytes libfloe produces into a Java {@link OutputStream}.
 *
 * <p>An exception must never escape an upcall (the JVM would exit), so the first one is kept, the
 * native side is told the write failed, and the writer rethrows it as the cause of its {@code
 * NativeIOException}. The stub lives as long as the arena it was allocated in. The stream runs
 * marked as {@link Upcalls#inside inside an upcall}: it cannot call back into floe objects.
 */
public final class OutputStreamSink implements FloeWriteFn.Function {
  private static final int CHUNK = 64 * 1024;

  private final OutputStream out;
  private final byte[] chunk = new byte[CHUNK];
  private Throwable failure;

  public OutputStreamSink(OutputStream out) {
    this.out = out;
  }

  /** The native function pointer for this sink, valid while {@code arena} is open. */
  public MemorySegment upcallStub(Arena arena) {
    return FloeWriteFn.allocate(this, arena);
  }

  @Override
  public int apply(MemorySegment context, MemorySegment data, long len) {
    if (failure != null) {
      return 1;
    }
    try {
      MemorySegment bytes = data.reinterpret(len);
      Upcalls.inside(() -> {
        for (long pos = 0; pos < len; pos += CHUNK) {
          int n = (int) Math.min(CHUNK, len - pos);
          MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, pos, chunk, 0, n);
          out.write(chunk, 0, n);
        }
      });
      return 0;
    } catch (Throwable t) {
      failure = t;
      return 1;
    }
  }

  /** The first exception the stream threw, or null. Later writes fail fast after one. */
  public Throwable failure() {
    return failure;
  }
}
