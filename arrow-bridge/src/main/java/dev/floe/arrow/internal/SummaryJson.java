package dev.floe.arrow.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.ParquetFileSummary.ColumnChunk;
import dev.floe.arrow.ParquetFileSummary.RowGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** Reads the file summary document libfloe returns from close (summary.rs, version 1). */
public final class SummaryJson {
  /**
   * Without Jackson's 20M-character cap on a string: min/max statistics are kept whole (base64),
   * and a message's value may be up to libfloe's 16 MiB limit, so a legal string column failed the
   * whole file's close (helper-80). The document is libfloe's own, not input.
   */
  private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
      .build());
  private static final int VERSION = 1;

  private SummaryJson() {}

  public static ParquetFileSummary parse(byte[] json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("libfloe returned an unreadable file summary", e);
    }
    int version = root.path("version").asInt();
    if (version != VERSION) {
      throw new IllegalStateException("unsupported file summary version " + version);
    }
    List<RowGroup> rowGroups = new ArrayList<>();
    for (JsonNode rg : root.path("row_groups")) {
      List<ColumnChunk> columns = new ArrayList<>();
      for (JsonNode c : rg.path("columns")) {
        columns.add(column(c));
      }
      rowGroups.add(
          new RowGroup(
              rg.path("offset").asLong(),
              rg.path("num_rows").asLong(),
              rg.path("total_byte_size").asLong(),
              rg.path("compressed_size").asLong(),
              columns));
    }
    List<ParquetFileSummary.NanCount> nanCounts = new ArrayList<>();
    for (JsonNode n : root.path("nan_counts")) {
      List<String> path = new ArrayList<>();
      n.path("path").forEach(p -> path.add(p.asText()));
      nanCounts.add(
          new ParquetFileSummary.NanCount(
              path,
              n.path("field_id").isNumber() ? n.path("field_id").asInt() : null,
              n.path("count").asLong(),
              n.path("negative_zero").asBoolean(),
              n.path("positive_zero").asBoolean()));
    }
    return new ParquetFileSummary(
        root.path("num_rows").asLong(),
        root.path("file_size").asLong(),
        rowGroups,
        Base64.getDecoder().decode(root.path("footer").asText()),
        nanCounts);
  }

  private static ColumnChunk column(JsonNode c) {
    List<String> path = new ArrayList<>();
    c.path("path").forEach(p -> path.add(p.asText()));
    return new ColumnChunk(
        path,
        c.path("field_id").isNumber() ? c.path("field_id").asInt() : null,
        c.path("physical_type").asText(),
        c.path("compression").asText(),
        c.path("compressed_size").asLong(),
        c.path("uncompressed_size").asLong(),
        c.path("num_values").asLong(),
        c.path("null_count").isNumber() ? c.path("null_count").asLong() : null,
        bytes(c.path("min")),
        bytes(c.path("max")),
        c.path("min_exact").asBoolean(),
        c.path("max_exact").asBoolean());
  }

  private static byte[] bytes(JsonNode node) {
    return node.isTextual() ? Base64.getDecoder().decode(node.asText()) : null;
  }
}
