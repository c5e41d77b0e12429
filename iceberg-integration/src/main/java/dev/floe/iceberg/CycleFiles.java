package dev.floe.iceberg;

import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.WriteResult;

/**
 * A commit cycle's files and the schemas its writers wrote them with, which its commit checks
 * against the table ({@link WrittenSchemas}).
 */
public record CycleFiles(WriteResult files, List<Schema> schemas) {
  public CycleFiles {
    schemas = List.copyOf(schemas);
  }

  /** A cycle that wrote nothing. */
  public static CycleFiles none() {
    return new CycleFiles(WriteResult.builder().build(), List.of());
  }
}
