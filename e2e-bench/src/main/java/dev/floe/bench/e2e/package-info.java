/**
 * The end-to-end Kafka -> Iceberg benchmark (module e2e-bench): {@link dev.floe.bench.e2e.E2eBenchmark}
 * starts a real broker, loads the Nexmark and synthetic corpora once, and runs floe's sink, a
 * stock Java sink, Apache Iceberg's Kafka Connect sink (a standalone Connect worker in its own
 * JVM) and a bare consumer into fresh 4-bucket v2 tables, checking every table against the
 * corpus; {@link dev.floe.bench.e2e.MemoryRun} measures floe's heap and RSS in a child JVM;
 * {@link dev.floe.bench.e2e.ReportWriter} writes JSON, markdown and a PNG chart: measured figures
 * and ratios, no targets.
 *
 * <pre>
 * scripts/bench-e2e --scale 0.1 --label "reduced run"   # 200k Nexmark, 1M synthetic events
 * scripts/bench-e2e --help
 * </pre>
 *
 * <p>Each contender ({@link dev.floe.bench.e2e.Contender}) only moves records and reports its
 * time; the driver creates the tables, validates them (row count and {@code TableFingerprint})
 * and computes medians and ranges. Each contender runs in a JVM of its own, kept across rounds
 * ({@link dev.floe.bench.e2e.OwnJvmContender}, {@link dev.floe.bench.e2e.ContenderChild}), so
 * that the driver's loading and validating and the other contenders stay out of its JIT profiles
 * and heap. Not an API: a benchmark.
 */
package dev.floe.bench.e2e;
