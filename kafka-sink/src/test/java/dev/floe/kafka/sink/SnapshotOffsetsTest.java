package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The offsets' JSON: topic ids round-trip, and what earlier versions stored is still read. */
class SnapshotOffsetsTest {
  private static final TopicPartition A0 = new TopicPartition("a", 0);
  private static final TopicPartition A1 = new TopicPartition("a", 1);
  private static final TopicPartition B0 = new TopicPartition("b", 0);

  @Test
  void positionsRoundTripWithTheirTopicIds() {
    Map<TopicPartition, Position> offsets =
        Map.of(A0, new Position(10, "id-a"), A1, new Position(11, "id-a"), B0, new Position(7, null));
    String json = SnapshotOffsets.toJson(offsets);
    assertEquals("{\"a\":{\"id\":\"id-a\",\"next\":{\"0\":10,\"1\":11}},\"b\":{\"next\":{\"0\":7}}}", json);
    assertEquals(offsets, SnapshotOffsets.parse(json));
  }

  @Test
  void leaderEpochsRoundTripWhereKnown() {
    Map<TopicPartition, Position> offsets = Map.of(A0, new Position(10, "id-a", 3), A1, new Position(11, "id-a"));
    String json = SnapshotOffsets.toJson(offsets);
    assertEquals("{\"a\":{\"id\":\"id-a\",\"next\":{\"0\":10,\"1\":11},\"epoch\":{\"0\":3}}}", json);
    assertEquals(offsets, SnapshotOffsets.parse(json));
  }

  @Test
  void offsetsWithoutTopicIdsFromEarlierVersionsAreRead() {
    assertEquals(Map.of(A0, new Position(10, null), B0, new Position(7, null)),
        SnapshotOffsets.parse("{\"a\":{\"0\":10},\"b\":{\"0\":7}}"));
  }

  @Test
  void aPositionMatchesItsTopicUnlessBothIdsAreKnownAndDiffer() {
    assertEquals(true, new Position(1, "x").sameTopic("x"));
    assertEquals(true, new Position(1, null).sameTopic("x"));
    assertEquals(true, new Position(1, "x").sameTopic(null));
    assertEquals(false, new Position(1, "x").sameTopic("y"));
  }
}
