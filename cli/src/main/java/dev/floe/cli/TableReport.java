package dev.floe.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;

/**
 * An Iceberg table as its metadata describes it: schema, partitioning, properties, snapshots with
 * their summaries, and the current snapshot's data files with partition, record count, size and
 * per-column metrics (value / null / NaN counts, lower / upper bounds decoded with Iceberg's
 * {@link Conversions}).
 */
final class TableReport {
  private static final int VALUE_WIDTH = 40;

  private final String name;
  private final Table table;
  private final List<DataFile> files;
  private final int maxFiles;

  private TableReport(String name, Table table, List<DataFile> files, int maxFiles) {
    this.name = name;
    this.table = table;
    this.files = files;
    this.maxFiles = maxFiles;
  }

  /** Reads the table's metadata and the current snapshot's data files (with column stats). */
  static TableReport read(String name, Table table, int maxFiles) {
    List<DataFile> files = new ArrayList<>();
    if (table.currentSnapshot() != null) {
      try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
        tasks.forEach(t -> files.add(t.file().copy()));
      } catch (IOException e) {
        throw new UncheckedIOException("listing data files of " + name, e);
      }
    }
    files.sort((a, b) -> a.location().compareTo(b.location()));
    return new TableReport(name, table, files, maxFiles);
  }

  private int formatVersion() {
    return table instanceof HasTableOperations ops ? ops.operations().current().formatVersion() : -1;
  }

  void printText(PrintWriter out) {
    Snapshot current = table.currentSnapshot();
    out.printf("table         %s%n", name);
    out.printf("location      %s%n", table.location());
    out.printf("format        v%d%n", formatVersion());
    out.printf("current       %s%n", current == null ? "no snapshot" : "snapshot " + current.snapshotId());
    out.printf("partitioning  %s%n", describe(table.spec()));
    out.println("schema");
    for (String line : table.schema().toString().strip().split("\n")) {
      out.println("  " + line);
    }
    out.println("properties");
    new TreeMap<>(table.properties()).forEach((k, v) -> out.printf("  %s=%s%n", k, v));
    out.println("snapshots");
    for (Snapshot s : table.snapshots()) {
      out.printf("  %d  %s  %s  parent %s%n", s.snapshotId(), Instant.ofEpochMilli(s.timestampMillis()),
          s.operation(), s.parentId() == null ? "none" : s.parentId());
      new TreeMap<>(s.summary()).forEach((k, v) -> out.printf("    %s=%s%n", k, v));
    }
    long records = files.stream().mapToLong(DataFile::recordCount).sum();
    long bytes = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    out.printf("data files    %,d, %,d records, %,d bytes%n", files.size(), records, bytes);
    for (DataFile file : files.subList(0, Math.min(files.size(), maxFiles))) {
      out.printf("  %s%n", relative(file.location()));
      PartitionSpec spec = table.specs().get(file.specId());
      if (spec.isPartitioned()) {
        out.printf("    partition  %s%n", spec.partitionToPath(file.partition()));
      }
      out.printf("    records    %,d%n", file.recordCount());
      out.printf("    size       %,d bytes%n", file.fileSizeInBytes());
      if (file.splitOffsets() != null) {
        out.printf("    splits     %s%n", file.splitOffsets());
      }
      TextTable metrics =
          new TextTable("column", ">id", ">size", ">values", ">nulls", ">nans", "lower", "upper");
      for (int id : columnIds(file)) {
        metrics.row(
            table.schema().findColumnName(id),
            id,
            get(file.columnSizes(), id),
            get(file.valueCounts(), id),
            get(file.nullValueCounts(), id),
            get(file.nanValueCounts(), id),
            TextTable.cell(bound(id, file.lowerBounds()), VALUE_WIDTH),
            TextTable.cell(bound(id, file.upperBounds()), VALUE_WIDTH));
      }
      metrics.print(out, "    ");
    }
    if (files.size() > maxFiles) {
      out.printf("  ... %,d more files (--max-files)%n", files.size() - maxFiles);
    }
    out.flush();
  }

  ObjectNode toJson(ObjectMapper mapper) {
    ObjectNode root = mapper.createObjectNode();
    Snapshot current = table.currentSnapshot();
    root.put("table", name);
    root.put("location", table.location());
    root.put("format_version", formatVersion());
    root.put("current_snapshot_id", current == null ? null : current.snapshotId());
    root.put("partitioning", describe(table.spec()));
    root.put("schema", table.schema().toString().strip());
    root.putPOJO("properties", new TreeMap<>(table.properties()));
    ArrayNode snapshots = root.putArray("snapshots");
    for (Snapshot s : table.snapshots()) {
      ObjectNode node = snapshots.addObject();
      node.put("snapshot_id", s.snapshotId());
      node.put("parent_id", s.parentId());
      node.put("timestamp", Instant.ofEpochMilli(s.timestampMillis()).toString());
      node.put("operation", s.operation());
      node.putPOJO("summary", new TreeMap<>(s.summary()));
    }
    ArrayNode dataFiles = root.putArray("data_files");
    for (DataFile file : files.subList(0, Math.min(files.size(), maxFiles))) {
      ObjectNode node = dataFiles.addObject();
      node.put("location", file.location());
      PartitionSpec spec = table.specs().get(file.specId());
      node.put("spec_id", file.specId());
      node.put("partition", spec.isPartitioned() ? spec.partitionToPath(file.partition()) : null);
      node.put("records", file.recordCount());
      node.put("size", file.fileSizeInBytes());
      node.putPOJO("split_offsets", file.splitOffsets());
      ArrayNode columns = node.putArray("columns");
      for (int id : columnIds(file)) {
        ObjectNode col = columns.addObject();
        col.put("column", table.schema().findColumnName(id));
        col.put("id", id);
        col.put("size", get(file.columnSizes(), id));
        col.put("values", get(file.valueCounts(), id));
        col.put("nulls", get(file.nullValueCounts(), id));
        col.put("nans", get(file.nanValueCounts(), id));
        col.put("lower", bound(id, file.lowerBounds()));
        col.put("upper", bound(id, file.upperBounds()));
      }
    }
    root.put("data_files_omitted", Math.max(0, files.size() - maxFiles));
    return root;
  }

  private static String describe(PartitionSpec spec) {
    if (spec.isUnpartitioned()) {
      return "none";
    }
    return String.join(", ", spec.fields().stream()
        .map(f -> f.name() + "=" + f.transform() + "(" + spec.schema().findColumnName(f.sourceId()) + ")")
        .toList());
  }

  private String relative(String location) {
    String base = table.location().endsWith("/") ? table.location() : table.location() + "/";
    return location.startsWith(base) ? location.substring(base.length()) : location;
  }

  /** The ids any metric mentions, in id order. */
  private static TreeSet<Integer> columnIds(DataFile file) {
    TreeSet<Integer> ids = new TreeSet<>();
    for (Map<Integer, ?> metric :
        Arrays.<Map<Integer, ?>>asList(
            file.columnSizes(), file.valueCounts(), file.nullValueCounts(), file.nanValueCounts(),
            file.lowerBounds(), file.upperBounds())) {
      if (metric != null) {
        ids.addAll(metric.keySet());
      }
    }
    return ids;
  }

  private static Long get(Map<Integer, Long> metric, int id) {
    return metric == null ? null : metric.get(id);
  }

  /** A bound as Iceberg prints values (dates, timestamps, base64 for binary), or null. */
  private String bound(int id, Map<Integer, ByteBuffer> bounds) {
    if (bounds == null || !bounds.containsKey(id)) {
      return null;
    }
    Type type = table.schema().findType(id);
    if (type == null || !type.isPrimitiveType()) {
      return null;
    }
    Object value = Conversions.fromByteBuffer(type, bounds.get(id));
    return human(type, value);
  }

  @SuppressWarnings("unchecked")
  private static <T> String human(Type type, Object value) {
    return Transforms.<T>identity().toHumanString(type, (T) value);
  }
}
