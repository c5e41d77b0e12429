package dev.floe.arrow.internal;

import dev.floe.arrow.NativeException;
import dev.floe.ffm.internal.floe_h;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Turns a native status code plus its {@code char** out_error} slot into an exception. The message
 * string is owned by libfloe until freed here with {@code floe_string_free}.
 */
public final class NativeStatus {
  private NativeStatus() {}

  /**
   * Throws if {@code status} is not 0. Always clears {@code errorSlot}.
   *
   * @param errorSlot an 8-byte slot that was null before the call
   * @param cause an exception to attach (e.g. one thrown by an output stream), or null
   */
  public static void check(int status, MemorySegment errorSlot, Throwable cause) {
    MemorySegment message = errorSlot.get(ValueLayout.ADDRESS, 0);
    errorSlot.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
    String text = null;
    if (!MemorySegment.NULL.equals(message)) {
      try {
        text = message.reinterpret(Long.MAX_VALUE).getString(0);
      } finally {
        floe_h.floe_string_free(message);
      }
    }
    if (status != 0) {
      throw NativeException.of(status, text != null ? text : "native error " + status, cause);
    }
  }
}
