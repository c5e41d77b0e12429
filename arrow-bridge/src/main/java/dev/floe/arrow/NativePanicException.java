package dev.floe.arrow;

/**
 * A bug inside libfloe was caught at the boundary (a Rust panic). The JVM is unharmed; the native
 * object involved is unusable and should be closed.
 */
public final class NativePanicException extends NativeException {
  private static final long serialVersionUID = 1L;

  public NativePanicException(String message) {
    super(PANIC, message);
  }
}
