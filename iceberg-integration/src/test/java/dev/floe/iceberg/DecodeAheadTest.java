package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.StructLikeWrapper;
import org.junit.jupiter.api.Test;

/**
 * A task writer used in two halves -- {@link NativeTaskWriter#decode} on a thread of its own, a
 * batch ahead of {@link NativeTaskWriter#write(DecodedMessages)} on the test thread, as the sink
 * runs it -- writes the same table as one-call writes: the same rows, the same files per partition
 * and, for upserts, the same delete files and latest row per key.
 */
class DecodeAheadTest extends EmbeddedCatalogTest {
  /** (id, region) keyed, as the upsert tests use. */
  private static final Schema SCHEMA = UpsertTest.SCHEMA;
  private static final int BATCH = 300;

  private enum Kind {
    UNPARTITIONED,
    BUCKETED,
    UPSERT
  }

  private Table table(String name, Kind kind) {
    PartitionSpec spec =
        kind == Kind.UNPARTITIONED
            ? PartitionSpec.unpartitioned()
            : PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build();
    return catalog.createTable(
        TableIdentifier.of("db", name), SCHEMA, spec, Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  /** Rows whose keys repeat (drawn from count / 3 ids). */
  private static List<Record> rows(long seed, int count) {
    List<Record> rows = new RandomRows(seed).records(SCHEMA, count);
    Random random = new Random(seed);
    for (Record r : rows) {
      int key = random.nextInt(count / 3);
      r.setField("id", (long) key);
      r.setField("region", "r" + key % 4);
    }
    return rows;
  }

  private static List<byte[]> json(List<Record> rows) {
    return rows.stream().map(r -> RandomRows.toJson(r).getBytes(StandardCharsets.UTF_8)).toList();
  }

  private static NativeTaskWriter newWriter(NativeFileWriterFactory factory, Kind kind) {
    return kind == Kind.UPSERT ? factory.newUpsertTaskWriter() : factory.newTaskWriter();
  }

  private static void commit(Table table, Kind kind, WriteResult result) {
    if (kind == Kind.UPSERT) {
      Commits.rowDelta(table, result, Map.of());
    } else {
      Commits.append(table, result, Map.of());
    }
  }

  private WriteResult writeInOneCall(Table table, Kind kind, List<byte[]> messages) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = newWriter(factory, kind)) {
      for (int start = 0; start < messages.size(); start += BATCH) {
        batch.clear();
        messages.subList(start, Math.min(messages.size(), start + BATCH)).forEach(batch::add);
        writer.write(decoder, batch, BadRecordPolicy.FAIL);
      }
      WriteResult result = writer.complete();
      commit(table, kind, result);
      return result;
    }
  }

