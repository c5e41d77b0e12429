package dev.floe.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * A local file written through a {@link FileChannel} ({@link LocalFileIO}), its parent
 * directories created first. {@link #path()} lets libfloe write data files there itself ({@link
 * LocalFiles}).
 */
final class LocalOutputFile implements OutputFile {
  private static final int BUFFER_BYTES = 64 * 1024;

  private final String location;
  private final Path path;

  LocalOutputFile(String location, Path path) {
    this.location = location;
    this.path = path;
  }

  /** The local file. */
  Path path() {
    return path;
  }

  /** A new file: an existing one is refused ({@link AlreadyExistsException}). */
  @Override
  public PositionOutputStream create() {
    return open(StandardOpenOption.CREATE_NEW);
  }

  @Override
  public PositionOutputStream createOrOverwrite() {
    return open(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
  }

  private PositionOutputStream open(OpenOption... how) {
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      OpenOption[] options = new OpenOption[how.length + 1];
      System.arraycopy(how, 0, options, 0, how.length);
      options[how.length] = StandardOpenOption.WRITE;
      return new Stream(FileChannel.open(path, options));
    } catch (FileAlreadyExistsException e) {
      throw new AlreadyExistsException(e, "file already exists: %s", location);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + location, e);
    }
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public InputFile toInputFile() {
    return new LocalInputFile(location, path, -1);
  }

  @Override
  public String toString() {
    return location;
  }

  /** Buffered writes; the position counts the bytes written so far, buffered ones included. */
  private static final class Stream extends PositionOutputStream {
    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
    private long flushed;
    private boolean closed;

    Stream(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public long getPos() {
      return flushed + buffer.position();
    }

    @Override
    public void write(int b) throws IOException {
      ensureOpen();
      if (!buffer.hasRemaining()) {
        drain();
      }
      buffer.put((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      ensureOpen();
      java.util.Objects.checkFromIndexSize(off, len, b.length);
      if (len > buffer.remaining()) {
        drain();
        if (len >= BUFFER_BYTES) {
          writeAll(ByteBuffer.wrap(b, off, len));
          return;
        }
      }
      buffer.put(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      ensureOpen();
      drain();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      try {
        drain();
      } finally {
        closed = true;
        channel.close();
      }
    }

    private void drain() throws IOException {
      buffer.flip();
      writeAll(buffer);
      buffer.clear();
    }

    private void writeAll(ByteBuffer bytes) throws IOException {
      while (bytes.hasRemaining()) {
        flushed += channel.write(bytes);
      }
    }

    private void ensureOpen() throws IOException {
      if (closed) {
        throw new IOException("stream is closed");
      }
    }
  }
}
