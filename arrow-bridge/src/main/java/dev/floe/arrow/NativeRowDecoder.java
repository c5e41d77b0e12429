package dev.floe.arrow;

import dev.floe.ffm.NativeLibrary;
import dev.floe.ffm.internal.floe_h;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Decodes one JSON message at a time into a row tape, or into Flink's {@code BinaryRowData} bytes
 * (binary-row mode): the native half of the {@code floe-json} Flink format. The contract is exact
 * or fallback: a message decodes only when the row is certainly the one Flink's {@code json}
 * format makes of it; otherwise {@link #decode} returns {@link #FALLBACK} and the caller decodes
 * the message with Flink's own format. The tape layout is in {@code docs/ffi.md} ("Row tapes").
 *
 * <p>Per call: libfloe reads the message in the caller's array and writes the tape into a heap
 * array this object owns, valid until the next call ({@link #tape()}). The call is a critical
 * downcall with heap access ({@link Linker.Option#critical}): a message is a few hundred bytes
 * and a few hundred nanoseconds of work, no upcall, nothing that blocks, so it skips the thread
 * state change and both copies through native memory a plain downcall needs. Not thread-safe
 * (one decoder per task thread); libfloe refuses concurrent use. Closing is idempotent; calls
 * after close throw {@link IllegalStateException}. A decode holds this object's lock, as close
 * does: a close from another thread waits for it instead of freeing the decoder under it (an
 * uncontended lock, a few nanoseconds against the call's few hundred).
 */
public final class NativeRowDecoder extends NativeHandle {
  /** What {@link #decode} returns for a message left to Flink's own decoder. */
  public static final long FALLBACK = floe_h.FLOE_ROW_FALLBACK();

  /**
   * {@code floe_row_decoder_decode} as a critical downcall that may take heap segments; a holder,
   * so the symbol is looked up once the library is loaded ({@link #create}).
   */
  private static final class Decode {
    static final MethodHandle HANDLE =
        Linker.nativeLinker()
            .downcallHandle(
                floe_h.floe_row_decoder_decode$address(),
                floe_h.floe_row_decoder_decode$descriptor(),
                Linker.Option.critical(true));
  }

  /** The error slot: libfloe writes a C string's address there on failure (freed by {@link #check}). */
  private final MemorySegment errorSlot = Arena.ofAuto().allocate(ValueLayout.ADDRESS);
  private final long[] status = new long[1];
  private final MemorySegment statusSlot = MemorySegment.ofArray(status);
  private byte[] tape = new byte[4096];
  private MemorySegment tapeSegment = MemorySegment.ofArray(tape);

  private NativeRowDecoder(Arena arena) {
    super("NativeRowDecoder", arena, code -> code == NativeException.PANIC);
  }

  /** In binary-row mode, the first byte of {@link #tape()} when a Flink {@code BinaryRowData} follows. */
  public static final byte BINARY_ROW = 1;
  /** In binary-row mode, the first byte of {@link #tape()} when a row tape follows. */
  public static final byte ROW_TAPE = 0;

  /**
   * A decoder for rows of {@code rowSchema} (its fields are the row's; see {@code docs/ffi.md} for
   * the Arrow type that stands for each Flink type) into row tapes.
   *
   * @param timestampFormat {@code "SQL"} or {@code "ISO-8601"}, Flink's {@code timestamp-format.standard}
   * @param failOnMissingField Flink's {@code fail-on-missing-field}
   */
  public static NativeRowDecoder create(Schema rowSchema, String timestampFormat, boolean failOnMissingField) {
    return create(rowSchema, timestampFormat, failOnMissingField, false);
  }

  /**
   * A decoder as {@link #create(Schema, String, boolean)}; with {@code binaryRows}, each decoded
   * row is returned as Flink's {@code BinaryRowData} bytes after a {@link #BINARY_ROW} byte, or
   * (for a row that layout cannot hold exactly) as a row tape after a {@link #ROW_TAPE} byte. Binary
   * rows need the precision of every timestamp field and refuse maps ({@code docs/ffi.md}).
   */
  public static NativeRowDecoder create(
      Schema rowSchema, String timestampFormat, boolean failOnMissingField, boolean binaryRows) {
    Objects.requireNonNull(rowSchema, "rowSchema");
    Objects.requireNonNull(timestampFormat, "timestampFormat");
    NativeLibrary.load();
    NativeRowDecoder decoder = new NativeRowDecoder(Arena.ofShared());
    byte[] config =
        ("{\"version\":1,\"timestamp_format\":\"" + timestampFormat.replace("\"", "")
                + "\",\"fail_on_missing_field\":" + failOnMissingField
                + ",\"binary_rows\":" + binaryRows + "}")
            .getBytes(StandardCharsets.UTF_8);
    decoder.create(rowSchema, config, floe_h::floe_row_decoder_new);
    return decoder;
  }

  /**
   * Decodes {@code message[offset, offset + length)}.
   *
   * @return the tape's length in bytes (the row is in {@link #tape()}), or {@link #FALLBACK}
   */
  public synchronized long decode(byte[] bytes, int offset, int length) {
    MemorySegment decoder = handle();
    MemorySegment message = MemorySegment.ofArray(bytes).asSlice(offset, length);
    while (true) {
      int code = invoke(decoder, message, length);
      if (code != 0) { // libfloe writes the error slot only on failure: the hot path skips it
        check(code, errorSlot, null);
      }
      long result = status[0];
      if (result <= tape.length) {
        return result;
      }
      // Rare: grow, decode again.
      tape = new byte[Math.toIntExact(Math.max(result, tape.length * 2L))];
      tapeSegment = MemorySegment.ofArray(tape);
    }
  }

  private int invoke(MemorySegment decoder, MemorySegment message, int length) {
    try {
      return (int) Decode.HANDLE.invokeExact(decoder, message, (long) length, tapeSegment, (long) tape.length, statusSlot, errorSlot);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) { // a downcall declares no checked exceptions
      throw new AssertionError(t);
    }
  }

  /**
   * The last decoded row's tape: its first {@code length} bytes (what {@link #decode} returned)
   * are the row; valid until the next call, which may write over it or replace the array.
   */
  public byte[] tape() {
    return tape;
  }

  @Override
  void free(MemorySegment decoder) {
    floe_h.floe_row_decoder_free(decoder);
  }
}
