package dev.floe.arrow.internal;

/**
 * Whether this thread is inside an upcall from libfloe: a writer's bytes being handed to the
 * caller's {@code OutputStream}, under a native call that has not returned. floe objects refuse
 * to be used or closed from there. Their locks let the same thread back in, and a close from the
 * stream freed the writer (or the decoder writing into it) under the call still running in it
 * (helper-85).
 */
public final class Upcalls {
  private static final ThreadLocal<Boolean> INSIDE = new ThreadLocal<>();

  private Upcalls() {}

  /** Runs {@code body} marked as inside an upcall. */
  static <E extends Throwable> void inside(Body<E> body) throws E {
    INSIDE.set(Boolean.TRUE);
    try {
      body.run();
    } finally {
      INSIDE.remove();
    }
  }

  /** @throws IllegalStateException if this thread is inside an upcall from libfloe */
  public static void refuseInside(String kind) {
    if (INSIDE.get() != null) {
      throw new IllegalStateException(kind + " cannot be used or closed from inside a NativeParquetWriter's"
          + " OutputStream: the native call writing to it has not returned");
    }
  }

  /** An upcall's body. */
  interface Body<E extends Throwable> {
    void run() throws E;
  }
}
