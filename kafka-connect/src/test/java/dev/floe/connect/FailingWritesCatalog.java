package dev.floe.connect;

import dev.floe.iceberg.ForwardingTableOperations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The embedded JDBC catalog, for a task's {@code iceberg.catalog.catalog-impl}: while the test sets
 * {@link #down}, every file its tables' writers open for writing (data files, manifests) fails
 * with an I/O error, as when the object store is unreachable.
 */
public final class FailingWritesCatalog extends JdbcCatalog {
  static volatile boolean down;

  @Override
  protected TableOperations newTableOps(TableIdentifier id) {
    TableOperations ops = super.newTableOps(id);
    FileIO io = new FailingWrites(ops.io());
    return new ForwardingTableOperations(ops) {
      @Override
      public FileIO io() {
        return io;
      }
    };
  }

  private static UncheckedIOException outage(String location) {
    return new UncheckedIOException(new IOException("the test's storage outage: cannot write " + location));
  }

  private record FailingWrites(FileIO delegate) implements FileIO {
    @Override
    public InputFile newInputFile(String path) {
      return delegate.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
      return delegate.newInputFile(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      OutputFile file = delegate.newOutputFile(path);
      return new OutputFile() {
        @Override
        public PositionOutputStream create() {
          if (down) {
            throw outage(path);
          }
          return file.create();
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
          if (down) {
            throw outage(path);
          }
          return file.createOrOverwrite();
        }

        @Override
        public String location() {
          return file.location();
        }

        @Override
        public InputFile toInputFile() {
          return file.toInputFile();
        }
      };
    }

    @Override
    public void deleteFile(String path) {
      delegate.deleteFile(path);
    }

    @Override
    public Map<String, String> properties() {
      return delegate.properties();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
