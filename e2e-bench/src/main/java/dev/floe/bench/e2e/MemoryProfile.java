package dev.floe.bench.e2e;

import java.util.List;

/**
 * floe's sink measured alone in a child JVM over the synthetic topic.
 *
 * @param corpus the corpus read
 * @param events events per pass
 * @param passes how many times the whole topic was read (into one table)
 * @param heapLimit the child's -Xmx
 * @param seconds wall time of the passes (child-side, sink created to last commit)
 * @param messagesPerSecond events x passes / seconds
 * @param peakHeapMiB the largest heap occupancy seen: before a GC (GC log) or sampled every 50 ms
 * @param gcCount collections in the GC log
 * @param heapCommittedMiB the largest committed heap in the GC log (heap the JVM took from the OS)
 * @param jvmTrackedMiB memory the JVM accounts for at the end of the run (Native Memory Tracking,
 *     committed: heap, metaspace, code, threads, GC, Unsafe allocations, ...)
 * @param peakRssMiB VmHWM at the last sample
 * @param rssSamples (seconds since launch, VmRSS MiB), every sampling period
 * @param warmupEndSeconds when warmup ended (seconds since launch): a second after the second
 *     pass started when there are several passes, else at 30% of the run
 * @param rssAfterWarmupFirstMiB VmRSS at the first sample after warmup
 * @param rssAfterWarmupMaxMiB the largest VmRSS after warmup
 * @param rssAfterWarmupLastMiB the last VmRSS sample
 * @param valid whether the table equals the corpus read {@code passes} times
 * @param failure why not, or null
 */
public record MemoryProfile(
    String corpus,
    long events,
    int passes,
    String heapLimit,
    double seconds,
    double messagesPerSecond,
    double peakHeapMiB,
    long gcCount,
    double heapCommittedMiB,
    double jvmTrackedMiB,
    double peakRssMiB,
    List<double[]> rssSamples,
    double warmupEndSeconds,
    double rssAfterWarmupFirstMiB,
    double rssAfterWarmupMaxMiB,
    double rssAfterWarmupLastMiB,
    boolean valid,
    String failure) {

  /** Growth of RSS after warmup, as a fraction of the first after-warmup sample. */
  public double rssGrowthAfterWarmup() {
    return rssAfterWarmupFirstMiB <= 0 ? Double.NaN : rssAfterWarmupMaxMiB / rssAfterWarmupFirstMiB - 1;
  }
}
