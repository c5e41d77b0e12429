package dev.floe.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The dead-letter file of {@code floe write --on-error dlq}: one JSON object per bad line, {@code
 * {"line": N, "error": "...", "record": "..."}}, with {@code record_base64} instead of {@code
 * record} when the line is not valid UTF-8. Written to a hidden temp file beside the target and
 * renamed by {@link #commit()}; {@link #close()} before that deletes it.
 */
final class DeadLetters implements Closeable {
  private static final JsonFactory JSON = new JsonFactory();

  private final Path target;
  private final TempFile temp;
  private final OutputStream out;
  private final JsonGenerator json;
  private long count;
  private boolean closed;

  private DeadLetters(Path target, TempFile temp) throws IOException {
    this.target = target;
    this.temp = temp;
    this.out = new BufferedOutputStream(Files.newOutputStream(temp.path()), 1 << 16);
    this.json = JSON.createGenerator(out);
    json.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
    json.setRootValueSeparator(null); // objects are separated by the newline written after each

  }

  static DeadLetters create(Path target) throws IOException {
    TempFile temp = TempFile.beside(target);
    try {
      return new DeadLetters(target.toAbsolutePath(), temp);
    } catch (IOException | RuntimeException e) {
      temp.close();
      throw e;
    }
  }

  void add(long line, String error, byte[] record) throws IOException {
    json.writeStartObject();
    json.writeNumberField("line", line);
    json.writeStringField("error", error);
    // from the bytes, without a String or a base64 copy of them: a line may be up to 2 GiB, and
    // three copies of one ran out of heap (helper-80)
    if (validUtf8(record)) {
      json.writeFieldName("record");
      json.writeUTF8String(record, 0, record.length);
    } else {
      json.writeFieldName("record_base64");
      json.writeBinary(record);
    }
    json.writeEndObject();
    json.flush();
    out.write('\n');
    count++;
  }

  long count() {
    return count;
  }

  Path target() {
    return target;
  }

  /** Finishes the file and moves it to its name. */
  void commit() throws IOException {
    closeStreams();
    temp.moveTo(target);
  }

  /** Deletes the file unless committed. */
  @Override
  public void close() throws IOException {
    try {
      closeStreams();
    } finally {
      temp.close();
    }
  }

  private void closeStreams() throws IOException {
    if (!closed) {
      closed = true;
      json.close();
      out.close();
    }
  }

  /** Whether the bytes are valid UTF-8, decoded a piece at a time into a small buffer. */
  private static boolean validUtf8(byte[] bytes) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder(); // reports malformed input
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(8192);
    while (true) {
      CoderResult result = decoder.decode(in, out, true);
      if (result.isError()) {
        return false;
      }
      if (result.isUnderflow()) {
        out.clear();
        return !decoder.flush(out).isError();
      }
      out.clear(); // overflow: the decoded text is not kept
    }
  }
}
