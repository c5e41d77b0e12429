package dev.floe.arrow;

import java.util.Objects;

/**
 * One field of an Iceberg partition spec, as libfloe applies it: the partition column {@code
 * name}, the {@code PARQUET:field_id} of its source column (found through structs), and the
 * transform as Iceberg spells it: {@code identity}, {@code bucket[N]}, {@code truncate[W]}, {@code
 * year}, {@code month}, {@code day}, {@code hour} or {@code void}.
 */
public record PartitionField(String name, int sourceId, String transform) {
  public PartitionField {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(transform, "transform");
  }
}
