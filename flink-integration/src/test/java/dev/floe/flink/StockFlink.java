package dev.floe.flink;

import dev.floe.iceberg.Catalogs;
import java.util.Map;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The stock path floe is compared with and must interoperate with: Flink's {@code json}
 * deserializer (the one its {@code json} format uses by default) and Iceberg's {@code IcebergSink}.
 */
public final class StockFlink {
  private StockFlink() {}

  /** {@code source} with Flink's json deserializer for {@code schema}, SQL timestamps. */
  public static KafkaSourceBuilder<RowData> jsonValues(KafkaSourceBuilder<RowData> source, Schema schema) {
    RowType rowType = FlinkSchemaUtil.convert(schema);
    return source.setValueOnlyDeserializer(
        new JsonParserRowDataDeserializationSchema(rowType, InternalTypeInfo.of(rowType), false, false, TimestampFormat.SQL));
  }

  /** Iceberg's sink into a table of floe's embedded catalog (or any JDBC catalog {@code catalogProperties} name). */
  public static IcebergSink.Builder icebergSink(
      DataStream<RowData> rows, Map<String, String> catalogProperties, TableIdentifier table) {
    return IcebergSink.forRowData(rows).tableLoader(tableLoader(catalogProperties, table));
  }

  /** Iceberg's first Flink sink ({@code FlinkSink}, what its SQL connector uses by default). */
  public static FlinkSink.Builder flinkSink(
      DataStream<RowData> rows, Map<String, String> catalogProperties, TableIdentifier table) {
    return FlinkSink.forRowData(rows).tableLoader(tableLoader(catalogProperties, table));
  }

  private static TableLoader tableLoader(Map<String, String> catalogProperties, TableIdentifier table) {
    CatalogLoader catalogs =
        CatalogLoader.custom(
            Catalogs.EMBEDDED_NAME, catalogProperties, new org.apache.hadoop.conf.Configuration(), JdbcCatalog.class.getName());
    return TableLoader.fromCatalog(catalogs, table);
  }
}
