package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * A transform that renames the records' topic (Connect's RegexRouter) before the task sees them:
 * the task keeps, stores and reports offsets by the partition the records were read from, which
 * is what Connect's consumer commits and seeks. Keyed by the renamed topic, preCommit reported
 * nothing Connect owned, and a restarted task had nothing to resume from.
 */
class TaskTransformedTopicTest extends InJvmTaskTest {
  @Test
  void offsetsFollowTheTopicTheRecordsWereReadFrom() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "renamed");
    Map<String, String> config = InJvmTasks.config("renamed", warehouse(), id, 10);

    run(config, 10, renamed(0, 10)); // committed once preCommit reports TP, the partition Connect owns
    assertEquals(List.of(Map.of(TP, 10L)), run(config, 20, renamed(10, 20)), "resumes the partition it read from");
    assertEquals(ids(0, 20), ids(catalog.loadTable(id)));
  }

  /** Records {@code from..to-1} of {@link InJvmTasks#TP}, their topic renamed by a transform. */
  private static List<SinkRecord> renamed(long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      byte[] value = ("{\"id\":" + offset + ",\"name\":\"n" + offset + "\"}").getBytes(StandardCharsets.UTF_8);
      out.add(new SinkRecord(TP.topic() + "-renamed", TP.partition(), null, null, null, value, offset, null,
          TimestampType.NO_TIMESTAMP_TYPE, null, TP.topic(), TP.partition(), offset));
    }
    return out;
  }
}
