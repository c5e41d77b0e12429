package dev.floe.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.bench.TableWrites.WriteMode;
import dev.floe.bench.corpus.NexmarkBidStream;
import dev.floe.bench.stock.JacksonRecordDecoder;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.DateTimeUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The measured paths of {@link TableWriteBenchmark} leave the same table: every bid for
 * appends, the last bid per (auction, bidder) for upserts -- read back with Iceberg's generic
 * reader and compared exactly with rows built from the generator's bids, and with the same
 * numbers of files, rows and deletes in the snapshot. Also checks that {@link BidRows}
 * of the read-back rows equals the one the benchmark expects from the bids.
 */
class TableWritesMatchIcebergJavaTest {
  private static final int BIDS = 20_000;

  @TempDir Path temp;
  private BidWarehouse warehouse;
  private BufferAllocator allocator;
  private List<NexmarkEvent.Bid> bids;
  private List<byte[]> messages;

  @BeforeEach
  void setUp() {
    warehouse = BidWarehouse.create(temp);
    allocator = new RootAllocator();
    bids = NexmarkBidStream.bids(3, BIDS);
    messages = NexmarkBidStream.messages(bids);
  }

  @AfterEach
  void tearDown() throws Exception {
    allocator.close();
    warehouse.close();
  }

  @Test
  void appendsHoldEveryBid() throws IOException {
    Map<Record, Integer> expected = multiset(rowsOf(bids));
    assertEquals(BIDS, size(expected), "rows in the expected multiset");
    assertEveryPathWrites(WriteMode.APPEND, expected, BidRows.appended(bids));
  }

  @Test
  void upsertsHoldTheLastBidPerKey() throws IOException {
    Map<List<Long>, NexmarkEvent.Bid> latest = new LinkedHashMap<>();
    for (NexmarkEvent.Bid bid : bids) {
      latest.put(List.of(bid.auction(), bid.bidder()), bid);
    }
    // Both delete kinds must be exercised: many bids repeat a key (hot auctions and bidders).
    assertTrue(BIDS - latest.size() > BIDS / 4, "distinct keys " + latest.size());
    assertEquals(latest.size(), BidRows.distinctKeys(bids));
    Map<Record, Integer> expected = multiset(rowsOf(latest.values()));
    assertEveryPathWrites(WriteMode.UPSERT, expected, BidRows.upserted(bids));
  }

  private void assertEveryPathWrites(
      WriteMode mode, Map<Record, Integer> expected, TableFingerprint fingerprint) throws IOException {
    Table floe = warehouse.newBidTable("floe");
    Table floeAhead = warehouse.newBidTable("floe_ahead");
    Table java = warehouse.newBidTable("java");
    Table javaRecords = warehouse.newBidTable("java_records");
    List<Record> decoded = new ArrayList<>();
    JacksonRecordDecoder jackson = new JacksonRecordDecoder(NexmarkBidStream.SCHEMA);
    for (byte[] message : messages) {
      decoded.add(jackson.decode(message));
    }

    Snapshot floeSnapshot = TableWrites.floe(floe, mode, messages, allocator, 2);
    Snapshot aheadSnapshot = TableWrites.floeDecodeAhead(floeAhead, mode, messages, allocator);
    Snapshot javaSnapshot = TableWrites.icebergJava(java, mode, messages);
    Snapshot recordsSnapshot = TableWrites.icebergJavaFromRecords(javaRecords, mode, decoded);

    for (String name : List.of("floe", "floe_ahead", "java", "java_records")) {
      List<Record> rows = readAll(name);
      assertSameRows(expected, multiset(rows), name + " " + mode);
      assertEquals(fingerprint, TableFingerprint.ofRecords(rows, 7), name + " " + mode);
    }
    assertEquals(counts(javaSnapshot), counts(floeSnapshot), "files, rows and deletes of " + mode);
    assertEquals(counts(javaSnapshot), counts(aheadSnapshot), "files, rows and deletes of " + mode);
    assertEquals(counts(javaSnapshot), counts(recordsSnapshot), "files, rows and deletes of " + mode);
    assertEquals(4, Integer.parseInt(floeSnapshot.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP)));
  }

  /** Equal multisets, or a failure that says how many rows are missing and unexpected. */
  private static void assertSameRows(
      Map<Record, Integer> expected, Map<Record, Integer> actual, String where) {
    if (expected.equals(actual)) {
      return;
    }
    List<String> missing = difference(expected, actual);
    List<String> unexpected = difference(actual, expected);
    fail(
        where + ": expected " + size(expected) + " rows, read " + size(actual) + "; "
            + missing.size() + " missing, e.g. " + missing.subList(0, Math.min(3, missing.size()))
            + "; " + unexpected.size() + " unexpected, e.g. "
            + unexpected.subList(0, Math.min(3, unexpected.size())));
  }

  /** Rows (with multiplicity) of {@code a} that {@code b} lacks. */
  private static List<String> difference(Map<Record, Integer> a, Map<Record, Integer> b) {
    List<String> out = new ArrayList<>();
    a.forEach(
        (row, n) -> {
          for (int i = b.getOrDefault(row, 0); i < n; i++) {
            out.add(row.toString());
          }
        });
    return out;
  }

  private List<Record> readAll(String name) throws IOException {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(warehouse.load(name)).build()) {
      // Only the table's columns: a read that applies position deletes may carry _pos after them.
      for (Record r : rows) {
        GenericRecord row = GenericRecord.create(NexmarkBidStream.SCHEMA);
        for (int i = 0; i < row.size(); i++) {
          row.set(i, r.get(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  private static Map<String, String> counts(Snapshot snapshot) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String key :
        List.of(
            SnapshotSummary.TOTAL_DATA_FILES_PROP,
            SnapshotSummary.TOTAL_DELETE_FILES_PROP,
            SnapshotSummary.TOTAL_RECORDS_PROP,
            SnapshotSummary.TOTAL_EQ_DELETES_PROP,
            SnapshotSummary.TOTAL_POS_DELETES_PROP)) {
      out.put(key, snapshot.summary().get(key));
    }
    return out;
  }

  private static Map<Record, Integer> multiset(List<Record> rows) {
    Map<Record, Integer> counts = new HashMap<>();
    for (Record row : rows) {
      counts.merge(row, 1, Integer::sum);
    }
    return counts;
  }

  /** The generator's bids as the rows a bids table holds. */
  private static List<Record> rowsOf(Collection<NexmarkEvent.Bid> bids) {
    List<Record> out = new ArrayList<>(bids.size());
    bids.forEach(bid -> out.add(record(bid)));
    return out;
  }

  private static Record record(NexmarkEvent.Bid bid) {
    GenericRecord r = GenericRecord.create(NexmarkBidStream.SCHEMA);
    r.setField("auction", bid.auction());
    r.setField("bidder", bid.bidder());
    r.setField("price", bid.price());
    r.setField("channel", bid.channel());
    r.setField("url", bid.url());
    r.setField("dateTime", DateTimeUtil.timestampFromMicros(bid.dateTime() * 1000));
    r.setField("extra", bid.extra());
    return r;
  }

  private static int size(Map<Record, Integer> multiset) {
    return multiset.values().stream().mapToInt(Integer::intValue).sum();
  }
}
