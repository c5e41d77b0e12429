package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.NativePartitioner;
import dev.floe.arrow.PartitionedBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.deletes.DVFileWriter;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.WriteResult;

/**
 * Upserts by the table's identifier fields on a format v2+ table: every row replaces the row with
 * the same key. Like Iceberg's equality-delta writers in upsert mode, the first time this writer
 * sees a key it writes an equality delete (removing the key's row from earlier commits); when a
 * key comes again it writes a position delete for the row it wrote before (equality deletes do not
 * apply within their own commit). {@link #deleteKeys} deletes a key the same two ways, writing no
 * row.
 *
 * <p>Outside upsert mode ({@link NativeFileWriterFactory#newDeltaTaskWriter()}), as Iceberg's
 * equality-delta writers outside it, a row is inserted without an equality delete: it replaces only
 * a row of its key that this writer wrote (a position delete), and rows of earlier commits are
 * removed only by {@link #deleteKeys} or {@link #deleteRows} (a changelog's {@code UPDATE_BEFORE}
 * and {@code DELETE}). Position deletes go to a position-delete file per partition on
 * format v2 and, on format v3 (which no longer accepts those), to deletion vectors: one per data
 * file, all in one Puffin file, written by Iceberg's {@code BaseDVFileWriter}. Commit the result
 * with {@link Commits#rowDelta}; readers then see the latest row per key.
 *
 * <p>Keys are matched per row in Java from the batch's key columns (compact byte keys, one map
 * entry per distinct key and partition until {@link #complete()}, as Iceberg's writers keep one
 * per partition); the rows themselves are regrouped and encoded natively. For upserts and {@link
 * #deleteKeys}, partition source columns must be identifier fields, so that a key names its
 * partition; outside upsert mode the table may be partitioned by other columns, and {@link
 * #deleteRows} places each deleted row by its own values.
 *
 * <p>A commit cycle that schema evolution moves to a new schema continues in an upsert writer for
 * it made {@linkplain NativeFileWriterFactory#newUpsertTaskWriterAfter after} this one: a key
 * this writer wrote or deleted is handed over ({@link #handOver}) the first time the later writer
 * meets it, so the later writer neither keeps this writer's row of the key nor writes its equality
 * delete again. Not thread-safe: a commit's writers are used by one thread.
 */
final class UpsertTaskWriter implements NativeTaskWriter {
  private final NativeFileWriterFactory factory;
  private final PartitionSpec spec;
  private final NativePartitioner partitioner;
  /** Splits key batches ({@link #deleteKeys}); made on first use. */
  private NativePartitioner keyPartitioner;
  private final BufferAllocator allocator;
  private final int[] keyColumns;
  /**
   * The key's positions in {@link #keySchema} ordered by field id: keys are matched in this order,
   * so a writer continuing this one's commit matches them after the table reordered its columns.
   */
  private final int[] keyOrder;
  /** {@link #keyColumns} in {@link #keyOrder}. */
  private final int[] keyColumnsInOrder;
  /** The identifier field ids, ascending: a writer continuing this one's commit must have the same. */
  private final List<Integer> keyFieldIds;
  private final org.apache.arrow.vector.types.pojo.Schema keySchema;
  private final PartitionMap<PartitionState> partitions;
  /** Whether keys alone name partitions (the identifier fields source every partition field). */
  private final boolean keysNamePartitions;
  /** Whether a row replaces its key's row of earlier commits too (an equality delete per new key). */
  private final boolean upsert;
  /** Each new key's equality delete again, in older specs that still hold live data files. */
  private final OlderSpecDeletes olderSpecDeletes;
  /** Format v3: every partition's deleted positions, as deletion vectors; null on v2. */
  private final DVFileWriter deletionVectors;
  /** The upsert writer of the same commit this one continues (for an older schema), or null. */
  private final UpsertTaskWriter earlier;
  /**
   * Made at the first {@link #handOver}, when a later writer has taken this one's commit (and this
   * one takes no more rows): the partition of each key this writer met.
   */
  private Map<RowKeys.Key, PartitionState> handedOverFrom;
  private boolean done;

