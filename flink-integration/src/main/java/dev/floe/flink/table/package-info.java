/**
 * Flink SQL: {@code 'connector' = 'floe-iceberg'} ({@link dev.floe.flink.table.FloeIcebergTableFactory}),
 * Iceberg's {@code 'connector' = 'iceberg'} options on floe's sink, found by Flink's factory SPI.
 */
package dev.floe.flink.table;
