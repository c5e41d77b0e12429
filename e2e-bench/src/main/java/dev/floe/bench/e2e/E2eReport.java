package dev.floe.bench.e2e;

import java.util.List;
import java.util.Map;

/**
 * Everything one driver run found, as {@link ReportWriter} writes it (JSON, markdown, chart).
 *
 * @param label the run's label (e.g. reduced scale, shared machine), or null
 * @param started when the run started (ISO-8601 UTC)
 * @param wallSeconds how long the whole run took
 * @param environment JVM, OS, cores, memory, load averages
 * @param settings the options that shape the figures
 * @param topics the loaded corpora
 * @param contenders contender id -> what runs
 * @param runs every run, warmups included, in the order they ran
 * @param summaries medians and ranges of the measured runs per corpus and contender
 * @param memory floe's heap and RSS in a child JVM, or null if not run
 * @param notes anything else the reader needs (left-out contenders, caveats)
 */
public record E2eReport(
    String label,
    String started,
    double wallSeconds,
    Map<String, Object> environment,
    Map<String, Object> settings,
    List<Topic> topics,
    Map<String, String> contenders,
    List<RunResult> runs,
    List<Summary> summaries,
    MemoryProfile memory,
    List<String> notes) {

  /** A loaded corpus as the report describes it. */
  public record Topic(String corpus, String topic, int partitions, long events, long payloadBytes,
      double averageMessageBytes, double loadSeconds, String compression) {}

  public Summary summary(String corpus, String contender) {
    return summaries.stream()
        .filter(s -> s.corpus().equals(corpus) && s.contender().equals(contender))
        .findFirst()
        .orElse(null);
  }

  /** True when every run, warmups included, produced exactly the corpus. */
  public boolean allValid() {
    return runs.stream().allMatch(RunResult::valid) && (memory == null || memory.valid());
  }
}