  /**
   * Batch i+1 decodes on another thread while batch i is written. One message batch serves every
   * decode: it is refilled as soon as the previous decode returns, before that batch is written.
   */
  private WriteResult writeDecodingAhead(Table table, Kind kind, List<byte[]> messages) throws Exception {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    ExecutorService decodeThread = Executors.newSingleThreadExecutor();
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = newWriter(factory, kind)) {
      List<Future<DecodedMessages>> decoded = new ArrayList<>();
      for (int start = 0; start < messages.size(); start += BATCH) {
        List<byte[]> slice = messages.subList(start, Math.min(messages.size(), start + BATCH));
        decoded.add(
            decodeThread.submit(() -> {
              batch.clear();
              slice.forEach(batch::add);
              return writer.decode(decoder, batch, BadRecordPolicy.FAIL);
            }));
      }
      long rows = 0;
      for (Future<DecodedMessages> next : decoded) {
        rows += writer.write(next.get()).rows();
      }
      assertEquals(messages.size(), rows);
      WriteResult result = writer.complete();
      commit(table, kind, result);
      return result;
    } finally {
      decodeThread.shutdownNow();
    }
  }

  private static Map<String, Integer> multiset(List<Record> rows) {
    Map<String, Integer> out = new HashMap<>();
    rows.forEach(r -> out.merge(r.toString(), 1, Integer::sum));
    return out;
  }

  /** (content, partition) -> records, over every data and delete file. */
  private static Map<List<Object>, Long> recordsPerFileKind(Table table, WriteResult result) {
    Map<List<Object>, Long> out = new HashMap<>();
    List<ContentFile<?>> files = new ArrayList<>(List.of(result.dataFiles()));
    files.addAll(List.of(result.deleteFiles()));
    for (ContentFile<?> f : files) {
      StructLikeWrapper partition = StructLikeWrapper.forType(table.spec().partitionType()).set(f.partition());
      out.merge(List.of(f.content(), partition), f.recordCount(), Long::sum);
    }
    return out;
  }

  @Test
  void decodingABatchAheadWritesTheSameTables() throws Exception {
    for (Kind kind : Kind.values()) {
      String name = kind.name().toLowerCase(java.util.Locale.ROOT);
      Table oneCall = table(name + "_one_call", kind);
      Table ahead = table(name + "_ahead", kind);
      Set<Object> keys = new java.util.HashSet<>();
      for (long commit = 1; commit <= 2; commit++) {
        List<Record> input = rows(commit, 2000);
        input.forEach(r -> keys.add(r.getField("id")));
        List<byte[]> messages = json(input);
        WriteResult expected = writeInOneCall(oneCall, kind, messages);
        WriteResult actual = writeDecodingAhead(ahead, kind, messages);
        assertEquals(recordsPerFileKind(oneCall, expected), recordsPerFileKind(ahead, actual), kind + " files");
        if (kind == Kind.UPSERT) {
          assertTrue(actual.deleteFiles().length > 0, "upserts of repeated keys write delete files");
        }
      }
      List<Record> rows = readAll(name + "_ahead");
      assertEquals(multiset(readAll(name + "_one_call")), multiset(rows), kind + " rows");
      // Upserts keep the latest row per key (a key's region follows from its id).
      assertEquals(kind == Kind.UPSERT ? keys.size() : 4000, rows.size(), kind + " row count");
    }
  }

  @Test
  void decodedMessagesBelongToTheWriterThatDecodedThem() {
    Table table = table("owners", Kind.BUCKETED);
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter first = factory.newTaskWriter();
        NativeTaskWriter second = factory.newTaskWriter();
        NativeTaskWriter upserts = factory.newUpsertTaskWriter()) {
      json(rows(3, 30)).forEach(batch::add);
      try (DecodedMessages decoded = first.decode(decoder, batch, BadRecordPolicy.FAIL)) {
        assertEquals(30, decoded.stats().rows());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> second.write(decoded));
        assertTrue(e.getMessage().contains("writer that decoded them"), e.getMessage());
      }
      // Closed unwritten, the rows are freed (the allocator must end empty) and nothing was written.
      assertEquals(0, first.complete().dataFiles().length);
      try (DecodedMessages regrouped = second.decode(decoder, batch, BadRecordPolicy.FAIL)) {
        assertThrows(IllegalArgumentException.class, () -> upserts.write(regrouped));
      }
    }
  }

  @Test
  void aBadMessageFailsTheDecodeAndKeepsTheBatchesBefore() throws Exception {
    Table table = table("bad", Kind.BUCKETED);
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newTaskWriter()) {
      json(rows(4, 40)).forEach(batch::add);
      DecodedMessages good = writer.decode(decoder, batch, BadRecordPolicy.FAIL);
      batch.clear();
      batch.add("{\"id\": 1, \"region\": 7}".getBytes(StandardCharsets.UTF_8));
      BadRecordException e =
          assertThrows(BadRecordException.class, () -> writer.decode(decoder, batch, BadRecordPolicy.FAIL));
      assertTrue(e.getMessage().contains("region"), e.getMessage());
      assertEquals(40, writer.write(good).rows());
      Commits.append(table, writer.complete(), Map.of());
    }
    assertEquals(40, readAll("bad").size());
  }
}
