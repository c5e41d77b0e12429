package dev.floe.ffm;

/** libfloe could not be found, loaded, or is not the ABI version these bindings expect. */
public final class NativeLibraryLoadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NativeLibraryLoadException(String message) {
    super(message);
  }

  public NativeLibraryLoadException(String message, Throwable cause) {
    super(message, cause);
  }
}
