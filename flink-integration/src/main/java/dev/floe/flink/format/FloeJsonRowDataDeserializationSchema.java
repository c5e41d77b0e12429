package dev.floe.flink.format;

import dev.floe.arrow.NativeRowDecoder;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

/**
 * The {@code floe-json} decoder: Flink's {@code json} format's rows, decoded natively. Each message
 * goes to libfloe's row decoder, which either returns the row (when it is certainly the row
 * Flink's format makes) or leaves the message to Flink's own {@link
 * JsonParserRowDataDeserializationSchema}, which this schema holds and which then decides -- the
 * row, a coerced value, a null field under {@code ignore-parse-errors}, or Flink's exception. So
 * the rows, the errors and the options' meanings are Flink's, and clean messages skip Jackson.
 *
 * <p>Rows decoded natively are Flink's {@link BinaryRowData}, written by libfloe byte for byte as
 * Flink's own {@code RowDataSerializer} writes the row Flink's format makes (so they are equal to
 * it field by field, and copied between operators as one array); for a row type holding a MAP,
 * and for the rare row that layout cannot hold exactly (a sub-millisecond fraction in a {@code
 * TIMESTAMP(p <= 3)}, which Flink's row keeps), they are {@code GenericRowData} read from libfloe's
 * row tape. Messages Flink decodes give its {@code GenericRowData}.
 *
 * <p>For the DataStream API, with the {@code json} format's options:
 *
 * <pre>{@code
 * KafkaSource.<RowData>builder()
 *     .setValueOnlyDeserializer(FloeJsonRowDataDeserializationSchema.of(rowType, false, false, TimestampFormat.SQL))
 * }</pre>
 */
public final class FloeJsonRowDataDeserializationSchema implements DeserializationSchema<RowData> {
  private static final long serialVersionUID = 1L;
  /** Frees a decoder's native memory once its schema is gone: Flink never closes a DeserializationSchema. */
  private static final Cleaner CLEANER = Cleaner.create();

  private final RowType rowType;
  private final TypeInformation<RowData> producedType;
  private final boolean failOnMissingField;
  private final TimestampFormat timestampFormat;
  /** Flink's own decoder: every message the native one does not take. */
  private final DeserializationSchema<RowData> fallback;
  /** Whether the native decoder takes messages at all (not for types it leaves to Flink). */
  private final boolean nativeDecoding;

  private transient NativeRowDecoder decoder;
  /** Whether {@link #decoder} returns binary rows (a tag byte, then the row or its tape). */
  private transient boolean binaryRows;
  private transient RowTapeReader reader;
  private transient long fallbacks;
  private transient Counter fallbackCounter;
  private transient Downstream downstream;

  FloeJsonRowDataDeserializationSchema(
      RowType rowType,
      TypeInformation<RowData> producedType,
      boolean failOnMissingField,
      TimestampFormat timestampFormat,
      DeserializationSchema<RowData> fallback,
      boolean nativeDecoding) {
    this.rowType = rowType;
    this.producedType = producedType;
    this.failOnMissingField = failOnMissingField;
    this.timestampFormat = timestampFormat;
    this.fallback = fallback;
    // A timestamp standard libfloe does not know (a later Flink's) is left to Flink's decoder.
    boolean knownStandard = timestampFormat == TimestampFormat.SQL || timestampFormat == TimestampFormat.ISO_8601;
    this.nativeDecoding = nativeDecoding && knownStandard && ArrowRowSchemas.of(rowType) != null;
  }

  /**
   * A decoder of {@code rowType} rows with the {@code json} format's options: {@code
   * fail-on-missing-field}, {@code ignore-parse-errors} and {@code timestamp-format.standard}.
   */
  public static FloeJsonRowDataDeserializationSchema of(
      RowType rowType, boolean failOnMissingField, boolean ignoreParseErrors, TimestampFormat timestampFormat) {
    TypeInformation<RowData> type = InternalTypeInfo.of(rowType);
    return new FloeJsonRowDataDeserializationSchema(
        rowType,
        type,
        failOnMissingField,
        timestampFormat,
        new JsonParserRowDataDeserializationSchema(rowType, type, failOnMissingField, ignoreParseErrors, timestampFormat),
        true);
  }

