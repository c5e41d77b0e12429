package dev.floe.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.CharSequenceMap;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Files written for a format v2 table that is v3 by the time they are committed. Iceberg refuses
 * position-delete files in a v3 table ("Must use DVs for position deletes in V3"), also for a
 * commit already under way when the upgrade lands. A sink that can rewrite its cycle (the Kafka
 * sink re-reads it) need not convert; one that cannot -- Flink's committer, whose checkpoint holds
 * the files and whose source has moved past their records -- would fail on every restore. So the
 * position deletes are read back and written again as deletion vectors, one Puffin file, and the
 * equality deletes and data files are kept as they are.
 *
 * <p>Only deletes of the result's own data files are converted: a writer's position deletes point
 * at files it wrote in the same commit (floe's and Iceberg's writers alike), which have no
 * deletion vector in the table yet. A position delete of any other file is refused, since its
 * deletion vector would have to be merged with the one the table may hold.
 */
public final class DeletionVectorUpgrade {
  private DeletionVectorUpgrade() {}

  /**
   * {@code files} with their position-delete files replaced by deletion vectors written next to the
   * table's data (the old files stay, unreferenced, for orphan cleanup), or {@code files} itself
   * when nothing needs converting.
   *
   * @throws IllegalStateException if a position delete names a data file outside {@code files}
   */
  public static WriteResult convert(Table table, WriteResult files) {
    List<DeleteFile> positionDeletes = positionDeleteFiles(files);
    if (TableUtil.formatVersion(table) < 3 || positionDeletes.isEmpty()) {
      return files;
    }
    Map<String, DataFile> written = new HashMap<>();
    for (DataFile file : files.dataFiles()) {
      written.put(file.location(), file);
    }
    // One writer per conversion: a fresh operation id in the file names, so a retry never collides.
    OutputFileFactory puffins = OutputFileFactory.builderFor(table, 0, 0).format(FileFormat.PUFFIN).build();
    DVFileWriter vectors = new BaseDVFileWriter(puffins, path -> null); // none of these files has one yet
    try (vectors) {
      for (DeleteFile deletes : positionDeletes) {
        CharSequenceMap<PositionDeleteIndex> byDataFile = read(table, deletes);
        byDataFile.forEach((path, positions) -> {
          DataFile target = written.get(path.toString());
          if (target == null) {
            throw new IllegalStateException("position deletes " + deletes.location() + " name data file " + path
                + ", which this commit does not add: table " + table.name() + " is format v"
                + TableUtil.formatVersion(table) + " now, and deletes of a file it holds cannot be converted to"
                + " deletion vectors here");
          }
          vectors.delete(target.location(), positions, table.specs().get(target.specId()), target.partition());
        });
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the deletion vectors of table " + table.name(), e);
    }
    DeleteWriteResult converted = vectors.result();
    WriteResult.Builder out = WriteResult.builder().addDataFiles(files.dataFiles());
    for (DeleteFile file : files.deleteFiles()) {
      if (!positionDeletes.contains(file)) {
        out.addDeleteFiles(file);
      }
    }
    out.addDeleteFiles(converted.deleteFiles());
    out.addReferencedDataFiles(files.referencedDataFiles());
    out.addReferencedDataFiles(converted.referencedDataFiles());
    out.addRewrittenDeleteFiles(files.rewrittenDeleteFiles());
    return out.build();
  }

  private static List<DeleteFile> positionDeleteFiles(WriteResult files) {
    List<DeleteFile> out = new ArrayList<>();
    for (DeleteFile file : files.deleteFiles()) {
      if (file.content() == FileContent.POSITION_DELETES && !ContentFileUtil.isDV(file)) {
        out.add(file);
      }
    }
    return out;
  }

  /**
   * A position-delete file's positions by the data file they delete from, in whichever format it
   * was written (floe's are Parquet; Iceberg's sink follows {@code write.delete.format.default}).
   */
  private static CharSequenceMap<PositionDeleteIndex> read(Table table, DeleteFile deletes) {
    CloseableIterable<Record> rows = FormatModelRegistry.<Record, Object>readBuilder(
            deletes.format(), Record.class, table.io().newInputFile(deletes.location()))
        .project(DeleteSchemaUtil.pathPosSchema())
        .build();
    return Deletes.toPositionIndexes(rows, deletes); // closes rows
  }
}
