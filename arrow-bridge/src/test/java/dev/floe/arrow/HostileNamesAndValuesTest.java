package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input that broke the boundary in helper-80's review: a field name holding a NUL, which the Arrow
 * C Data Interface cut there (its values went to another column), and strings long enough that the
 * file summary's min/max statistics passed Jackson's default 20M-character cap and failed the close.
 */
class HostileNamesAndValuesTest extends AllocatorTest {
  @TempDir Path dir;

  private static Schema strings(String name) {
    return new Schema(List.of(new Field(name,
        new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of("PARQUET:field_id", "1")), null)));
  }

  @Test
  void aNameWithANulIsRefusedBeforeItCrossesTheBoundary() {
    IllegalArgumentException writer = assertThrows(IllegalArgumentException.class,
        () -> NativeParquetWriter.open(dir.resolve("x.parquet"), strings("k\0x"), ParquetWriterConfig.defaults(), allocator));
    assertTrue(writer.getMessage().contains("field 'k\\u0000x' has a NUL character"), writer.getMessage());

    Schema nested = new Schema(List.of(new Field("outer", FieldType.nullable(ArrowType.Struct.INSTANCE),
        List.of(new Field("in\0ner", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));
    IllegalArgumentException decoder = assertThrows(IllegalArgumentException.class,
        () -> NativeJsonDecoder.create(nested, JsonDecoderConfig.defaults()));
    assertTrue(decoder.getMessage().contains("field 'outer.in\\u0000ner'"), decoder.getMessage());
  }

  @Test
  void anUnknownKeysPathIsShownWithItsControlCharactersEscaped() {
    UnknownField field = new UnknownField("m.evil\nfloe write: rows written 999\u001b[2K", List.of("integer"), 1);
    assertEquals("m.evil\\nfloe write: rows written 999\\u001b[2K", field.shownPath());
    assertEquals(203, new UnknownField("k".repeat(5000), List.of("integer"), 1).shownPath().length(), "cut at 200");
  }

  @Test
  void stringsOfMegabytesGiveAFileWhoseSummaryReadsBack() throws Exception {
    Path file = dir.resolve("long.parquet");
    byte[] a = new byte[8 << 20];
    byte[] b = new byte[8 << 20];
    Arrays.fill(a, (byte) 'a');
    Arrays.fill(b, (byte) 'b');
    try (NativeParquetWriter writer =
            NativeParquetWriter.open(file, strings("s"), ParquetWriterConfig.defaults(), allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(strings("s"), allocator)) {
      VarCharVector s = (VarCharVector) root.getVector(0);
      s.setSafe(0, a);
      s.setSafe(1, b);
      root.setRowCount(2);
      writer.write(root);
      ParquetFileSummary summary = writer.finish(); // failed here: min and max, base64, 22M characters each
      assertEquals(2, summary.rowCount());
    }
    List<Map<String, Object>> rows = ParquetReadBack.rows(file);
    assertEquals(2, rows.size());
    assertEquals(new String(b, StandardCharsets.US_ASCII), String.valueOf(rows.get(1).get("s")));
  }
}
