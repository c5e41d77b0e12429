package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lifecycle every native-owning class shares, without native code: a handle that counts. */
class NativeHandleTest {
  private static final MemorySegment NATIVE = MemorySegment.ofAddress(0x1000);

  /** Fails on PANIC only; records what it freed. */
  private static final class Counted extends NativeHandle {
    final List<String> events = new ArrayList<>();

    Counted(Arena arena) {
      super("Counted", arena, code -> code == NativeException.PANIC);
      adopt(NATIVE);
    }

    @Override
    void free(MemorySegment nativeHandle) {
      assertSame(NATIVE, nativeHandle);
      events.add("free");
    }

    @Override
    void freed() {
      events.add("freed");
    }
  }

  @Test
  void closeFreesOnceAndUseAfterCloseThrows() {
    Arena arena = Arena.ofShared();
    Counted counted = new Counted(arena);
    assertSame(NATIVE, counted.handle());
    counted.close();
    counted.close();
    assertEquals(List.of("free", "freed"), counted.events);
    assertFalse(arena.scope().isAlive(), "the arena is closed with the object");
    IllegalStateException closed = assertThrows(IllegalStateException.class, counted::handle);
    assertEquals("Counted is closed", closed.getMessage());
  }

  @Test
  void aFailingErrorFailsTheObjectWhichStillCloses() {
    Counted counted = new Counted(null);
    counted.failOn(new SchemaMismatchException("field 'a' differs"));
    assertSame(NATIVE, counted.handle(), "an error this kind does not fail on leaves it usable");
    assertNull(counted.failure());

    NativePanicException panic = new NativePanicException("internal panic in libfloe: boom");
    counted.failOn(panic);
    counted.failOn(new NativePanicException("a later panic"));
    IllegalStateException failed = assertThrows(IllegalStateException.class, counted::handle);
    assertEquals("Counted failed earlier: internal panic in libfloe: boom", failed.getMessage());
    assertSame(panic, failed.getCause(), "the first failure is kept");

    counted.close();
    assertEquals(List.of("free", "freed"), counted.events, "a failed object is still freed");
    assertEquals("Counted is closed", assertThrows(IllegalStateException.class, counted::handle).getMessage());
  }

  @Test
  void aDetachedHandleIsNotFreedByItsFormerOwner() {
    Counted counted = new Counted(null);
    assertSame(NATIVE, counted.detach());
    counted.close();
    assertEquals(List.of(), counted.events);
    assertThrows(IllegalStateException.class, counted::handle);
  }
}
