package dev.floe.iceberg;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * One value per partition tuple (a task writer's files or per-partition state), found from a row of
 * native partition values. A lookup reads the row into one reused tuple and allocates nothing when
 * the partition is known: Iceberg's {@code PartitionData} constructor converts and prints an Avro
 * schema each time, which per group and batch cost more than reading the values. A new tuple is
 * copied (cheaply) before it is kept. Not thread-safe.
 */
final class PartitionMap<V> {
  private final PartitionSpec spec;
  private final PartitionData scratch;
  private final StructLikeWrapper probe;
  private final Map<StructLikeWrapper, V> values;

  /**
   * @param accessOrder iterate least recently looked up first (for closing the least recently
   *     written file); otherwise in order of first lookup
   */
  PartitionMap(PartitionSpec spec, boolean accessOrder) {
    this.spec = spec;
    this.scratch = new PartitionData(spec.partitionType());
    this.probe = StructLikeWrapper.forType(spec.partitionType());
    this.values = accessOrder ? new LinkedHashMap<>(16, 0.75f, true) : new LinkedHashMap<>();
  }

  /**
   * The value of row {@code row}'s partition in {@code partitionValues} (columns in spec order),
   * made by {@code create} from the partition tuple the first time; the tuple given to {@code
   * create} is the map's own and never changes.
   */
  V get(VectorSchemaRoot partitionValues, int row, Function<PartitionData, V> create) {
    PartitionValues.readInto(scratch, spec, partitionValues, row);
    V value = values.get(probe.set(scratch));
    if (value == null) {
      PartitionData kept = scratch.copy();
      value = create.apply(kept);
      values.put(StructLikeWrapper.forType(spec.partitionType()).set(kept), value);
    }
    return value;
  }

  /** Every value, in the map's iteration order (see the constructor). */
  Collection<V> values() {
    return values.values();
  }
}