  @Override
  public void open(InitializationContext context) throws Exception {
    fallback.open(context);
    BoundedFlinkJson.bound(fallback); // one message must not stall the job in Flink's decoder
    fallbackCounter = context.getMetricGroup().counter("floeJsonFallbacks");
    downstream = new Downstream();
    if (nativeDecoding) {
      Schema schema = ArrowRowSchemas.of(rowType);
      String standard = timestampFormat == TimestampFormat.ISO_8601 ? "ISO-8601" : "SQL";
      binaryRows = ArrowRowSchemas.binaryRowsFit(rowType);
      decoder = NativeRowDecoder.create(schema, standard, failOnMissingField, binaryRows);
      CLEANER.register(this, decoder::close);
      reader = new RowTapeReader(rowType);
    }
  }

  @Override
  public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
    RowData row = decodeNatively(message);
    if (row != null) {
      out.collect(row);
      return;
    }
    downstream.out = out;
    downstream.failure = null;
    try {
      fallback.deserialize(message, downstream);
    } catch (IOException e) {
      if (downstream.failure == null) {
        throw e;
      }
    }
    downstream.rethrowFailure();
  }

  /** The message's row, or null after counting a fallback: Flink's decoder is to take it. */
  private RowData decodeNatively(byte[] message) {
    if (decoder != null && message != null && message.length > 0) {
      long length = decoder.decode(message, 0, message.length);
      if (length != NativeRowDecoder.FALLBACK) {
        return row(decoder.tape(), (int) length);
      }
    }
    fallbacks++;
    fallbackCounter.inc();
    return null;
  }

  /** The row in {@code output[0, length)}, which the decoder reuses. */
  private RowData row(byte[] output, int length) {
    if (!binaryRows) {
      return reader.read(output, 0, length);
    }
    if (output[0] != NativeRowDecoder.BINARY_ROW) {
      return reader.read(output, 1, length);
    }
    BinaryRowData row = new BinaryRowData(rowType.getFieldCount());
    row.pointTo(MemorySegmentFactory.wrap(Arrays.copyOfRange(output, 1, length)), 0, length - 1);
    return row;
  }

  /**
   * Messages this decoder handed to Flink's own (also the metric {@code floeJsonFallbacks}): bad
   * ones, ones Flink coerces, and all of them for types decoded in Flink alone.
   */
  public long fallbacks() {
    return fallbacks;
  }

  /**
   * One message's row, or null if it has none (an empty message, a skipped bad one). A top-level
   * JSON array of several rows is refused as Flink's decoder refuses it.
   */
  @Override
  public RowData deserialize(byte[] message) throws IOException {
    RowData row = decodeNatively(message);
    return row != null ? row : fallback.deserialize(message);
  }

  @Override
  public boolean isEndOfStream(RowData nextElement) {
    return false;
  }

  @Override
  public TypeInformation<RowData> getProducedType() {
    return producedType;
  }

  /**
   * The collector Flink's decoder is given: it passes rows on and keeps what the operators after
   * it throw. Flink's decoder catches every {@code Throwable} around its {@code collect}: under
   * {@code ignore-parse-errors} it would drop the job's own failure as a bad message (rows
   * decoded natively fail the job), and otherwise report it as JSON it could not read.
   */
  private static final class Downstream implements Collector<RowData> {
    private Collector<RowData> out;
    /** What the operators after threw, rethrown once Flink's decoder returns. */
    private Throwable failure;

    @Override
    public void collect(RowData row) {
      try {
        out.collect(row);
      } catch (RuntimeException | Error e) {
        failure = e;
        throw e;
      }
    }

    @Override
    public void close() {
      out.close();
    }

    void rethrowFailure() {
      Throwable thrown = failure;
      failure = null;
      if (thrown instanceof Error error) {
        throw error;
      }
      if (thrown != null) {
        throw (RuntimeException) thrown;
      }
    }
  }
}
