package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A task writer finishes its files in parallel; when one of them cannot be finished, the files
 * the others finished are deleted, so a failed {@code complete()} leaves nothing behind but the
 * failure.
 */
class ParallelFinishFailureTest extends EmbeddedCatalogTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  @Test
  void whenOneFileFailsTheFilesFinishedBesideItAreDeleted() {
    Table real = catalog.createTable(TableIdentifier.of("db", "fails"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    FailingIo io = new FailingIo(real.io(), path -> path.contains("id_bucket=2"));
    Table table = new BaseTable(new IoOf(((HasTableOperations) real).operations(), io), real.name());
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    NativeTaskWriter writer = factory.newTaskWriter();
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch()) {
      for (long id = 0; id < 64; id++) {
        batch.add(("{\"id\":" + id + ",\"name\":\"row " + id + "\"}").getBytes(StandardCharsets.UTF_8));
      }
      writer.write(decoder, batch, BadRecordPolicy.FAIL);

      UncheckedIOException failure = assertThrows(UncheckedIOException.class, writer::complete);
      assertTrue(failure.getMessage().contains("id_bucket=2"), failure.getMessage());
    } finally {
      writer.close();
    }
    assertEquals(4, io.created.size(), "a file per bucket: " + io.created);
    for (String file : io.created) {
      if (!file.contains("id_bucket=2")) {
        assertTrue(io.deleted.contains(file), file + " was finished beside the failure and must be deleted");
      }
      assertFalse(io.newInputFile(file).exists(), file + " (the one that failed too: what reached storage)");
    }
  }

  /**
   * An upsert writer whose equality-delete file cannot be finished: its data file, finished just
   * before, is deleted. Before, it was left behind (found in review).
   */
  @Test
  void whenADeleteFileFailsTheUpsertWritersOtherFilesAreDeleted() {
    Schema keyed = new Schema(List.of(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get())), java.util.Set.of(1));
    Table real = catalog.createTable(TableIdentifier.of("db", "upsert_fails"), keyed, PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    List<String> created = new CopyOnWriteArrayList<>();
    FailingIo io = new FailingIo(real.io(), path -> !path.equals(created.getFirst()), created);
    Table table = new BaseTable(new IoOf(((HasTableOperations) real).operations(), io), real.name());
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    NativeTaskWriter writer = factory.newUpsertTaskWriter();
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch()) {
      for (int round = 0; round < 2; round++) { // the second round replaces the first's rows
        batch.clear();
        for (long id = 0; id < 10; id++) {
          batch.add(("{\"id\":" + id + ",\"name\":\"round " + round + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        writer.write(decoder, batch, BadRecordPolicy.FAIL);
      }
      assertThrows(UncheckedIOException.class, writer::complete);
    } finally {
      writer.close();
    }
    // the data file, then the equality-delete file that fails (position deletes are written after it)
    assertEquals(2, created.size(), "files made: " + created);
    for (String file : created) {
      assertFalse(io.newInputFile(file).exists(), file + " is left behind");
    }
  }

  /** The table's operations, with another {@link FileIO}. */
  private static final class IoOf extends ForwardingTableOperations {
    private final FileIO io;

    IoOf(TableOperations delegate, FileIO io) {
      super(delegate);
      this.io = io;
    }

    @Override
    public FileIO io() {
      return io;
    }
  }

  /**
   * Local files through streams (not recognized as local, so written through Java), whose close
   * fails for the files {@code failing} accepts; notes what is created and deleted.
   */
  private static final class FailingIo implements FileIO {
    private final FileIO local;
    private final java.util.function.Predicate<String> failing;
    final List<String> created;
    final List<String> deleted = new CopyOnWriteArrayList<>();

    FailingIo(FileIO local, java.util.function.Predicate<String> failing) {
      this(local, failing, new CopyOnWriteArrayList<>());
    }

    FailingIo(FileIO local, java.util.function.Predicate<String> failing, List<String> created) {
      this.local = local;
      this.failing = failing;
      this.created = created;
    }

    @Override
    public InputFile newInputFile(String path) {
      return local.newInputFile(path);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      OutputFile file = local.newOutputFile(path);
      return new OutputFile() {
        @Override
        public PositionOutputStream create() {
          return stream(file.create());
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
          return stream(file.createOrOverwrite());
        }

        private PositionOutputStream stream(PositionOutputStream out) {
          created.add(path);
          return new PositionOutputStream() {
            @Override
            public long getPos() throws IOException {
              return out.getPos();
            }

            @Override
            public void write(int b) throws IOException {
              out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
              out.close();
              if (failing.test(path)) {
                throw new IOException("disk full");
              }
            }
          };
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
      deleted.add(path);
      local.deleteFile(path);
    }
  }
}
