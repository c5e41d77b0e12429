package dev.floe.arrow;

import dev.floe.arrow.internal.ExportedRoots;
import dev.floe.arrow.internal.ExportedSchemas;
import dev.floe.arrow.internal.OutputStreamSink;
import dev.floe.arrow.internal.SummaryJson;
import dev.floe.ffm.NativeLibrary;
import dev.floe.ffm.internal.floe_h;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes Arrow batches of one schema into one Parquet file, encoded natively by libfloe.
 *
 * <pre>{@code
 * try (NativeParquetWriter writer =
 *     NativeParquetWriter.open(path, root.getSchema(), ParquetWriterConfig.defaults(), allocator)) {
 *   writer.write(root);               // any number of batches
 *   ParquetFileSummary summary = writer.finish();
 * }
 * }</pre>
 *
 * <p>Field ids: put {@code PARQUET:field_id} in each Arrow field's metadata (list elements, map
 * keys and values included); they land in the Parquet schema.
 *
 * <p>Ownership: {@link #write(VectorSchemaRoot)} exports the batch through the Arrow C Data
 * Interface; libfloe keeps a reference to its buffers until it has encoded them -- possibly after
 * {@code write} returns, since rows are encoded in runs of up to 65,536 rows or 32 MiB -- and the
 * caller keeps owning the root. After {@code write} the root may be cleared ({@code clear()},
 * {@code close()}) and refilled with newly allocated buffers, but its buffers must not be
 * modified in place (no {@code reset()} and overwrite): the C Data Interface hands them over
 * read-only. {@link #finish()}
 * completes the file and returns its footer facts; {@link #close()} releases the native writer and
 * discards an unfinished file. Methods are synchronized; one writer is not meant for concurrent
 * producers but is never corrupted by them.
 *
 * <p>State: {@code close()} is idempotent. Any other call after {@code finish()} or {@code close()}
 * throws {@link IllegalStateException}. A call that fails part way through writing the file -- a
 * {@link NativeIOException} (the output failed), an encoding {@link NativeException} or a {@link
 * NativePanicException} -- fails the writer: the incomplete file is discarded, and every later
 * call except {@code close()} throws {@link IllegalStateException} naming that first failure. A
 * call refused up front ({@link SchemaMismatchException}, {@link InvalidArgumentException}) leaves
 * the writer usable.
 */
public final class NativeParquetWriter extends NativeHandle {
  private final BufferAllocator allocator;
  private final Schema schema;
  private final OutputStreamSink streamSink;
  /** 8-byte slots for out-parameters, reused by every call (calls are synchronized). */
  private final MemorySegment errorSlot;

  private final MemorySegment pointerSlot;
  private final MemorySegment lengthSlot;
  private boolean finished;
  private ParquetFileSummary summary;

  private NativeParquetWriter(
      Arena arena, BufferAllocator allocator, Schema schema, OutputStreamSink streamSink) {
    super("NativeParquetWriter", arena, NativeParquetWriter::failsWriter);
    this.allocator = allocator;
    this.schema = schema;
    this.streamSink = streamSink;
    this.errorSlot = arena.allocate(ValueLayout.ADDRESS);
    this.pointerSlot = arena.allocate(ValueLayout.ADDRESS);
    this.lengthSlot = arena.allocate(ValueLayout.JAVA_LONG);
  }

  /**
   * Opens a writer onto a local file, created or truncated.
   *
   * @param allocator used only for the short-lived C Data structs of each call
   * @throws NativeIOException if the file cannot be created (the message names the path)
   */
  public static NativeParquetWriter open(
      Path path, Schema schema, ParquetWriterConfig config, BufferAllocator allocator) {
    Objects.requireNonNull(path, "path");
    NativeLibrary.load();
    NativeParquetWriter writer = create(schema, allocator, null);
    try {
      MemorySegment nativePath = writer.arena().allocateFrom(path.toAbsolutePath().toString());
      writer.openWith(
          config,
          (ffiSchema, blob) ->
              floe_h.floe_writer_open_path(
                  nativePath, ffiSchema, blob, blob.byteSize(), writer.pointerSlot, writer.errorSlot));
      return writer;
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
  }

  /**
   * Opens a writer whose bytes go to {@code out} (for example an Iceberg {@code OutputFile}'s
   * stream). The stream is written from the thread calling {@code write}/{@code finish}; it is not
   * closed by the writer.
   */
  public static NativeParquetWriter open(
      OutputStream out, Schema schema, ParquetWriterConfig config, BufferAllocator allocator) {
    Objects.requireNonNull(out, "out");
    NativeLibrary.load();
    NativeParquetWriter writer = create(schema, allocator, new OutputStreamSink(out));
    try {
      MemorySegment stub = writer.streamSink.upcallStub(writer.arena());
      writer.openWith(
          config,
          (ffiSchema, blob) ->
              floe_h.floe_writer_open_stream(
                  stub,
                  MemorySegment.NULL,
                  ffiSchema,
                  blob,
                  blob.byteSize(),
                  writer.pointerSlot,
                  writer.errorSlot));
      return writer;
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
  }

  private static NativeParquetWriter create(
      Schema schema, BufferAllocator allocator, OutputStreamSink sink) {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(allocator, "allocator");
    return new NativeParquetWriter(Arena.ofShared(), allocator, schema, sink);
  }

  private interface OpenCall {
    int open(MemorySegment ffiSchema, MemorySegment configBlob);
  }

  private void openWith(ParquetWriterConfig config, OpenCall call) {
    byte[] json = Objects.requireNonNull(config, "config").toJsonBytes();
    MemorySegment blob = arena().allocate(json.length);
    MemorySegment.copy(json, 0, blob, ValueLayout.JAVA_BYTE, 0, json.length);
    try (ArrowSchema ffiSchema = ArrowSchema.allocateNew(allocator)) {
      try {
        // in the try: an export that fails part way (a child field) has set the top-level
        // release callback already, and only that frees what was exported
        ExportedSchemas.requireExportable(schema);
        Data.exportSchema(allocator, schema, null, ffiSchema);
        int status = call.open(segment(ffiSchema.memoryAddress()), blob);
        check(status, errorSlot, null);
      } finally {
        ffiSchema.release();
      }
    }
    adopt(pointerSlot.get(ValueLayout.ADDRESS, 0));
  }

  /**
   * Whether a native error leaves the writer failed: it happened part way through changing the
   * file (I/O, encoding) or is a panic. The same rule as libfloe's {@code ErrorCode::fails_writer}.
   */
  private static boolean failsWriter(int code) {
    return code == NativeException.IO
        || code == NativeException.ENCODING
        || code == NativeException.PANIC;
  }

  /** The Arrow schema every batch must have. */
  public Schema schema() {
    return schema;
  }

  /**
   * Encodes one batch. Empty batches are allowed and write nothing.
   *
   * @throws SchemaMismatchException if the root's schema differs from the writer's
   * @throws IllegalArgumentException if a column's buffers are smaller than its value count or
   *     offsets say (libfloe would read past them)
   */
  public synchronized void write(VectorSchemaRoot root) {
    Objects.requireNonNull(root, "root");
    writableHandle();
    ExportedRoots.requireWithinBuffers(root);
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema ffiSchema = ArrowSchema.allocateNew(allocator)) {
      try {
        Data.exportVectorSchemaRoot(allocator, root, null, array, ffiSchema);
        writeExported(array.memoryAddress(), ffiSchema.memoryAddress());
      } finally {
        // The write moves the array; if the export failed part way (the schema after the array)
        // the array is still ours, and releasing it lets go of the root's buffers.
        array.release();
        ffiSchema.release();
      }
    }
  }

  /**
   * Encodes one batch already exported through the Arrow C Data Interface, for callers that hold
   * C Data structs (e.g. from another Arrow library).
   *
   * @param arrowArrayAddress address of a struct {@code ArrowArray} whose children are the
   *     columns. <b>Moved</b>: on return, success or not, it is marked released and its data
   *     belongs to libfloe; the caller frees only the struct's own memory.
   * @param arrowSchemaAddress address of the array's {@code ArrowSchema}, <b>borrowed</b> (the
   *     caller releases it); checked against the writer's schema. Required: libfloe sizes the
   *     array's buffers by the schema's types, and an array of other types would be read past
   *     its end.
   */
  public synchronized void write(long arrowArrayAddress, long arrowSchemaAddress) {
    if (arrowArrayAddress == 0) {
      throw new IllegalArgumentException("arrowArrayAddress must not be 0");
    }
    try {
      if (arrowSchemaAddress == 0) {
        throw new IllegalArgumentException("arrowSchemaAddress must not be 0: the array's schema is checked");
      }
      writableHandle();
    } catch (RuntimeException refused) {
      ArrowArray.wrap(arrowArrayAddress).release(); // moved to this call, even when it is refused
      throw refused;
    }
    writeExported(arrowArrayAddress, arrowSchemaAddress);
  }

  /**
   * Encodes the rows of one group of a regrouped batch. The batch stays owned by the caller (and
   * may be written to other writers, a group each); its schema must equal the writer's.
   */
  public synchronized void write(PartitionedBatch batch, int group) {
    Objects.requireNonNull(batch, "batch");
    if (group < 0 || group >= batch.groupCount()) {
      throw new IndexOutOfBoundsException(
          "group " + group + " of a batch with " + batch.groupCount() + " groups");
    }
    MemorySegment writer = writableHandle();
    int status;
    synchronized (batch) { // a close of the batch from another thread waits (the order is writer, then batch)
      status = floe_h.floe_writer_write_group(writer, batch.handle(), group, errorSlot);
    }
    check(status, errorSlot, streamFailure());
  }

  private void writeExported(long arrayAddress, long schemaAddress) {
    int status =
        floe_h.floe_writer_write(
            writableHandle(), segment(arrayAddress), segment(schemaAddress), errorSlot);
    check(status, errorSlot, streamFailure());
  }

  /**
   * Runs a native call that uses this writer's handle (e.g. a decode straight into the writer),
   * with the writer's lock held and its state checked. The call reports its native errors to
   * {@link #failOn} itself.
   */
  synchronized <T> T callWithHandle(java.util.function.Function<MemorySegment, T> call) {
    return call.apply(writableHandle());
  }

  /** The exception the output stream threw, if any (the cause of a native I/O error). */
  Throwable outputFailure() {
    return streamFailure();
  }

  /** Bytes written so far plus the estimated encoded size of buffered rows. */
  public synchronized long estimatedSize() {
    int status = floe_h.floe_writer_estimated_size(writableHandle(), lengthSlot, errorSlot);
    check(status, errorSlot, null);
    return lengthSlot.get(ValueLayout.JAVA_LONG, 0);
  }

  /**
   * Memory held natively for rows not yet written out: batches waiting to be encoded and the row
   * group in progress. What {@link #flushRowGroup()} frees.
   */
  public synchronized long bufferedBytes() {
    int status = floe_h.floe_writer_buffered_bytes(writableHandle(), lengthSlot, errorSlot);
    check(status, errorSlot, null);
    return lengthSlot.get(ValueLayout.JAVA_LONG, 0);
  }

  /**
   * Writes the buffered rows out as a row group now, freeing their memory; more rows may follow
   * in new row groups. For a caller bounding memory: row groups then close before the size limit.
   */
  public synchronized void flushRowGroup() {
    int status = floe_h.floe_writer_flush_row_group(writableHandle(), errorSlot);
    check(status, errorSlot, streamFailure());
  }

  /**
   * Starts encoding the rows still held on libfloe's shared encode-ahead threads and returns
   * without waiting ({@link ParquetWriterConfig.Builder#encodeAhead}; otherwise it does nothing).
   * A caller about to finish several files calls this on each first, so that their last rows are
   * encoded at the same time; {@link #finish()} waits for them, and the file is the one finishing
   * alone writes. More rows may still be written; the held rows are then a run of their own, which
   * may move where row groups close (the same rows and values).
   */
  public synchronized void encodeHeld() {
    int status = floe_h.floe_writer_encode_held(writableHandle(), errorSlot);
    check(status, errorSlot, streamFailure());
  }

  /**
   * Waits until the rows {@link #encodeHeld()} sent away are encoded into the row group in
   * progress, which stays open unless they filled it: {@link #bufferedBytes()} then counts their encoded pages instead of
   * their Arrow batches. A caller short of memory calls {@code encodeHeld} on every open file, then
   * this on each, before it writes row groups out early with {@link #flushRowGroup()}: encoding
   * frees most of the memory, and the row groups keep their size. Does nothing when nothing was
   * sent away.
   */
  public synchronized void awaitEncoded() {
    int status = floe_h.floe_writer_await_encoded(writableHandle(), errorSlot);
    check(status, errorSlot, streamFailure());
  }

  /**
   * Completes the file (last row group and footer) and returns its footer facts. The writer is
   * finished afterwards; {@link #close()} still releases it.
   *
   * @throws IllegalStateException if already finished, closed or failed
   */
  public synchronized ParquetFileSummary finish() {
    MemorySegment writer = writableHandle();
    finished = true;
    int status = floe_h.floe_writer_close(writer, pointerSlot, lengthSlot, errorSlot);
    check(status, errorSlot, streamFailure());
    MemorySegment json = pointerSlot.get(ValueLayout.ADDRESS, 0);
    long length = lengthSlot.get(ValueLayout.JAVA_LONG, 0);
    try {
      summary = SummaryJson.parse(json.reinterpret(length).toArray(ValueLayout.JAVA_BYTE));
    } finally {
      floe_h.floe_bytes_free(json, length);
    }
    return summary;
  }

  /** The summary returned by {@link #finish()}, or null if the file was not finished. */
  public synchronized ParquetFileSummary summary() {
    return summary;
  }

  /**
   * Releases the native writer. An unfinished file is discarded (a local file is deleted).
   * Idempotent; also frees a failed writer.
   */
  @Override
  public synchronized void close() {
    super.close();
  }

  @Override
  void free(MemorySegment writer) {
    floe_h.floe_writer_free(writer);
  }

  /** The handle of a writer that is neither closed, failed nor finished. */
  private MemorySegment writableHandle() {
    MemorySegment writer = handle();
    if (finished) {
      throw new IllegalStateException("NativeParquetWriter is already finished");
    }
    return writer;
  }

  private Throwable streamFailure() {
    return streamSink == null ? null : streamSink.failure();
  }

  private static MemorySegment segment(long address) {
    return address == 0 ? MemorySegment.NULL : MemorySegment.ofAddress(address);
  }
}
