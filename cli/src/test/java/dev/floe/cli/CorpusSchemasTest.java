package dev.floe.cli;

import dev.floe.iceberg.SchemaFiles;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.corpus.SyntheticGenerator;
import dev.floe.iceberg.ArrowSchemas;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** The schemas shipped for the README's tour take every line of their corpus, strictly. */
class CorpusSchemasTest {
  @Test
  void nexmarkSchemaDecodesTheNexmarkCorpus() {
    NexmarkGenerator events = new NexmarkGenerator(42);
    assertEveryLineDecodes("schemas/nexmark.schema.json", () -> NexmarkJson.toBytes(events.next()));
  }

  @Test
  void syntheticSchemaDecodesTheSyntheticCorpus() {
    SyntheticGenerator events = new SyntheticGenerator(42);
    assertEveryLineDecodes("schemas/synthetic.schema.json", events::nextBytes);
  }

  private static void assertEveryLineDecodes(String schemaFile, Supplier<byte[]> lines) {
    var schema = ArrowSchemas.toArrow(SchemaFiles.read(Path.of(schemaFile)));
    try (BufferAllocator allocator = new RootAllocator();
        NativeJsonDecoder decoder = NativeJsonDecoder.create(schema, JsonDecoderConfig.defaults().withStrict(true));
        MessageBatch batch = new MessageBatch()) {
      for (int i = 0; i < 5000; i++) {
        batch.add(lines.get());
      }
      try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
        assertEquals(5000, decoded.root().getRowCount());
      }
    }
  }
}
