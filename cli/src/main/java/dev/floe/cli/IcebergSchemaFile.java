package dev.floe.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/** Reads an Iceberg schema in Iceberg's JSON form (what {@link SchemaParser#toJson} writes). */
final class IcebergSchemaFile {
  private IcebergSchemaFile() {}

  static Schema read(Path file) {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("schema not found: " + file);
    } catch (MalformedInputException e) {
      throw new IllegalArgumentException("cannot read schema " + file + ": not UTF-8 text");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read schema " + file, e);
    }
    try {
      return SchemaParser.fromJson(json);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("cannot read schema " + file + ": " + reason(e));
    }
  }

  /** Jackson's messages run over several lines with source excerpts; keep what and where. */
  private static String reason(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof JsonProcessingException json) {
        JsonLocation at = json.getLocation();
        return "invalid JSON" + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr())
            + ": " + json.getOriginalMessage().lines().findFirst().orElse("").replaceFirst("\\s*\\([^()]*\\[Source:.*$", "");
      }
    }
    return "not an Iceberg schema (" + FloeCli.oneLine(e) + ")";
  }
}
