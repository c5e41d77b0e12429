/**
 * {@link dev.floe.flink.sink.FloeIcebergSink}, a Flink Sink V2 writing Iceberg through libfloe:
 * writers (native decode and encode) -> one aggregator -> a committer that commits once per
 * checkpoint under Iceberg's Flink summary keys. Ownership: each writer owns its decoder, message
 * batch, allocator and open files, and releases them in {@code close()}; files handed on at a
 * checkpoint belong to the committable from then on and are never deleted by floe.
 */
package dev.floe.flink.sink;
