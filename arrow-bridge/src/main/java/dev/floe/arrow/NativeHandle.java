package dev.floe.arrow;

import dev.floe.arrow.internal.ExportedSchemas;
import dev.floe.arrow.internal.NativeStatus;
import dev.floe.arrow.internal.Upcalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntPredicate;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What every Java object owning a libfloe handle shares: the handle, the {@link Arena} its
 * out-parameter slots and upcall stubs live in, an idempotent {@link #close()} that frees both,
 * {@link IllegalStateException} on use after close, and the failed state.
 *
 * <p>Failed: a native error whose code {@code failsOn} names (per {@code docs/ffi.md}, e.g. an I/O
 * failure part way through writing a file, or a panic) leaves the native object unusable; libfloe
 * refuses every later call on it, and so does this object, before reaching native code, with an
 * {@link IllegalStateException} naming the first failure (its cause). {@link #close()} still
 * frees it.
 *
 * <p>Thread safety is the subclass's: {@code close()} is synchronized on this object, and the
 * handle and failure are volatile, so a subclass whose calls run concurrently (the partitioner)
 * still sees them.
 */
abstract class NativeHandle implements AutoCloseable {
  private final String kind;
  private final Arena arena;
  private final IntPredicate failsOn;
  private volatile MemorySegment handle;
  private volatile NativeException failure;

  /**
   * @param kind the class name used in messages
   * @param arena owned by this object and closed by {@link #close()}; null if it needs none
   * @param failsOn the native error codes that leave the native object failed
   */
  NativeHandle(String kind, Arena arena, IntPredicate failsOn) {
    this.kind = kind;
    this.arena = arena;
    this.failsOn = failsOn;
  }

  /** The arena this object owns (slots, blobs, upcall stubs); closed with it. */
  final Arena arena() {
    return arena;
  }

  /** Takes ownership of the native object a create call returned. */
  final void adopt(MemorySegment nativeHandle) {
    handle = nativeHandle;
  }

  /**
   * The native handle, for a call on it.
   *
   * @throws IllegalStateException if this object is closed, or failed (the cause is the failure)
   */
  final MemorySegment handle() {
    Upcalls.refuseInside(kind);
    MemorySegment h = handle;
    if (h == null) {
      throw new IllegalStateException(kind + " is closed");
    }
    NativeException failed = failure;
    if (failed != null) {
      throw new IllegalStateException(kind + " failed earlier: " + failed.getMessage(), failed);
    }
    return h;
  }

  /**
   * Gives up the handle without freeing it: another object has taken it over. This object is
   * closed afterwards.
   */
  final MemorySegment detach() {
    MemorySegment h = handle();
    handle = null;
    return h;
  }

  /**
   * Throws the exception for a native status, if it is one; an error that fails this kind of
   * object fails it first.
   */
  final void check(int status, MemorySegment errorSlot, Throwable cause) {
    try {
      NativeStatus.check(status, errorSlot, cause);
    } catch (NativeException e) {
      failOn(e);
      throw e;
    }
  }

  /** Fails this object if {@code e}'s code fails its kind; the first failure is the one kept. */
  final void failOn(NativeException e) {
    if (failure == null && failsOn.test(e.code())) {
      failure = e;
    }
  }

  /** The native error that failed this object, or null. */
  final NativeException failure() {
    return failure;
  }

  /** A libfloe constructor that takes a schema and a config blob: {@code floe_*_new}. */
  interface SchemaConstructor {
    int call(MemorySegment ffiSchema, MemorySegment config, long configLength, MemorySegment outHandle, MemorySegment outError);
  }

  /**
   * Makes this object's native object with {@code constructor}: {@code schema} is exported for
   * the call (libfloe borrows it), {@code config} copied into call-scoped memory, and the handle
   * adopted. If anything fails this object is closed and the failure rethrown.
   */
  final void create(Schema schema, byte[] config, SchemaConstructor constructor) {
    try (Arena call = Arena.ofConfined();
        BufferAllocator allocator = new RootAllocator();
        ArrowSchema ffiSchema = ArrowSchema.allocateNew(allocator)) {
      MemorySegment blob = call.allocate(Math.max(1, config.length));
      MemorySegment.copy(config, 0, blob, ValueLayout.JAVA_BYTE, 0, config.length);
      MemorySegment out = call.allocate(ValueLayout.ADDRESS);
      MemorySegment error = call.allocate(ValueLayout.ADDRESS);
      try {
        ExportedSchemas.requireExportable(schema);
        Data.exportSchema(allocator, schema, null, ffiSchema); // in the try: a failed export is released too
        int status = constructor.call(MemorySegment.ofAddress(ffiSchema.memoryAddress()), blob, config.length, out, error);
        check(status, error, null);
      } finally {
        ffiSchema.release();
      }
      adopt(out.get(ValueLayout.ADDRESS, 0));
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /** Frees the native object; called once, by {@link #close()}. */
  abstract void free(MemorySegment nativeHandle);

  /** Releases what this object owns besides the native object; called once, after {@link #free}. */
  void freed() {}

  /**
   * Frees the native object (whether or not it failed) and the arena. Idempotent.
   *
   * @throws IllegalStateException from inside a writer's {@code OutputStream}, where a native call
   *     is still running in the object (nothing is freed)
   */
  @Override
  public synchronized void close() {
    Upcalls.refuseInside(kind);
    MemorySegment h = handle;
    handle = null;
    try {
      if (h != null) {
        free(h);
        freed();
      }
    } finally {
      if (arena != null && arena.scope().isAlive()) {
        arena.close();
      }
    }
  }
}
