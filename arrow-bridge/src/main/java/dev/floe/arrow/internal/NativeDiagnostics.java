package dev.floe.arrow.internal;

import dev.floe.ffm.NativeLibrary;
import dev.floe.ffm.internal.floe_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Test hooks into libfloe's boundary guard. Not API. */
public final class NativeDiagnostics {
  private NativeDiagnostics() {}

  /**
   * Makes libfloe panic inside an entry point. The panic must come back as a {@code
   * NativePanicException} carrying {@code message}, never unwind into or crash the JVM.
   */
  public static void panic(String message) {
    NativeLibrary.load();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment errorSlot = arena.allocate(ValueLayout.ADDRESS);
      int status = floe_h.floe_debug_panic(arena.allocateFrom(message), errorSlot);
      NativeStatus.check(status, errorSlot, null);
    }
  }
}