  private record FilePosition(String path, long position) {}

  /** What {@link PartitionState#written} holds for a key whose row this writer deleted (compared by identity). */
  private static final FilePosition DELETED = new FilePosition("", -1);

  /** What one partition writes: its data files and its two kinds of delete files. */
  private final class PartitionState {
    final PartitionData partition;
    final PartitionFiles data;
    /** Where this writer wrote each key's row in this partition, or {@link #DELETED}. */
    final Map<RowKeys.Key, FilePosition> written = new HashMap<>();
    /** Format v2 only (v3 deletes positions through {@link #deletionVectors}). */
    final NativePositionDeleteWriter positionDeletes;
    NativeEqualityDeleteWriter equalityDeletes;

    PartitionState(PartitionData partition) {
      this.partition = partition;
      this.data = new PartitionFiles(factory, partition, factory.targetFileSizeBytes());
      this.positionDeletes = deletionVectors == null ? factory.newPositionDeleteWriter(partition) : null;
    }

    void deletePosition(FilePosition row) {
      if (positionDeletes != null) {
        positionDeletes.delete(row.path(), row.position());
      } else {
        deletionVectors.delete(row.path(), row.position(), spec, partition);
      }
    }

    NativeEqualityDeleteWriter equalityDeletes() {
      if (equalityDeletes == null) {
        equalityDeletes = factory.newEqualityDeleteWriter(partition);
      }
      return equalityDeletes;
    }

    /**
     * Finishes the partition's data files and its delete files. If one cannot be finished, the
     * others are deleted or aborted: a failure leaves no file behind.
     */
    WriteResult complete() {
      WriteResult.Builder deletes = WriteResult.builder();
      try {
        List<DataFile> dataFiles = data.complete();
        if (equalityDeletes != null) {
          equalityDeletes.close();
          deletes.addDeleteFiles(equalityDeletes.deleteFile());
        }
        if (positionDeletes != null) {
          positionDeletes.close();
          DeleteWriteResult positions = positionDeletes.result();
          deletes.addDeleteFiles(positions.deleteFiles());
          deletes.addReferencedDataFiles(positions.referencedDataFiles());
        }
        WriteResult finished = deletes.build();
        return WriteResult.builder().addDataFiles(dataFiles).add(finished).build();
      } catch (RuntimeException | Error e) {
        data.abort(); // its finished files too
        if (equalityDeletes != null) {
          equalityDeletes.abort(); // no-op once finished: deleted below
        } // (position deletes are written at their close, which cleans up after itself)
        Commits.deleteUncommittedQuietly(factory.io(), deletes.build(), e);
        throw e;
      }
    }
  }

