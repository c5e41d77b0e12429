package dev.floe.cli;

import dev.floe.arrow.MessageBatch;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads JSON lines as raw bytes (no charset decoding: a line that is not valid UTF-8 reaches the
 * decoder, and the dead-letter file, as it was) and packs them into {@link MessageBatch}es, keeping
 * each message's 1-based line number. Lines end at {@code \n}; a trailing {@code \r} is dropped,
 * as is a UTF-8 byte order mark at the start. Blank lines are not messages: they are skipped and
 * counted. Memory: one read buffer plus the longest line.
 */
final class JsonLines implements Closeable {
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private final InputStream in;
  private final byte[] buffer = new byte[1 << 20];
  private int pos;
  private int limit;
  private boolean eof;
  // A line that spans buffer refills is assembled here.
  private byte[] carry = new byte[1 << 16];
  private int carryLength;
  // The current line: bytes [lineStart, lineStart + lineLength) of lineBytes.
  private byte[] lineBytes;
  private int lineStart;
  private int lineLength;
  private long lineNumber;
  private long bytesRead;
  private long blankLines;

  JsonLines(InputStream in) {
    this.in = in;
  }

  /**
   * Clears {@code batch} and fills it with the next lines, up to {@code maxRows} messages or until
   * it holds {@code maxBytes} (always at least one message unless the input is exhausted). {@code
   * lineNumbers[i]} receives message i's line number.
   *
   * @return messages added; 0 at the end of the input
   */
  int fill(MessageBatch batch, long[] lineNumbers, int maxRows, long maxBytes) throws IOException {
    batch.clear();
    while (batch.size() < maxRows && batch.byteSize() < maxBytes && nextLine()) {
      if (isBlank()) {
        blankLines++;
        continue;
      }
      lineNumbers[batch.size()] = lineNumber;
      batch.add(lineBytes, lineStart, lineLength);
    }
    return batch.size();
  }

  /** Input bytes consumed so far, line ends included. */
  long bytesRead() {
    return bytesRead;
  }

  long blankLines() {
    return blankLines;
  }

  private boolean nextLine() throws IOException {
    carryLength = 0;
    while (true) {
      if (pos == limit && !refill()) {
        if (carryLength == 0) {
          return false;
        }
        setLine(carry, 0, carryLength); // the last line, without a newline
        return true;
      }
      int newline = indexOfNewline();
      if (newline >= 0) {
        bytesRead += newline + 1 - pos;
        if (carryLength == 0) {
          setLine(buffer, pos, newline - pos);
        } else {
          appendToCarry(pos, newline - pos);
          setLine(carry, 0, carryLength);
        }
        pos = newline + 1;
        return true;
      }
      bytesRead += limit - pos;
      appendToCarry(pos, limit - pos);
      pos = limit;
    }
  }

  private void setLine(byte[] bytes, int start, int length) {
    lineNumber++;
    if (length > 0 && bytes[start + length - 1] == '\r') {
      length--;
    }
    if (lineNumber == 1 && length >= 3 && Arrays.equals(bytes, start, start + 3, BOM, 0, 3)) {
      start += 3;
      length -= 3;
    }
    lineBytes = bytes;
    lineStart = start;
    lineLength = length;
  }

  private boolean isBlank() {
    for (int i = lineStart; i < lineStart + lineLength; i++) {
      byte b = lineBytes[i];
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  private int indexOfNewline() {
    for (int i = pos; i < limit; i++) {
      if (buffer[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private void appendToCarry(int start, int length) {
    if (carryLength + length > carry.length) {
      long grown = Math.max((long) carry.length * 2, (long) carryLength + length);
      if (grown > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("line " + (lineNumber + 1) + " is longer than 2 GiB");
      }
      carry = Arrays.copyOf(carry, (int) grown);
    }
    System.arraycopy(buffer, start, carry, carryLength, length);
    carryLength += length;
  }

  private boolean refill() throws IOException {
    if (eof) {
      return false;
    }
    int n;
    do {
      n = in.read(buffer, 0, buffer.length);
    } while (n == 0);
    if (n < 0) {
      eof = true;
      pos = limit = 0;
      return false;
    }
    pos = 0;
    limit = n;
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
