package dev.floe.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.bench.corpus.NexmarkTables;
import dev.floe.bench.stock.JacksonRecordDecoder;
import dev.floe.iceberg.ArrowSchemas;
import dev.floe.testing.ArrowRecords;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

/** floe's native decoder produces exactly the values the stock Jackson -> GenericRecord path does. */
class DecoderMatchesJacksonTest {
  @Test
  void nexmarkCorpusDecodesToTheReferenceValues() throws Exception {
    assertSameAsJackson(NexmarkTables.EVENT, NexmarkTables.nexmarkMessages(7, 50_000));
  }

  @Test
  void syntheticCorpusDecodesToTheReferenceValues() throws Exception {
    assertSameAsJackson(NexmarkTables.SYNTHETIC, NexmarkTables.syntheticMessages(7, 20_000));
  }

  private static void assertSameAsJackson(Schema schema, List<byte[]> messages) throws Exception {
    JacksonRecordDecoder reference = new JacksonRecordDecoder(schema);
    try (BufferAllocator allocator = new RootAllocator();
        NativeJsonDecoder decoder = NativeJsonDecoder.create(ArrowSchemas.toArrow(schema), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch()) {
      int checked = 0;
      for (int start = 0; start < messages.size(); start += 8192) {
        batch.clear();
        List<byte[]> chunk = messages.subList(start, Math.min(messages.size(), start + 8192));
        chunk.forEach(batch::add);
        try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
          List<Record> actual = ArrowRecords.toRecords(decoded.root(), schema);
          for (int i = 0; i < chunk.size(); i++) {
            Record expected = reference.decode(chunk.get(i));
            assertEquals(expected, actual.get(i), "message " + (start + i) + ": " + new String(chunk.get(i)));
            checked++;
          }
        }
      }
      assertEquals(messages.size(), checked);
    }
  }
}
