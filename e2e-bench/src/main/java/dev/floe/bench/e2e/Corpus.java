package dev.floe.bench.e2e;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.corpus.SyntheticGenerator;
import dev.floe.testing.Canonical;
import java.util.Locale;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/**
 * The two corpora of the end-to-end benchmark, with the table layout each lands in: a 4-bucket
 * v2 table, bucketed on {@code bid.auction} for Nexmark (persons and auctions land in the null
 * partition, as in the sink's own tests) and on the event {@code id} for the synthetic events.
 */
public enum Corpus {
  NEXMARK(CorpusSchemas.nexmarkJson(), "bid.auction"),
  SYNTHETIC(CorpusSchemas.syntheticJson(), "id");

  static final int BUCKETS = 4;

  private final Schema schema;
  private final PartitionSpec spec;

  Corpus(String schemaJson, String bucketColumn) {
    this.schema = SchemaParser.fromJson(schemaJson);
    this.spec = PartitionSpec.builderFor(schema).bucket(bucketColumn, BUCKETS).build();
  }

  public Schema schema() {
    return schema;
  }

  public PartitionSpec spec() {
    return spec;
  }

  /** The lower-case name used in options, topics, table names and reports. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Corpus of(String id) {
    return valueOf(id.trim().toUpperCase(Locale.ROOT));
  }

  /** The seeded event stream: each event's message bytes and its expected canonical row. */
  public Events events(long seed) {
    return switch (this) {
      case NEXMARK -> new NexmarkEvents(seed);
      case SYNTHETIC -> new SyntheticEvents(seed);
    };
  }

  /** A corpus stream: {@link #next()} then {@link #canonical()} of that message. Not thread-safe. */
  public interface Events {
    byte[] next();

    /** The last message's row as {@code TableFingerprint} canonical text. */
    String canonical();
  }

  private static final class NexmarkEvents implements Events {
    private final NexmarkGenerator generator;
    private NexmarkEvent last;

    NexmarkEvents(long seed) {
      generator = new NexmarkGenerator(seed);
    }

    @Override
    public byte[] next() {
      last = generator.next();
      return NexmarkJson.toBytes(last);
    }

    @Override
    public String canonical() {
      return Canonical.nexmark(last);
    }
  }

  private static final class SyntheticEvents implements Events {
    private final SyntheticGenerator generator;
    private byte[] last;

    SyntheticEvents(long seed) {
      generator = new SyntheticGenerator(seed);
    }

    @Override
    public byte[] next() {
      last = generator.nextBytes();
      return last;
    }

    @Override
    public String canonical() {
      return Canonical.synthetic(last);
    }
  }
}
