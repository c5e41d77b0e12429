package dev.floe.cli;

import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.corpus.SyntheticGenerator;
import java.nio.charset.StandardCharsets;

/**
 * One benchmark corpus as a stream of JSON events (UTF-8, no newline), the same bytes for the same
 * seed wherever they go: a file, stdout or a Kafka topic.
 */
abstract sealed class CorpusEvents {
  enum Corpus {
    nexmark,
    synthetic
  }

  static CorpusEvents of(Corpus corpus, long seed) {
    return switch (corpus) {
      case nexmark -> new Nexmark(seed);
      case synthetic -> new Synthetic(seed);
    };
  }

  /** The next event's JSON. */
  abstract byte[] next();

  private static final class Nexmark extends CorpusEvents {
    private final NexmarkGenerator generator;
    private final StringBuilder line = new StringBuilder(1024);

    Nexmark(long seed) {
      generator = new NexmarkGenerator(seed);
    }

    @Override
    byte[] next() {
      line.setLength(0);
      NexmarkJson.append(generator.next(), line);
      return line.toString().getBytes(StandardCharsets.UTF_8);
    }
  }

  private static final class Synthetic extends CorpusEvents {
    private final SyntheticGenerator generator;

    Synthetic(long seed) {
      generator = new SyntheticGenerator(seed);
    }

    @Override
    byte[] next() {
      return generator.nextBytes();
    }
  }
}
