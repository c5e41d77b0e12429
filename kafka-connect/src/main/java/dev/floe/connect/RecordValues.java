package dev.floe.connect;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A record's value (or key) as the JSON bytes the native decoder reads. Two paths:
 *
 * <ul>
 *   <li>the fast path: {@code byte[]} (ByteArrayConverter), {@code String} (StringConverter) or a
 *       {@code ByteBuffer} -- the bytes as they are;
 *   <li>structured values ({@code Struct}, {@code Map}, lists: JsonConverter with or without
 *       schemas, or after transforms) are written to JSON by {@link ConnectJson}, each value in the
 *       text form of the Iceberg type it maps to, then decoded like the rest. Slower: one more
 *       encode per record.
 * </ul>
 *
 * Null stays null (a tombstone). Not thread-safe (the task thread's).
 */
final class RecordValues {
  private final ConnectJson json = new ConnectJson();

  byte[] value(SinkRecord record) {
    return bytes("value", record.value(), record.valueSchema());
  }

  /** The key, for a tombstone in upsert mode: JSON naming the identifier columns. */
  byte[] key(SinkRecord record) {
    return bytes("key", record.key(), record.keySchema());
  }

  private byte[] bytes(String what, Object value, org.apache.kafka.connect.data.Schema schema) {
    return switch (value) {
      case null -> null;
      case byte[] b -> b;
      case String s -> s.getBytes(StandardCharsets.UTF_8);
      case ByteBuffer b -> {
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        yield out;
      }
      case Struct s -> json.write(s, s.schema());
      case Map<?, ?> m -> json.write(m, schema);
      case java.util.List<?> l -> json.write(l, schema);
      default -> throw new DataException("a record " + what + " of type " + value.getClass().getName()
          + " is not JSON floe can write (use ByteArrayConverter, StringConverter or JsonConverter"
          + (what.equals("key") ? "; a key is a JSON object naming the identifier columns)" : ")"));
    };
  }

  /** Whether a config's value converter gives floe's fast path (bytes as they are). */
  static boolean fastPath(String valueConverter) {
    return valueConverter != null
        && (valueConverter.endsWith(".ByteArrayConverter") || valueConverter.endsWith(".StringConverter"));
  }
}
