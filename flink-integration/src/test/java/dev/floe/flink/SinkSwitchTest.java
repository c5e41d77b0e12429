package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import dev.floe.testing.TableFingerprint;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * A job moves a table between Iceberg's Flink sink and floe's: stopped with a savepoint, started
 * again from it with the other sink (the Kafka source's offsets restore; the old sink's state is
 * left behind, as it must be). Neither direction may lose or repeat a row.
 */
class SinkSwitchTest extends FlinkJobsOnKafka {

  @Test
  void fromIcebergsSinkToFloesIsExact() throws Exception {
    Table table = createTable("to_floe");
    switchSinks(
        table,
        env -> StockFlink.icebergSink(throttled(rows(env)), Catalogs.embeddedProperties(warehouse), id("to_floe"))
            .uidSuffix("iceberg")
            .append(),
        env -> FloeIcebergSink.forKafkaPayloads(tableRef("to_floe")).append(throttled(payloads(env, false))));
  }

  @Test
  void fromFloesSinkToIcebergsIsExact() throws Exception {
    Table table = createTable("to_iceberg");
    switchSinks(
        table,
        env -> FloeIcebergSink.forKafkaPayloads(tableRef("to_iceberg")).append(throttled(payloads(env, false))),
        env -> StockFlink.icebergSink(throttled(rows(env)), Catalogs.embeddedProperties(warehouse), id("to_iceberg"))
            .uidSuffix("iceberg")
            .append());
  }

  private interface Job {
    void build(StreamExecutionEnvironment env);
  }

  private static void switchSinks(Table table, Job before, Job after) throws Exception {
    Throttle.SLOW.set(true);
    StreamExecutionEnvironment first = environment(0);
    before.build(first);
    JobClient job1 = first.executeAsync("before the switch");
    awaitRows(table, 1, Duration.ofSeconds(60));
    String savepoint =
        job1.stopWithSavepoint(false, warehouse.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get(60, TimeUnit.SECONDS);
    table.refresh();
    long rowsAtSwitch = TableFingerprint.of(table).rows();
    assertTrue(rowsAtSwitch > 0 && rowsAtSwitch < EVENTS, "switched part-way: " + rowsAtSwitch);

    Throttle.SLOW.set(false);
    Configuration resume = new Configuration();
    resume.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    resume.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true); // the old sink's state
    StreamExecutionEnvironment second = environment(0, resume);
    after.build(second);
    JobClient job2 = second.executeAsync("after the switch");
    try {
      awaitRows(table, EVENTS, Duration.ofSeconds(120));
      Thread.sleep(1_000); // a few more checkpoints: a row committed twice would show now
      table.refresh();
      assertEquals(expected(), TableFingerprint.of(table));
    } finally {
      job2.cancel().get(60, TimeUnit.SECONDS);
    }
  }

  /** The events as Flink's json deserializer reads them. */
  private static DataStream<RowData> rows(StreamExecutionEnvironment env) {
    var source = StockFlink.jsonValues(FlinkJobsOnKafka.<RowData>source("events", false), NEXMARK).build();
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), "events").uid("events");
  }

  private static TableIdentifier id(String name) {
    return TableIdentifier.of("nexmark", name);
  }
}
