package dev.floe.arrow;

/**
 * An error reported by libfloe. The message is the native one, naming what was wrong and where;
 * {@link #code()} is the stable native error code. Subclasses narrow it by code.
 */
public class NativeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Native error codes (mirrors {@code ErrorCode} in libfloe/src/error.rs). */
  public static final int INVALID_ARGUMENT = 1;

  public static final int SCHEMA_MISMATCH = 2;
  public static final int IO = 3;
  public static final int ENCODING = 4;
  public static final int ILLEGAL_STATE = 5;
  public static final int PANIC = 6;

  private final int code;

  public NativeException(int code, String message) {
    this(code, message, null);
  }

  public NativeException(int code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /** The native error code, one of the constants above. */
  public int code() {
    return code;
  }

  /** Maps a native status to the exception class for its code. */
  public static NativeException of(int code, String message, Throwable cause) {
    return switch (code) {
      case INVALID_ARGUMENT -> new InvalidArgumentException(message);
      case SCHEMA_MISMATCH -> new SchemaMismatchException(message);
      case IO -> new NativeIOException(message, cause);
      case PANIC -> new NativePanicException(message);
      default -> new NativeException(code, message, cause);
    };
  }
}
