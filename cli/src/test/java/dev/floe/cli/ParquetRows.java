package dev.floe.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/** Reads a file of {@link TestRows#SCHEMA} back with parquet-java, into the comparable row form. */
final class ParquetRows {
  private ParquetRows() {}

  static List<List<Object>> read(Path file) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records =
            new ColumnIOFactory().getColumnIO(schema).getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          rows.add(row(records.read()));
        }
      }
    }
    return rows;
  }

  private static List<Object> row(Group g) {
    return Arrays.asList(
        g.getLong("id", 0),
        has(g, "name") ? g.getString("name", 0) : null,
        has(g, "qty") ? g.getInteger("qty", 0) : null,
        has(g, "score") ? g.getDouble("score", 0) : null,
        has(g, "ok") ? g.getBoolean("ok", 0) : null,
        has(g, "day") ? LocalDate.ofEpochDay(g.getInteger("day", 0)) : null,
        has(g, "ts") ? micros(g.getLong("ts", 0)) : null,
        has(g, "tags") ? tags(g.getGroup("tags", 0)) : null,
        has(g, "loc") ? loc(g.getGroup("loc", 0)) : null);
  }

  private static boolean has(Group g, String field) {
    return g.getFieldRepetitionCount(field) > 0;
  }

  private static Instant micros(long micros) {
    return Instant.EPOCH.plusNanos(Math.multiplyExact(micros, 1000L));
  }

  /** The three-level LIST layout: tags -> repeated list -> optional element. */
  private static List<Object> tags(Group tags) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < tags.getFieldRepetitionCount("list"); i++) {
      Group entry = tags.getGroup("list", i);
      out.add(has(entry, "element") ? entry.getString("element", 0) : null);
    }
    return out;
  }

  private static List<Object> loc(Group loc) {
    return Arrays.asList(loc.getDouble("lat", 0), has(loc, "city") ? loc.getString("city", 0) : null);
  }
}
