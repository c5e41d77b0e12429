package dev.floe.flink;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * Passes records through, counting them into the accumulator {@value #NAME}: how a job that
 * writes nothing (a benchmark's floor) is still checked against its input.
 */
public final class CountRecords<T> extends RichMapFunction<T, T> {
  public static final String NAME = "records";
  private final LongCounter records = new LongCounter();

  @Override
  public void open(OpenContext context) {
    getRuntimeContext().addAccumulator(NAME, records);
  }

  @Override
  public T map(T record) {
    records.add(1);
    return record;
  }
}
