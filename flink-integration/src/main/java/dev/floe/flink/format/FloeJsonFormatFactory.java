package dev.floe.flink.format;

import java.util.Arrays;
import java.util.Set;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatFactory;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonFormatOptionsUtil;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.format.ProjectableDecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'format' = 'floe-json'}: Flink's {@code json} format with native decoding. Options,
 * validation, rows and errors are the {@code json} format's (this factory hands them to Flink's
 * {@link JsonFormatFactory}), so a table switches by changing the format's name: {@code
 * fail-on-missing-field}, {@code ignore-parse-errors}, {@code timestamp-format.standard}, {@code
 * map-null-key.*}, {@code encode.*}, {@code decode.json-parser.enabled}. Writing (a Kafka sink
 * table) is Flink's {@code json} encoder itself.
 *
 * <p>Native decoding applies to Flink's parser-based decoder ({@code decode.json-parser.enabled},
 * the default) over top-level field projections; nested projections and types the native
 * decoder leaves to Flink (MULTISET, INTERVAL, RAW) decode in Flink alone, with the same result.
 */
public final class FloeJsonFormatFactory implements DeserializationFormatFactory, SerializationFormatFactory {
  public static final String IDENTIFIER = "floe-json";

  private final JsonFormatFactory json = new JsonFormatFactory();

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return json.requiredOptions();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return json.optionalOptions();
  }

  @Override
  public Set<ConfigOption<?>> forwardOptions() {
    return json.forwardOptions();
  }

  @Override
  public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
      DynamicTableFactory.Context context, ReadableConfig formatOptions) {
    // Flink's own format validates the options and decodes what the native decoder leaves.
    DecodingFormat<DeserializationSchema<RowData>> flink = json.createDecodingFormat(context, formatOptions);
    boolean failOnMissingField = formatOptions.get(JsonFormatOptions.FAIL_ON_MISSING_FIELD);
    boolean parserDecoder = formatOptions.get(JsonFormatOptions.DECODE_JSON_PARSER_ENABLED);
    TimestampFormat timestamps = JsonFormatOptionsUtil.getTimestampFormat(formatOptions);
    return new ProjectableDecodingFormat<>() {
      @Override
      public DeserializationSchema<RowData> createRuntimeDecoder(
          DynamicTableSource.Context context, DataType physicalDataType, int[][] projections) {
        DeserializationSchema<RowData> fallback =
            ((ProjectableDecodingFormat<DeserializationSchema<RowData>>) flink)
                .createRuntimeDecoder(context, physicalDataType, projections);
        DataType produced = Projection.of(projections).project(physicalDataType);
        boolean topLevelOnly = Arrays.stream(projections).allMatch(path -> path.length == 1);
        return new FloeJsonRowDataDeserializationSchema(
            (RowType) produced.getLogicalType(),
            context.createTypeInformation(produced),
            failOnMissingField,
            timestamps,
            fallback,
            parserDecoder && topLevelOnly);
      }

      @Override
      public boolean supportsNestedProjection() {
        return ((ProjectableDecodingFormat<?>) flink).supportsNestedProjection();
      }

      @Override
      public ChangelogMode getChangelogMode() {
        return flink.getChangelogMode();
      }
    };
  }

  @Override
  public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
      DynamicTableFactory.Context context, ReadableConfig formatOptions) {
    return json.createEncodingFormat(context, formatOptions);
  }
}
