package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The row decoder's facade: tapes as docs/ffi.md lays them out, the fallback, tapes larger than
 * the buffers it starts with, a type it does not decode, and use after close.
 */
class NativeRowDecoderTest {
  private static final Schema ROW =
      new Schema(
          List.of(
              new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), List.of()),
              new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), List.of())));

  private static byte[] bytes(String json) {
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] tape(NativeRowDecoder decoder, long length) {
    return Arrays.copyOf(decoder.tape(), Math.toIntExact(length));
  }

  @Test
  void aRowBecomesItsTapeAndACoercionFallsBack() {
    try (NativeRowDecoder decoder = NativeRowDecoder.create(ROW, "SQL", false)) {
      byte[] message = bytes("{\"s\":\"x\",\"a\":5,\"other\":[1]}");
      long length = decoder.decode(message, 0, message.length);
      ByteBuffer expected = ByteBuffer.allocate(15).order(ByteOrder.LITTLE_ENDIAN);
      expected.putShort((short) 1).putInt(1).put((byte) 'x').putShort((short) 0).putInt(5).putShort((short) -1);
      assertArrayEquals(expected.array(), tape(decoder, length));

      byte[] quoted = bytes("{\"a\":\"5\"}");
      assertEquals(NativeRowDecoder.FALLBACK, decoder.decode(quoted, 0, quoted.length));
    }
  }

  @Test
  void aMessageInsideALargerArrayIsReadAtItsOffset() {
    try (NativeRowDecoder decoder = NativeRowDecoder.create(ROW, "SQL", false)) {
      byte[] framed = bytes("garbage{\"a\":7}{\"a\":\"not this one\"}");
      long length = decoder.decode(framed, 7, 7);
      ByteBuffer expected = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      expected.putShort((short) 0).putInt(7).putShort((short) -1);
      assertArrayEquals(expected.array(), tape(decoder, length));
    }
  }

  @Test
  void tapesLargerThanTheFirstBuffersAreWhole() {
    try (NativeRowDecoder decoder = NativeRowDecoder.create(ROW, "ISO-8601", true)) {
      String text = "é".repeat(6000);
      byte[] message = bytes("{\"a\":1,\"s\":\"" + text + "\"}");
      long length = decoder.decode(message, 0, message.length);
      assertEquals(2 + 4 + 2 + 4 + 12_000 + 2, length);
      byte[] tape = tape(decoder, length);
      assertEquals(text, new String(tape, 12, 12_000, StandardCharsets.UTF_8));
      byte[] missing = bytes("{\"a\":1}"); // fail-on-missing-field: Flink's error to raise
      assertEquals(NativeRowDecoder.FALLBACK, decoder.decode(missing, 0, missing.length));
    }
  }

  @Test
  void aTypeItDoesNotDecodeIsRefusedByName() {
    Schema fixed =
        new Schema(List.of(new Field("code", FieldType.nullable(new ArrowType.FixedSizeBinary(4)), List.of())));
    InvalidArgumentException e =
        assertThrows(InvalidArgumentException.class, () -> NativeRowDecoder.create(fixed, "SQL", false));
    assertTrue(e.getMessage().contains("'code'"), e.getMessage());
    assertThrows(InvalidArgumentException.class, () -> NativeRowDecoder.create(ROW, "RFC-3339", false));
  }

  @Test
  void closingIsIdempotentAndLaterCallsThrow() {
    NativeRowDecoder decoder = NativeRowDecoder.create(ROW, "SQL", false);
    decoder.close();
    decoder.close();
    byte[] message = bytes("{}");
    assertThrows(IllegalStateException.class, () -> decoder.decode(message, 0, message.length));
  }
}