  /**
   * @param earlier the upsert writer of the same commit this one continues, or null; only in
   *     upsert mode, where each key's rows live in one partition
   */
  UpsertTaskWriter(NativeFileWriterFactory factory, PartitionSpec spec, List<PartitionSpec> olderSpecsWithData,
      BufferAllocator allocator, boolean upsert, UpsertTaskWriter earlier) {
    if (earlier != null && !(upsert && earlier.upsert)) {
      throw new IllegalArgumentException("only an upsert writer continues another upsert writer's commit");
    }
    if (earlier != null && earlier.done) {
      throw new IllegalStateException("the earlier writer is completed or aborted: its keys are gone, and a later"
          + " writer's equality deletes would not reach its rows (one commit): continue it while it is open");
    }
    this.factory = factory;
    this.upsert = upsert;
    this.earlier = earlier;
    this.spec = spec;
    this.partitions = new PartitionMap<>(spec, false);
    this.allocator = allocator;
    // The factory checked that the table can be written by key (NativeFileWriterFactory.keyedWritesRefusal;
    // outside upsert mode, deltaWritesRefusal).
    this.keySchema = factory.equalityDeleteArrowSchema();
    this.keyColumns = columnIndexes(factory.arrowSchema(), keySchema);
    org.apache.iceberg.Schema schema = factory.schema();
    this.keyOrder = java.util.stream.IntStream.range(0, keySchema.getFields().size()).boxed()
        .sorted(java.util.Comparator.comparingInt(i -> schema.findField(keySchema.getFields().get(i).getName()).fieldId()))
        .mapToInt(Integer::intValue).toArray();
    this.keyColumnsInOrder = inKeyOrder(keyColumns);
    this.keyFieldIds = schema.identifierFieldIds().stream().sorted().toList();
    if (earlier != null && !earlier.keyFieldIds.equals(keyFieldIds)) {
      throw new IllegalStateException("the table's identifier fields changed (field ids " + earlier.keyFieldIds + " -> "
          + keyFieldIds + ") while a commit was being written: it cannot go on by the new key; restart the writer");
    }
    this.partitioner =
        NativePartitioner.create(factory.arrowSchema(), PartitionValues.fields(spec));
    this.olderSpecDeletes = new OlderSpecDeletes(factory, olderSpecsWithData, allocator);
    this.deletionVectors = factory.usesDeletionVectors() ? factory.newDeletionVectorWriter() : null;
    this.keysNamePartitions = factory.keysNamePartitions();
  }

  private static int[] columnIndexes(
      org.apache.arrow.vector.types.pojo.Schema table, org.apache.arrow.vector.types.pojo.Schema keys) {
    int[] indexes = new int[keys.getFields().size()];
    for (int i = 0; i < indexes.length; i++) {
      Field key = keys.getFields().get(i);
      indexes[i] = table.getFields().indexOf(table.findField(key.getName()));
      if (indexes[i] < 0) {
        throw new IllegalArgumentException("identifier field '" + key.getName() + "' must be a top-level column");
      }
    }
    return indexes;
  }

  /** {@code keyPositions} (indexes in {@link #keySchema}'s order) in {@link #keyOrder}. */
  private int[] inKeyOrder(int[] keyPositions) {
    int[] ordered = new int[keyOrder.length];
    for (int i = 0; i < ordered.length; i++) {
      ordered[i] = keyPositions[keyOrder[i]];
    }
    return ordered;
  }

  @Override
  public void write(VectorSchemaRoot batch) {
    ensureTakesRows();
    RowKeys.Key[] keys = RowKeys.of(batch, keyColumnsInOrder);
    try (PartitionedBatch split = partitioner.split(batch, allocator)) {
      int[] order = split.rowOrder();
      int offset = 0;
      for (int group = 0; group < split.groupCount(); group++) {
        PartitionState state = partitions.get(split.partitions(), group, PartitionState::new);
        int rows = Math.toIntExact(split.rows(group));
        NativeDataWriter file = state.data.writer();
        String path = file.location();
        long firstPosition = file.rowCount();
        int[] newKeys = new int[rows];
        int newKeyCount = 0;
        for (int k = 0; k < rows; k++) {
          int row = order[offset + k];
          FilePosition previous = state.written.put(keys[row], new FilePosition(path, firstPosition + k));
          if (previous == null && earlier != null) {
            previous = earlier.handOver(keys[row]);
          }
          if (previous == null) {
            if (upsert) {
              newKeys[newKeyCount++] = row;
            }
          } else if (previous != DELETED) {
            state.deletePosition(previous);
          }
        }
        state.data.write(split, group);
        if (newKeyCount > 0) {
          writeEqualityDeletes(state, batch, keyColumns, newKeys, newKeyCount);
        }
        offset += rows;
      }
    }
  }

  @Override
  public void deleteKeys(VectorSchemaRoot keys) {
    ensureTakesRows();
    if (!keysNamePartitions) {
      throw new IllegalStateException("the table is partitioned by a column that is not an identifier field: a key"
          + " alone does not name its partition; delete whole rows (deleteRows)");
    }
    if (keyPartitioner == null) {
      keyPartitioner = NativePartitioner.create(keySchema, PartitionValues.fields(spec));
    }
    delete(keys, KeyRows.allColumns(keys), keyPartitioner);
  }

