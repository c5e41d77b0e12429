package dev.floe.iceberg;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A local file read through a {@link FileChannel} ({@link LocalFileIO}). A missing file is
 * Iceberg's {@link NotFoundException}, as Iceberg's own input files report it.
 */
final class LocalInputFile implements InputFile {
  private final String location;
  private final Path path;
  private long length;

  /** {@code length} when the caller knows it (a manifest's entry), -1 to read it from the disk. */
  LocalInputFile(String location, Path path, long length) {
    this.location = location;
    this.path = path;
    this.length = length;
  }

  @Override
  public long getLength() {
    if (length < 0) {
      try {
        length = Files.size(path);
      } catch (NoSuchFileException e) {
        throw new NotFoundException(e, "file does not exist: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the size of " + location, e);
      }
    }
    return length;
  }

  @Override
  public SeekableInputStream newStream() {
    try {
      return new Stream(FileChannel.open(path, StandardOpenOption.READ));
    } catch (NoSuchFileException e) {
      throw new NotFoundException(e, "file does not exist: %s", location);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + location, e);
    }
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public boolean exists() {
    return Files.exists(path);
  }

  @Override
  public String toString() {
    return location;
  }

  /**
   * Sequential reads from a position that {@link #seek} moves, through a small read-ahead buffer
   * (readers such as Avro's and Jackson's also read a byte or a few at a time), and positioned
   * reads ({@link RangeReadable}, which Iceberg's Parquet reader uses for footers) that leave it
   * where it is.
   */
  private static final class Stream extends SeekableInputStream implements RangeReadable {
    private static final int BUFFER_BYTES = 8 * 1024;

    private final FileChannel channel;
    private final byte[] buffer = new byte[BUFFER_BYTES];
    /** The file's bytes at [bufferStart, bufferStart + bufferLength) are in {@code buffer}. */
    private long bufferStart;
    private int bufferLength;
    private long pos;
    private boolean closed;

    Stream(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public long getPos() throws IOException {
      ensureOpen();
      return pos;
    }

    @Override
    public void seek(long newPos) throws IOException {
      ensureOpen();
      if (newPos < 0) {
        throw new EOFException("cannot seek to a negative position: " + newPos);
      }
      pos = newPos;
    }

    @Override
    public int read() throws IOException {
      ensureOpen();
      if (!buffered() && !fill()) {
        return -1;
      }
      return buffer[(int) (pos++ - bufferStart)] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      ensureOpen();
      java.util.Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      if (!buffered()) {
        if (len >= BUFFER_BYTES) {
          int n = channel.read(ByteBuffer.wrap(b, off, len), pos);
          if (n > 0) {
            pos += n;
          }
          return n;
        }
        if (!fill()) {
          return -1;
        }
      }
      int at = (int) (pos - bufferStart);
      int n = Math.min(len, bufferLength - at);
      System.arraycopy(buffer, at, b, off, n);
      pos += n;
      return n;
    }

    /** Whether the byte at {@code pos} is in the buffer. */
    private boolean buffered() {
      return pos >= bufferStart && pos < bufferStart + bufferLength;
    }

    /** Reads ahead from {@code pos}; false at the end of the file. */
    private boolean fill() throws IOException {
      bufferStart = pos;
      bufferLength = 0;
      int n = channel.read(ByteBuffer.wrap(buffer), pos);
      if (n <= 0) {
        return false;
      }
      bufferLength = n;
      return true;
    }

    @Override
    public long skip(long n) throws IOException {
      ensureOpen();
      long skipped = Math.max(0, Math.min(n, channel.size() - pos));
      pos += skipped;
      return skipped;
    }

    @Override
    public int available() throws IOException {
      ensureOpen();
      return (int) Math.min(Integer.MAX_VALUE, Math.max(0, channel.size() - pos));
    }

    @Override
    public void readFully(long position, byte[] bytes, int offset, int length) throws IOException {
      ensureOpen();
      ByteBuffer into = ByteBuffer.wrap(bytes, offset, length);
      long at = position;
      while (into.hasRemaining()) {
        int n = channel.read(into, at);
        if (n < 0) {
          throw new EOFException("reached the end of the file after " + (at - position) + " of " + length
              + " bytes from position " + position);
        }
        at += n;
      }
    }

    @Override
    public int readTail(byte[] bytes, int offset, int length) throws IOException {
      ensureOpen();
      long size = channel.size();
      int n = (int) Math.min(length, size);
      readFully(size - n, bytes, offset, n);
      return n;
    }

    @Override
    public void close() throws IOException {
      closed = true;
      channel.close();
    }

    private void ensureOpen() throws IOException {
      if (closed) {
        throw new IOException("stream is closed");
      }
    }
  }
}
