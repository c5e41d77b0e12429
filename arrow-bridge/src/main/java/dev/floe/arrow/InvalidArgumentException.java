package dev.floe.arrow;

/** The native side rejected an argument or configuration value; the message says which. */
public class InvalidArgumentException extends NativeException {
  private static final long serialVersionUID = 1L;

  public InvalidArgumentException(String message) {
    super(INVALID_ARGUMENT, message);
  }

  protected InvalidArgumentException(int code, String message) {
    super(code, message);
  }
}
