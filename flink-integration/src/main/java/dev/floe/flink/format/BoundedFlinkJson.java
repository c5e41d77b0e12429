package dev.floe.flink.format;

import java.io.IOException;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.json.AbstractJsonDeserializationSchema;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.TreeNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.io.JsonEOFException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.util.JsonParserDelegate;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's own {@code json} decoder, which {@code floe-json} hands every message libfloe does not
 * take, made to end on every message (helper-84). Flink 2.1's parser-based converters can leave
 * the parser on a {@code [} or <code>{</code> they did not read (under {@code ignore-parse-errors}
 * a MAP, ROW or number given a container; always, a BOOLEAN given one) and read the rest of the
 * message with the wrong structure. At its end Jackson returns no token for ever: a MAP's loop
 * then never ends, and an ARRAY's fills the heap. And a DECIMAL with a huge exponent costs {@code
 * BigDecimal.setScale} a power of ten: about a minute for {@code 1e99999999}, gigabytes for more.
 *
 * <p>Bounded here, through the parsers of the decoder's {@code ObjectMapper}:
 *
 * <ul>
 *   <li>a token asked for past the end of the message is a {@code JsonEOFException}: what Flink
 *       gives where a ROW reaches the end (a skipped message under {@code ignore-parse-errors},
 *       "Failed to deserialize JSON" otherwise);
 *   <li>a number read as a decimal with more than 40 integer digits, or fewer than -40, is read as
 *       {@code ±1E+40} or 0: every DECIMAL(p, s) Flink has (p at most 38) maps either to what it
 *       maps the value itself to (null for too many digits, or zero), without the power of ten.
 *       Past an exponent of 100,000,000, where Flink would spend minutes and gigabytes, or fail
 *       on the JDK's limit, the value is refused as Flink refuses a decimal it cannot read.
 * </ul>
 *
 * Every message Flink's decoder ends on in bounded time gets the same result. Its converters read
 * a decimal value only for DECIMAL fields; numbers inside a value read whole as a tree (a STRING
 * field given an object) keep their text.
 *
 * <p>Only the parser-based decoder is bounded. The tree-based one ({@code
 * decode.json-parser.enabled = false}) builds the whole tree first, and does not loop; with a
 * DECIMAL in the row it reads every float of the message as a decimal, so substituting there
 * would change DOUBLE fields (helper-86). Its slow decimals stay Flink's.
 */
final class BoundedFlinkJson {
  private static final Logger LOG = LoggerFactory.getLogger(BoundedFlinkJson.class);
  /** Integer digits beyond which no DECIMAL(38, s) holds a value, and below which it rounds to 0. */
  private static final int DECIMAL_DIGITS = 40;
  private static final long LONGEST_EXPONENT = 100_000_000;

  private BoundedFlinkJson() {}

  /**
   * Bounds {@code decoder} if it is Flink's parser-based json decoder, after its {@code open}. Its
   * {@code ObjectMapper} is a protected field of Flink's base class; if a later Flink has none,
   * the decoder is left as it is, and that is logged.
   */
  static void bound(DeserializationSchema<?> decoder) {
    if (!(decoder instanceof JsonParserRowDataDeserializationSchema json)) {
      return;
    }
    try {
      Field field = AbstractJsonDeserializationSchema.class.getDeclaredField("objectMapper");
      field.setAccessible(true);
      ObjectMapper flinks = (ObjectMapper) field.get(json);
      JsonFactory parsers = flinks.getFactory();
      JsonFactory bounded = new JsonFactory() {
        @Override
        public JsonParser createParser(byte[] data) throws IOException {
          return new BoundedParser(parsers.createParser(data));
        }
      };
      field.set(json, flinks.copyWith(bounded));
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("Flink's json decoder is used without floe's bounds (a message that makes it loop can stall the"
          + " job): {}", e.toString());
    }
  }

  /** A parser that ends at the end of its message and reads huge decimals without their power of ten. */
  private static final class BoundedParser extends JsonParserDelegate {
    private int inTree;
    /** Whether the message had a token: one with none (blank) is Flink's "No content to map". */
    private boolean anyToken;

    BoundedParser(JsonParser parser) {
      super(parser);
    }

    @Override
    public JsonToken nextToken() throws IOException {
      JsonToken token = super.nextToken();
      // Jackson also answers null once after a syntax error it reported; closed, it is at the end
      if (token == null && isClosed() && anyToken) {
        throw new JsonEOFException(this, null, "read past the end of the message");
      }
      anyToken |= token != null;
      return token;
    }

    @Override
    public <T extends TreeNode> T readValueAsTree() throws IOException {
      inTree++;
      try {
        return super.readValueAsTree();
      } finally {
        inTree--;
      }
    }

    @Override
    public BigDecimal getDecimalValue() throws IOException {
      BigDecimal value = super.getDecimalValue();
      if (inTree > 0 || value.signum() == 0) {
        return value;
      }
      long integerDigits = (long) value.precision() - value.scale();
      if (Math.abs(integerDigits) <= DECIMAL_DIGITS) {
        return value;
      }
      if (Math.abs((long) value.scale()) > LONGEST_EXPONENT) {
        throw new ArithmeticException("a decimal exponent beyond " + LONGEST_EXPONENT);
      }
      return integerDigits > 0 ? new BigDecimal(BigInteger.valueOf(value.signum()), -DECIMAL_DIGITS) : BigDecimal.ZERO;
    }
  }
}
