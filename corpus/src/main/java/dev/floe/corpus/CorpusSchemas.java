package dev.floe.corpus;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Iceberg schemas of the corpora, in Iceberg's JSON form ({@code SchemaParser.fromJson}):
 * what tables fed with the generators' events look like.
 */
public final class CorpusSchemas {
  private CorpusSchemas() {}

  /** Nexmark events: event_type plus person, auction and bid structs. */
  public static String nexmarkJson() {
    return read("nexmark.schema.json");
  }

  /** The ~142-byte synthetic events. */
  public static String syntheticJson() {
    return read("synthetic.schema.json");
  }

  private static String read(String name) {
    try (InputStream in = CorpusSchemas.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource dev/floe/corpus/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
