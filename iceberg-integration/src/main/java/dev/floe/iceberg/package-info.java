/**
 * Iceberg on top of floe's native writer.
 *
 * <p>{@link dev.floe.iceberg.ArrowSchemas} maps Iceberg schemas to Arrow schemas carrying field
 * ids, which is what {@code NativeJsonDecoder} and {@code NativeParquetWriter} take:
 *
 * <pre>{@code
 * org.apache.arrow.vector.types.pojo.Schema arrow = ArrowSchemas.toArrow(table.schema());
 * NativeJsonDecoder decoder = NativeJsonDecoder.create(arrow, JsonDecoderConfig.defaults());
 * }</pre>
 */
package dev.floe.iceberg;
