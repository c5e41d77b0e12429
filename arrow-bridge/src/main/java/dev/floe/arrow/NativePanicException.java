package dev.floe.arrow;

/**
 * A bug inside libfloe was caught at the boundary (a Rust panic). The JVM is unharmed. A writer or
 * decoder involved is failed -- every later call but {@code close()} throws {@link
 * IllegalStateException} -- and should be closed; an immutable partitioner stays usable.
 */
public final class NativePanicException extends NativeException {
  private static final long serialVersionUID = 1L;

  public NativePanicException(String message) {
    super(PANIC, message);
  }
}
