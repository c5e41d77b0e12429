package dev.floe.kafka.sink;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * A FileIO whose data files (paths under {@code /data/}) hang on their first write until {@code
 * release} opens: storage that stops answering. Metadata files pass through.
 */
final class BlockingFileIO implements FileIO {
  private final FileIO delegate;
  private final CountDownLatch blocked;
  private final CountDownLatch release;

  /** @param blocked counted down when a write starts waiting */
  BlockingFileIO(FileIO delegate, CountDownLatch blocked, CountDownLatch release) {
    this.delegate = delegate;
    this.blocked = blocked;
    this.release = release;
  }

  @Override
  public InputFile newInputFile(String path) {
    return delegate.newInputFile(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    OutputFile file = delegate.newOutputFile(path);
    return path.contains("/data/") ? new Blocking(file) : file;
  }

  @Override
  public void deleteFile(String path) {
    delegate.deleteFile(path);
  }

  private void awaitRelease() {
    blocked.countDown();
    try {
      if (!release.await(5, TimeUnit.MINUTES)) {
        throw new IllegalStateException("never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private final class Blocking implements OutputFile {
    private final OutputFile file;

    Blocking(OutputFile file) {
      this.file = file;
    }

    @Override
    public PositionOutputStream create() {
      return new BlockingStream(file.create());
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return new BlockingStream(file.createOrOverwrite());
    }

    @Override
    public String location() {
      return file.location();
    }

    @Override
    public InputFile toInputFile() {
      return file.toInputFile();
    }
  }

  private final class BlockingStream extends PositionOutputStream {
    private final PositionOutputStream out;

    BlockingStream(PositionOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      awaitRelease();
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      awaitRelease();
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
