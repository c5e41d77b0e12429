package dev.floe.arrow.internal;

import dev.floe.ffm.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Test hooks into libfloe's boundary guard. They exist only in a library built with cargo feature
 * {@code test-hooks} -- the one arrow-bridge's tests load (see its pom) -- never in the released
 * library, so they are not in the generated bindings and are looked up by name here.
 */
public final class NativeDiagnostics {
  private static final String PANIC = "floe_debug_panic";

  private NativeDiagnostics() {}

  /**
   * Makes libfloe panic inside an entry point. The panic must come back as a {@code
   * NativePanicException} carrying {@code message}, never unwind into or crash the JVM.
   *
   * @throws IllegalStateException if the loaded libfloe was built without the test hooks
   */
  public static void panic(String message) {
    NativeLibrary.load();
    MemorySegment address =
        SymbolLookup.loaderLookup()
            .find(PANIC)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the loaded libfloe has no "
                            + PANIC
                            + ": it was built without cargo feature test-hooks (set -D"
                            + NativeLibrary.LIBRARY_PATH_PROPERTY
                            + " to a test-hooks build)"));
    MethodHandle panic =
        Linker.nativeLinker()
            .downcallHandle(
                address,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment errorSlot = arena.allocate(ValueLayout.ADDRESS);
      int status;
      try {
        status = (int) panic.invokeExact(arena.allocateFrom(message), errorSlot);
      } catch (Throwable t) {
        throw new AssertionError("a downcall does not throw", t);
      }
      NativeStatus.check(status, errorSlot, null);
    }
  }
}
