package dev.floe.arrow;

/**
 * Writing output failed: a path that cannot be created, or an output stream that threw (then the
 * stream's exception is the cause).
 */
public final class NativeIOException extends NativeException {
  private static final long serialVersionUID = 1L;

  public NativeIOException(String message, Throwable cause) {
    super(IO, message, cause);
  }
}
