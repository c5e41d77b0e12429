package dev.floe.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.Type;

/**
 * A Parquet file's footer as parquet-java reads it (a reader independent of libfloe): schema with
 * field ids, row groups, and per column chunk its codec, encodings, sizes, counts and min/max
 * statistics rendered by the column's logical type.
 */
final class ParquetFooterReport {
  private static final int VALUE_WIDTH = 40;

  private final Path file;
  private final long size;
  private final ParquetMetadata footer;

  private ParquetFooterReport(Path file, long size, ParquetMetadata footer) {
    this.file = file;
    this.size = size;
    this.footer = footer;
  }

  static ParquetFooterReport read(Path file) throws IOException {
    Path absolute = file.toAbsolutePath();
    if (Files.isDirectory(absolute)) { // a table's folder, say (helper-79): "no such file" misled
      throw new IllegalArgumentException(absolute + " is a directory, not a Parquet file (a table is inspected with"
          + " --table NAMESPACE.NAME and its catalog)");
    }
    if (!Files.isRegularFile(absolute)) {
      throw new NoSuchFileException(absolute.toString(), null, "no such file");
    }
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(absolute))) {
      return new ParquetFooterReport(absolute, Files.size(absolute), reader.getFooter());
    } catch (RuntimeException e) {
      // parquet-java names the file by its InputFile's toString(); name it by its path.
      String reason = FloeCli.oneLine(e).replaceAll("\\S*LocalInputFile@\\S+", absolute.toString());
      throw new IllegalArgumentException("cannot read Parquet footer: " + reason);
    }
  }

  private long rows() {
    return footer.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
  }

  void printText(PrintWriter out) {
    out.printf("file          %s%n", file);
    out.printf("size          %,d bytes%n", size);
    out.printf("created by    %s%n", footer.getFileMetaData().getCreatedBy());
    out.printf("rows          %,d%n", rows());
    out.printf("row groups    %,d%n", footer.getBlocks().size());
    Map<String, String> keyValues = footer.getFileMetaData().getKeyValueMetaData();
    if (!keyValues.isEmpty()) {
      out.printf("key/value     %s%n", String.join(", ", keyValues.keySet().stream().sorted().toList()));
    }
    out.println("schema (= field id)");
    for (String line : footer.getFileMetaData().getSchema().toString().strip().split("\n")) {
      out.println("  " + line);
    }
    for (BlockMetaData group : footer.getBlocks()) {
      out.printf("row group %d: %,d rows at offset %,d, %,d bytes compressed, %,d uncompressed%n",
          group.getOrdinal(), group.getRowCount(), group.getStartingPos(), group.getCompressedSize(),
          group.getTotalByteSize());
      TextTable table =
          new TextTable(
              "column", ">id", "type", "codec", "encodings", ">offset", ">compressed", ">uncompressed",
              ">values", ">nulls", "min", "max");
      for (ColumnChunkMetaData c : group.getColumns()) {
        Statistics<?> stats = c.getStatistics();
        boolean minMax = stats != null && !stats.isEmpty() && stats.hasNonNullValue();
        table.row(
            c.getPath().toDotString(),
            fieldId(c.getPrimitiveType()),
            c.getPrimitiveType().getPrimitiveTypeName(),
            c.getCodec(),
            String.join(",", c.getEncodings().stream().map(Enum::name).sorted().toList()),
            c.getStartingPos(),
            c.getTotalSize(),
            c.getTotalUncompressedSize(),
            c.getValueCount(),
            nulls(stats),
            minMax ? TextTable.cell(stats.minAsString(), VALUE_WIDTH) : null,
            minMax ? TextTable.cell(stats.maxAsString(), VALUE_WIDTH) : null);
      }
      table.print(out, "  ");
    }
    out.flush();
  }

  ObjectNode toJson(ObjectMapper mapper) {
    ObjectNode root = mapper.createObjectNode();
    root.put("file", file.toString());
    root.put("size", size);
    root.put("created_by", footer.getFileMetaData().getCreatedBy());
    root.put("rows", rows());
    root.putPOJO("key_value_metadata_keys", footer.getFileMetaData().getKeyValueMetaData().keySet().stream().sorted().toList());
    root.put("schema", footer.getFileMetaData().getSchema().toString().strip());
    ArrayNode groups = root.putArray("row_groups");
    for (BlockMetaData group : footer.getBlocks()) {
      ObjectNode g = groups.addObject();
      g.put("ordinal", group.getOrdinal());
      g.put("rows", group.getRowCount());
      g.put("offset", group.getStartingPos());
      g.put("compressed_bytes", group.getCompressedSize());
      g.put("uncompressed_bytes", group.getTotalByteSize());
      ArrayNode columns = g.putArray("columns");
      for (ColumnChunkMetaData c : group.getColumns()) {
        ObjectNode col = columns.addObject();
        col.put("path", c.getPath().toDotString());
        col.put("field_id", fieldId(c.getPrimitiveType()));
        col.put("physical_type", c.getPrimitiveType().getPrimitiveTypeName().name());
        var logical = c.getPrimitiveType().getLogicalTypeAnnotation();
        col.put("logical_type", logical == null ? null : logical.toString());
        col.put("codec", c.getCodec().name());
        col.putPOJO("encodings", c.getEncodings().stream().map(Enum::name).sorted().toList());
        col.put("offset", c.getStartingPos());
        col.put("dictionary_page_offset", c.hasDictionaryPage() ? c.getDictionaryPageOffset() : null);
        col.put("compressed_bytes", c.getTotalSize());
        col.put("uncompressed_bytes", c.getTotalUncompressedSize());
        col.put("values", c.getValueCount());
        Statistics<?> stats = c.getStatistics();
        col.put("nulls", nulls(stats));
        boolean minMax = stats != null && !stats.isEmpty() && stats.hasNonNullValue();
        col.put("min", minMax ? stats.minAsString() : null);
        col.put("max", minMax ? stats.maxAsString() : null);
      }
    }
    return root;
  }

  private static Integer fieldId(Type type) {
    return type.getId() == null ? null : type.getId().intValue();
  }

  private static Long nulls(Statistics<?> stats) {
    return stats != null && !stats.isEmpty() && stats.isNumNullsSet() ? stats.getNumNulls() : null;
  }
}
