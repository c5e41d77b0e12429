package dev.floe.cli;

import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Nexmark bids as Arrow batches: the columns of query q0 plus channel and url, with field ids. */
final class BidBatches {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              field("auction", 1, false, new ArrowType.Int(64, true)),
              field("bidder", 2, false, new ArrowType.Int(64, true)),
              field("price", 3, false, new ArrowType.Int(64, true)),
              field("channel", 4, true, ArrowType.Utf8.INSTANCE),
              field("url", 5, true, ArrowType.Utf8.INSTANCE),
              field("dateTime", 6, false, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
              field("extra", 7, true, ArrowType.Utf8.INSTANCE)));

  private final NexmarkGenerator generator;
  private final VectorSchemaRoot root;

  BidBatches(long seed, BufferAllocator allocator) {
    this.generator = new NexmarkGenerator(seed);
    this.root = VectorSchemaRoot.create(SCHEMA, allocator);
  }

  private static Field field(String name, int id, boolean nullable, ArrowType type) {
    return new Field(
        name, new FieldType(nullable, type, null, Map.of("PARQUET:field_id", Integer.toString(id))), null);
  }

  /** Refills the shared root with the next {@code rows} bids and returns it. */
  VectorSchemaRoot next(int rows) {
    root.clear();
    BigIntVector auction = (BigIntVector) root.getVector(0);
    BigIntVector bidder = (BigIntVector) root.getVector(1);
    BigIntVector price = (BigIntVector) root.getVector(2);
    VarCharVector channel = (VarCharVector) root.getVector(3);
    VarCharVector url = (VarCharVector) root.getVector(4);
    TimeStampMicroVector dateTime = (TimeStampMicroVector) root.getVector(5);
    VarCharVector extra = (VarCharVector) root.getVector(6);
    int row = 0;
    while (row < rows) {
      if (generator.next() instanceof NexmarkEvent.Bid bid) {
        auction.setSafe(row, bid.auction());
        bidder.setSafe(row, bid.bidder());
        price.setSafe(row, bid.price());
        channel.setSafe(row, bid.channel().getBytes(StandardCharsets.UTF_8));
        url.setSafe(row, bid.url().getBytes(StandardCharsets.UTF_8));
        dateTime.setSafe(row, bid.dateTime() * 1000);
        extra.setSafe(row, bid.extra().getBytes(StandardCharsets.UTF_8));
        row++;
      }
    }
    root.setRowCount(rows);
    return root;
  }

  void close() {
    root.close();
  }
}
