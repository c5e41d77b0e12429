/**
 * {@code 'format' = 'floe-json'}: Flink's {@code json} format, decoded natively. {@link
 * dev.floe.flink.format.FloeJsonFormatFactory} for SQL (found by Flink's factory SPI), {@link
 * dev.floe.flink.format.FloeJsonRowDataDeserializationSchema} for the DataStream API. Exact or
 * fallback: libfloe decodes a message only when its row is certainly the one Flink's format
 * makes, and hands every other message to Flink's own decoder.
 */
package dev.floe.flink.format;
