package dev.floe.arrow;

import dev.floe.ffm.NativeLibrary;
import dev.floe.ffm.internal.floe_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Decodes one JSON message at a time into a row tape: the native half of the {@code floe-json}
 * Flink format. The contract is exact or fallback: a message decodes only when the row is
 * certainly the one Flink's {@code json} format makes of it; otherwise {@link #decode} returns
 * {@link #FALLBACK} and the caller decodes the message with Flink's own format. The tape layout
 * is in {@code docs/ffi.md} ("Row tapes").
 *
 * <p>Per call: the message is copied into native memory this object owns, decoded, and the tape
 * written into a second buffer it owns, valid until the next call ({@link #tape()}). Not
 * thread-safe (one decoder per task thread); libfloe refuses concurrent use. Closing is
 * idempotent; calls after close throw {@link IllegalStateException}.
 */
public final class NativeRowDecoder extends NativeHandle {
  /** What {@link #decode} returns for a message left to Flink's own decoder. */
  public static final long FALLBACK = floe_h.FLOE_ROW_FALLBACK();

  /**
   * The per-call buffers and slots. An automatic arena's segments cross a downcall without the
   * atomic acquire and release a shared arena's take per argument (a few per message here); the
   * GC frees them once this decoder is gone.
   */
  private final Arena buffers = Arena.ofAuto();
  private final MemorySegment errorSlot;
  private final MemorySegment statusSlot;
  private MemorySegment message;
  private MemorySegment tape;

  private NativeRowDecoder(Arena arena) {
    super("NativeRowDecoder", arena, code -> code == NativeException.PANIC);
    this.errorSlot = buffers.allocate(ValueLayout.ADDRESS);
    this.statusSlot = buffers.allocate(ValueLayout.JAVA_LONG);
    this.message = buffers.allocate(4096);
    this.tape = buffers.allocate(4096);
  }

  /**
   * A decoder for rows of {@code rowSchema} (its fields are the row's; see {@code docs/ffi.md} for
   * the Arrow type that stands for each Flink type).
   *
   * @param timestampFormat {@code "SQL"} or {@code "ISO-8601"}, Flink's {@code timestamp-format.standard}
   * @param failOnMissingField Flink's {@code fail-on-missing-field}
   */
  public static NativeRowDecoder create(Schema rowSchema, String timestampFormat, boolean failOnMissingField) {
    Objects.requireNonNull(rowSchema, "rowSchema");
    Objects.requireNonNull(timestampFormat, "timestampFormat");
    NativeLibrary.load();
    NativeRowDecoder decoder = new NativeRowDecoder(Arena.ofShared());
    byte[] config =
        ("{\"version\":1,\"timestamp_format\":\"" + timestampFormat.replace("\"", "")
                + "\",\"fail_on_missing_field\":" + failOnMissingField + "}")
            .getBytes(StandardCharsets.UTF_8);
    decoder.create(rowSchema, config, floe_h::floe_row_decoder_new);
    return decoder;
  }

  /**
   * Decodes {@code message[offset, offset + length)}.
   *
   * @return the tape's length in bytes (the row is in {@link #tape()}), or {@link #FALLBACK}
   */
  public long decode(byte[] bytes, int offset, int length) {
    MemorySegment decoder = handle();
    if (message.byteSize() < length) {
      message = buffers.allocate(Math.max(length, message.byteSize() * 2));
    }
    MemorySegment.copy(bytes, offset, message, ValueLayout.JAVA_BYTE, 0, length);
    while (true) {
      int status =
          floe_h.floe_row_decoder_decode(decoder, message, length, tape, tape.byteSize(), statusSlot, errorSlot);
      if (status != 0) { // libfloe writes the error slot only on failure: the hot path skips it
        check(status, errorSlot, null);
      }
      long result = statusSlot.get(ValueLayout.JAVA_LONG, 0);
      if (result <= tape.byteSize()) {
        return result;
      }
      tape = buffers.allocate(Math.max(result, tape.byteSize() * 2)); // rare: grow, decode again
    }
  }

  /** The last decoded row's tape; its first bytes are the row, valid until the next call. */
  public MemorySegment tape() {
    return tape;
  }

  @Override
  void free(MemorySegment decoder) {
    floe_h.floe_row_decoder_free(decoder);
  }
}