  @Override
  public void deleteRows(VectorSchemaRoot rows) {
    ensureTakesRows();
    if (upsert) {
      throw new UnsupportedOperationException("an upsert task writer deletes by key (deleteKeys)");
    }
    delete(rows, keyColumns, partitioner);
  }

  /**
   * Deletes the keys at {@code columns} of {@code batch}, each in the partition {@code
   * partitioner} places its row in: this writer's row of the key there by position, rows of
   * earlier commits by equality delete.
   */
  private void delete(VectorSchemaRoot batch, int[] columns, NativePartitioner partitioner) {
    RowKeys.Key[] rowKeys = RowKeys.of(batch, inKeyOrder(columns));
    try (PartitionedBatch split = partitioner.split(batch, allocator)) {
      int[] order = split.rowOrder();
      int offset = 0;
      for (int group = 0; group < split.groupCount(); group++) {
        PartitionState state = partitions.get(split.partitions(), group, PartitionState::new);
        int rows = Math.toIntExact(split.rows(group));
        int[] newKeys = new int[rows];
        int newKeyCount = 0;
        for (int k = 0; k < rows; k++) {
          int row = order[offset + k];
          FilePosition previous = state.written.put(rowKeys[row], DELETED);
          if (previous == null && earlier != null) {
            previous = earlier.handOver(rowKeys[row]);
          }
          if (previous == null) {
            newKeys[newKeyCount++] = row;
          } else if (previous != DELETED) {
            state.deletePosition(previous);
            if (!upsert) {
              // No equality delete was written for this key (its insert wrote none): a later
              // delete of it must write one, for its rows of earlier commits, as Iceberg's does.
              state.written.remove(rowKeys[row]);
            }
          }
        }
        if (newKeyCount > 0) {
          writeEqualityDeletes(state, batch, columns, newKeys, newKeyCount);
        }
        offset += rows;
      }
    }
  }

  /**
   * For the later writer of the same commit, which now takes {@code key}: deletes this writer's row
   * of the key (by position, in this writer's delete files) and forgets the key, asking the writer
   * before this one if this one never met it.
   *
   * @return {@link #DELETED} if this writer or one before it met the key (its row, if any, is
   *     deleted, and its equality delete written), or null if none did
   */
  private FilePosition handOver(RowKeys.Key key) {
    if (done) { // its keys were forgotten: the later writer would leave this writer's row live
      throw new IllegalStateException("an earlier writer of this commit was completed or aborted before a later one"
          + " took over its keys; complete the writers of a commit in order, after every write");
    }
    if (handedOverFrom == null) {
      // Each key lives in one partition (upsert mode: keys name partitions). One look-up per key
      // from now on, instead of one per partition.
      handedOverFrom = new HashMap<>();
      for (PartitionState state : partitions.values()) {
        state.written.keySet().forEach(written -> handedOverFrom.put(written, state));
      }
    }
    PartitionState state = handedOverFrom.remove(key);
    if (state != null) {
      FilePosition row = state.written.remove(key);
      if (row != DELETED) {
        state.deletePosition(row);
      }
      return DELETED;
    }
    return earlier != null ? earlier.handOver(key) : null;
  }

