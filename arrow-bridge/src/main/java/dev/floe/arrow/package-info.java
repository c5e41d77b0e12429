/**
 * floe's Java API over libfloe.
 *
 * <p>{@link dev.floe.arrow.NativeParquetWriter} encodes Arrow {@code VectorSchemaRoot} batches
 * into a Parquet file natively and returns its footer facts ({@link
 * dev.floe.arrow.ParquetFileSummary}). Settings: {@link dev.floe.arrow.ParquetWriterConfig}.
 * Native failures are {@link dev.floe.arrow.NativeException}s, by code.
 *
 * <pre>{@code
 * try (BufferAllocator allocator = new RootAllocator();
 *     NativeParquetWriter writer = NativeParquetWriter.open(
 *         Path.of("out.parquet"), root.getSchema(), ParquetWriterConfig.defaults(), allocator)) {
 *   writer.write(root);
 *   ParquetFileSummary summary = writer.finish();
 * }
 * }</pre>
 *
 * <p>Processes using it need {@code --enable-native-access=ALL-UNNAMED} and {@code
 * --add-opens=java.base/java.nio=ALL-UNNAMED} (Arrow's C Data export).
 */
package dev.floe.arrow;
