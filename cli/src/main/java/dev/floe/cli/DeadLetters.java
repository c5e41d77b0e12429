package dev.floe.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

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
    String text = utf8(record);
    if (text != null) {
      json.writeStringField("record", text);
    } else {
      json.writeStringField("record_base64", Base64.getEncoder().encodeToString(record));
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

  /** The text, or null if the bytes are not valid UTF-8. */
  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
