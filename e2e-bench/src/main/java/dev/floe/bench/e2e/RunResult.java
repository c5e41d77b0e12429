package dev.floe.bench.e2e;

import java.util.Map;

/**
 * One contender run as the report lists it.
 *
 * @param corpus the corpus id
 * @param contender the contender id
 * @param round 0-based measured round, or negative for warmup rounds
 * @param seconds the measured time (see {@link Contender.Outcome#nanos()})
 * @param committedSeconds the time until every record was committed in the table
 * @param messagesPerSecond topic messages / seconds
 * @param megabytesPerSecond topic payload bytes / seconds / 10^6
 * @param valid whether the output equalled the corpus (row count and fingerprint, or counts)
 * @param failure why not, or null
 * @param note what the contender said about the run, or null
 * @param cpuSeconds core-seconds the contender's own JVM spent during the run, by thread role
 *     ({@link ThreadCpu#role}) and "total"; null for a contender in the driver's JVM (and in
 *     reports from before the accounting)
 */
public record RunResult(
    String corpus,
    String contender,
    int round,
    double seconds,
    double committedSeconds,
    double messagesPerSecond,
    double megabytesPerSecond,
    boolean valid,
    String failure,
    String note,
    Map<String, Double> cpuSeconds) {

  public boolean warmup() {
    return round < 0;
  }
}