  /** Decodes the messages into Java Arrow (keys are read from it), then upserts them. */
  @Override
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    return write(decode(decoder, messages, policy));
  }

  /** Decodes into Java Arrow; touches only the decoder (keys are matched when written). */
  @Override
  public DecodedMessages decode(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    ensureOpen();
    return DecodedMessages.decoded(this, decoder.decode(messages, policy, allocator));
  }

  @Override
  public DecodeStats write(DecodedMessages decoded) {
    try (decoded) {
      ensureOpen();
      write(decoded.decodedRows(this).root());
      return decoded.stats();
    }
  }

  /**
   * Writes the key columns (at {@code columns} of {@code batch}) of the first {@code count} of
   * {@code rows} as equality deletes.
   */
  private void writeEqualityDeletes(
      PartitionState state, VectorSchemaRoot batch, int[] columns, int[] rows, int count) {
    try (VectorSchemaRoot keys = KeyRows.select(batch, columns, keySchema, rows, 0, count, allocator)) {
      state.equalityDeletes().write(keys);
      olderSpecDeletes.delete(keys);
    }
  }

  @Override
  public long bufferedBytes() {
    long bytes = 0;
    for (PartitionState state : partitions.values()) {
      bytes += state.data.bufferedBytes();
    }
    return bytes;
  }

  @Override
  public void flushBuffered() {
    ensureOpen();
    for (PartitionState state : partitions.values()) {
      state.data.flushBuffered();
    }
  }

  @Override
  public void encodeBuffered() {
    ensureOpen();
    partitions.values().forEach(state -> state.data.encodeHeld());
    partitions.values().forEach(state -> state.data.awaitEncoded());
  }

  @Override
  public WriteResult complete() {
    ensureOpen();
    done = true;
    WriteResult.Builder result = WriteResult.builder();
    try {
      // Every open data file's last rows are encoded at once, then the partitions are finished in parallel.
      partitions.values().forEach(state -> state.data.encodeHeld());
      ParallelCompletion.map(
              List.copyOf(partitions.values()),
              PartitionState::complete,
              files -> Commits.deleteUncommitted(factory.io(), files))
          .forEach(result::add);
      olderSpecDeletes.complete().forEach(result::addDeleteFiles);
      if (deletionVectors != null) {
        deletionVectors.close(); // writes the Puffin file, if anything was deleted
        DeleteWriteResult vectors = deletionVectors.result();
        result.addDeleteFiles(vectors.deleteFiles());
        result.addReferencedDataFiles(vectors.referencedDataFiles());
      }
    } catch (IOException e) {
      UncheckedIOException failure = new UncheckedIOException("cannot write the deletion vectors", e);
      dropFinished(result, failure);
      throw failure;
    } catch (RuntimeException | Error e) {
      dropFinished(result, e); // a partition that failed to finish cleaned up after itself (ParallelCompletion)
      throw e;
    } finally {
      forgetKeys();
      closePartitioners();
    }
    return result.build();
  }

  @Override
  public void abort() {
    if (!done) {
      done = true;
      for (PartitionState state : partitions.values()) {
        state.data.abort();
        if (state.equalityDeletes != null) {
          state.equalityDeletes.abort();
        }
      }
      olderSpecDeletes.abort();
      forgetKeys();
      closePartitioners();
    }
  }

  /**
   * A commit's files could not all be finished: the ones that were ({@code finished}) are deleted
   * and the older specs' delete files still open aborted, so the failure leaves no file behind.
   */
  private void dropFinished(WriteResult.Builder finished, Throwable failure) {
    olderSpecDeletes.abort(); // a failed complete() there deleted the ones it had finished
    Commits.deleteUncommittedQuietly(factory.io(), finished.build(), failure);
  }

  /** After the commit's files are finished or dropped: the key index is no longer needed. */
  private void forgetKeys() {
    partitions.values().forEach(state -> state.written.clear());
    if (handedOverFrom != null) {
      handedOverFrom.clear();
    }
  }

  private void closePartitioners() {
    partitioner.close();
    olderSpecDeletes.close();
    if (keyPartitioner != null) {
      keyPartitioner.close();
    }
  }

  private void ensureOpen() {
    if (done) {
      throw new IllegalStateException("the task writer is already complete or aborted");
    }
  }

  /** Before rows or deletes: open, and not handed over to a later writer (its index would go stale). */
  private void ensureTakesRows() {
    ensureOpen();
    if (handedOverFrom != null) {
      throw new IllegalStateException("the task writer's commit goes on in a later writer: write there");
    }
  }
}
