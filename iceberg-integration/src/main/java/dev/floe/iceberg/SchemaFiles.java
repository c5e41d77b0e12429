package dev.floe.iceberg;

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

/**
 * Iceberg schemas in Iceberg's JSON form (what {@link SchemaParser#toJson} writes), from a file or
 * text, with errors that say what and where instead of Jackson's multi-line excerpts.
 */
public final class SchemaFiles {
  private SchemaFiles() {}

  /** Reads the schema in {@code file}. */
  public static Schema read(Path file) {
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
    return parse(json, "schema " + file);
  }

  /** Parses schema JSON; {@code what} names it in errors. */
  public static Schema parse(String json, String what) {
    try {
      return SchemaParser.fromJson(json);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("cannot read " + what + ": " + reason(e));
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
    String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    return "not an Iceberg schema (" + e.getClass().getSimpleName() + ": " + message + ")";
  }
}
