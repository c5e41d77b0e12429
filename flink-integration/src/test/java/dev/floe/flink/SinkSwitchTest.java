package dev.floe.flink;

import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
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
    stopWithSavepointAndResume(
        table,
        env -> StockFlink.icebergSink(throttled(rows(env)), Catalogs.embeddedProperties(warehouse), id("to_floe"))
            .uidSuffix("iceberg")
            .append(),
        env -> FloeIcebergSink.forKafkaPayloads(tableRef("to_floe")).append(throttled(payloads(env, false))));
  }

  @Test
  void fromFloesSinkToIcebergsIsExact() throws Exception {
    Table table = createTable("to_iceberg");
    stopWithSavepointAndResume(
        table,
        env -> FloeIcebergSink.forKafkaPayloads(tableRef("to_iceberg")).append(throttled(payloads(env, false))),
        env -> StockFlink.icebergSink(throttled(rows(env)), Catalogs.embeddedProperties(warehouse), id("to_iceberg"))
            .uidSuffix("iceberg")
            .append());
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
