package dev.floe.arrow;

import dev.floe.arrow.internal.RejectsJson;
import dev.floe.ffm.NativeLibrary;
import dev.floe.ffm.internal.FloeDecodeResult;
import dev.floe.ffm.internal.floe_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Decodes batches of JSON messages (one object each, e.g. Kafka values) into Arrow for a target
 * schema, natively. Each bad message is reported with its index and reason; the good messages of
 * the same batch are still decoded, in order.
 *
 * <pre>{@code
 * try (NativeJsonDecoder decoder = NativeJsonDecoder.create(schema, JsonDecoderConfig.defaults());
 *     MessageBatch batch = new MessageBatch()) {
 *   batch.add(payload);
 *   try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator)) {
 *     VectorSchemaRoot root = decoded.root();
 *   }
 *   // or, without the batch crossing back to Java:
 *   DecodeStats stats = decoder.decodeInto(batch, parquetWriter, BadRecordPolicy.FAIL);
 * }
 * }</pre>
 *
 * <p>What JSON each Arrow type takes: integers for int32/int64 (range-checked); numbers (or
 * "NaN"/"Infinity" strings) for floats; numbers or numeric strings for decimals (exact, no
 * rounding); strings for utf8, base64 strings for binary and fixed, canonical UUID text for
 * fixed_size_binary(16) fields with {@code ARROW:extension:name = arrow.uuid}; {@code yyyy-MM-dd}
 * for date32; {@code HH:mm:ss[.f]} for time64; ISO-8601, Flink's {@code yyyy-MM-dd HH:mm:ss[.f]},
 * or epoch milliseconds for timestamps (zoned columns need {@code Z} or an offset); objects for
 * structs and string-keyed maps; arrays for lists. Absent nullable fields are null; unknown fields
 * are ignored unless {@link JsonDecoderConfig#strict()}, and counted by path and kind under {@link
 * JsonDecoderConfig#reportUnknownFields()} ({@link #takeUnknownFields()}).
 *
 * <p>One decoder per thread: its methods are synchronized, and libfloe also refuses concurrent use
 * of one native decoder. Closing is idempotent; other calls after close throw {@link
 * IllegalStateException}. After a {@link NativePanicException} the decoder is failed: every later
 * call except {@code close()} throws {@link IllegalStateException} naming the panic. Bad messages
 * and refused arguments do not fail it.
 */
public final class NativeJsonDecoder extends NativeHandle {
  private final Schema schema;
  private final MemorySegment errorSlot;
  private final MemorySegment result;

  private NativeJsonDecoder(Arena arena, Schema schema) {
    // Decoding starts every batch afresh, so only a panic (which may stop anywhere) fails it.
    super("NativeJsonDecoder", arena, code -> code == NativeException.PANIC);
    this.schema = schema;
    this.errorSlot = arena.allocate(ValueLayout.ADDRESS);
    this.result = FloeDecodeResult.allocate(arena);
  }

  /** Creates a decoder for {@code schema} (field metadata such as field ids is kept). */
  public static NativeJsonDecoder create(Schema schema, JsonDecoderConfig config) {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(config, "config");
    NativeLibrary.load();
    NativeJsonDecoder decoder = new NativeJsonDecoder(Arena.ofShared(), schema);
    decoder.create(schema, config.toJsonBytes(), floe_h::floe_decoder_new);
    return decoder;
  }

  /**
   * Creates a decoder whose messages are Flink {@code BinaryRowData} rows instead of JSON: each
   * message is one row's bytes (null bits, slots, variable part), read into {@code schema}'s
   * columns by field name with the values Iceberg stores ({@code TINYINT}/{@code SMALLINT} as int,
   * times and timestamps in micros or nanos, decimals at the column's scale). {@code rowTypeJson}
   * is the rows' Flink type: {@code {"fields": [{"name", "type", "precision", "scale", "fields"}]}},
   * {@code type} a Flink {@code LogicalTypeRoot} name, {@code fields} a {@code ROW}'s.
   *
   * @throws InvalidArgumentException when a column and the rows' field for it are not a pairing
   *     libfloe reads (arrays, maps, fixed and uuid columns among them); the message names it
   */
  public static NativeJsonDecoder forFlinkRows(Schema schema, String rowTypeJson) {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(rowTypeJson, "rowTypeJson");
    NativeLibrary.load();
    NativeJsonDecoder decoder = new NativeJsonDecoder(Arena.ofShared(), schema);
    byte[] config =
        ("{\"version\":" + JsonDecoderConfig.VERSION + ",\"flink_rows\":" + rowTypeJson + "}")
            .getBytes(StandardCharsets.UTF_8);
    decoder.create(schema, config, floe_h::floe_decoder_new);
    return decoder;
  }

  /** The target schema. */
  public Schema schema() {
    return schema;
  }

  /**
   * Decodes a batch into Arrow. The returned root is allocated from {@code allocator} and owned by
   * the caller.
   *
   * @throws BadRecordException under {@link BadRecordPolicy#FAIL}, naming the first bad message
   */
  public synchronized DecodedBatch decode(
      MessageBatch batch, BadRecordPolicy policy, BufferAllocator allocator) {
    MemorySegment decoder = handle();
    Objects.requireNonNull(policy, "policy"); // null read as SKIP before
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema ffiSchema = ArrowSchema.allocateNew(allocator)) {
      int status =
          floe_h.floe_decoder_decode(
              decoder,
              batch.data(),
              batch.byteSize(),
              batch.offsets(),
              batch.size(),
              policy == BadRecordPolicy.FAIL ? 1 : 0,
              MemorySegment.ofAddress(array.memoryAddress()),
              MemorySegment.ofAddress(ffiSchema.memoryAddress()),
              result,
              errorSlot);
      check(status, errorSlot, null);
      // The structs now own the decoded batch; importing moves it into Java vectors, which the
      // root then owns: imported first, so that nothing below can leave the batch unowned.
      VectorSchemaRoot root;
      try {
        root = Data.importVectorSchemaRoot(allocator, array, ffiSchema, null);
      } catch (RuntimeException | Error e) {
        discardRejects();
        throw e;
      }
      List<RejectedMessage> rejected = rejectsOrRelease(batch, policy, root::close);
      return new DecodedBatch(root, FloeDecodeResult.rejected(result), collected(policy, rejected));
    }
  }

  /**
   * Decodes a batch and writes the good messages straight into {@code writer}: the decoded batch
   * never crosses back into Java. The writer's schema must equal the decoder's.
   *
   * @throws BadRecordException under {@link BadRecordPolicy#FAIL}; the batch then writes nothing
   */
  public synchronized DecodeStats decodeInto(
      MessageBatch batch, NativeParquetWriter writer, BadRecordPolicy policy) {
    MemorySegment decoder = handle();
    Objects.requireNonNull(writer, "writer");
    Objects.requireNonNull(policy, "policy");
    writer.callWithHandle(
        writerHandle -> {
          int status =
              floe_h.floe_decoder_decode_to_writer(
                  decoder,
                  writerHandle,
                  batch.data(),
                  batch.byteSize(),
                  batch.offsets(),
                  batch.size(),
                  policy == BadRecordPolicy.FAIL ? 1 : 0,
                  result,
                  errorSlot);
          try {
            check(status, errorSlot, writer.outputFailure());
          } catch (NativeException e) {
            writer.failOn(e); // by the writer's own rule: e.g. its output failed
            throw e;
          }
          return null;
        });
    List<RejectedMessage> rejected = takeRejects(batch, policy);
    if (policy == BadRecordPolicy.FAIL && !rejected.isEmpty()) {
      throw new BadRecordException(rejected.getFirst());
    }
    return new DecodeStats(
        FloeDecodeResult.rows(result), FloeDecodeResult.rejected(result), collected(policy, rejected));
  }

  /**
   * Decodes a batch and regroups the good messages by partition: the rows stay native until each
   * group is written with {@link NativeParquetWriter#write(PartitionedBatch, int)}. The
   * partitioner's schema must equal the decoder's. The result carries {@link
   * PartitionedBatch#decodeStats()}.
   *
   * @throws BadRecordException under {@link BadRecordPolicy#FAIL}; nothing is returned then
   */
  public synchronized PartitionedBatch decodePartitioned(
      MessageBatch batch,
      NativePartitioner partitioner,
      BadRecordPolicy policy,
      BufferAllocator allocator) {
    MemorySegment decoder = handle();
    Objects.requireNonNull(policy, "policy");
    PartitionedBatch split;
    // The partitioner's lock for the call: closing it (from another thread) waits until the call is done.
    synchronized (partitioner) {
      split = callDecodePartitioned(decoder, batch, partitioner.handle(), policy, allocator);
    }
    List<RejectedMessage> rejected = rejectsOrRelease(batch, policy, split::close);
    return split.withDecodeStats(
        new DecodeStats(
            FloeDecodeResult.rows(result),
            FloeDecodeResult.rejected(result),
            collected(policy, rejected)));
  }

  /** The native decode into {@code partitionerHandle}'s groups; the caller holds the partitioner's lock. */
  private PartitionedBatch callDecodePartitioned(
      MemorySegment decoder, MessageBatch batch, MemorySegment partitionerHandle, BadRecordPolicy policy,
      BufferAllocator allocator) {
    try (Arena call = Arena.ofConfined()) {
      return PartitionedBatch.receive(
          allocator,
          call,
          (partitionsArray, partitionsSchema, outBatch, error) ->
              floe_h.floe_decoder_decode_partitioned(
                  decoder,
                  partitionerHandle,
                  batch.data(),
                  batch.byteSize(),
                  batch.offsets(),
                  batch.size(),
                  policy == BadRecordPolicy.FAIL ? 1 : 0,
                  partitionsArray,
                  partitionsSchema,
                  outBatch,
                  result,
                  error));
    } catch (RuntimeException | Error e) {
      discardRejects(); // when the native call succeeded and taking its batch failed, its rejects go too
      if (e instanceof NativeException failed) {
        failOn(failed);
      }
      throw e;
    }
  }

  /**
   * The fields the decoder met since the last call that its schema lacks, and forgets them.
   * Counted only with {@link JsonDecoderConfig#reportUnknownFields()}; otherwise always empty.
   * Messages that were rejected count too.
   */
  public synchronized List<UnknownField> takeUnknownFields() {
    MemorySegment decoder = handle();
    try (Arena call = Arena.ofConfined()) {
      MemorySegment json = call.allocate(ValueLayout.ADDRESS);
      MemorySegment length = call.allocate(ValueLayout.JAVA_LONG);
      check(floe_h.floe_decoder_take_unknown_fields(decoder, json, length, errorSlot), errorSlot, null);
      MemorySegment bytes = json.get(ValueLayout.ADDRESS, 0);
      long size = length.get(ValueLayout.JAVA_LONG, 0);
      if (MemorySegment.NULL.equals(bytes)) {
        return List.of();
      }
      try {
        return UnknownFieldsJson.parse(bytes.reinterpret(size).toArray(ValueLayout.JAVA_BYTE));
      } finally {
        floe_h.floe_bytes_free(bytes, size);
      }
    }
  }

  /**
   * The batch's rejects ({@link #takeRejects}) for a decode whose rows are owned by the caller's
   * object: {@code release} frees them when reading the rejects fails, or when FAIL refuses the
   * batch, which then throws naming the first bad message.
   */
  private List<RejectedMessage> rejectsOrRelease(MessageBatch batch, BadRecordPolicy policy, Runnable release) {
    List<RejectedMessage> rejected;
    try {
      rejected = takeRejects(batch, policy);
    } catch (RuntimeException | Error e) {
      release.run();
      throw e;
    }
    if (policy == BadRecordPolicy.FAIL && !rejected.isEmpty()) {
      release.run();
      throw new BadRecordException(rejected.getFirst());
    }
    return rejected;
  }

  /** Reads and frees the native reject list; returns all rejects (needed for FAIL too). */
  private List<RejectedMessage> takeRejects(MessageBatch batch, BadRecordPolicy policy) {
    MemorySegment json = FloeDecodeResult.rejects_json(result);
    long length = FloeDecodeResult.rejects_len(result);
    if (MemorySegment.NULL.equals(json)) {
      return List.of();
    }
    try {
      return RejectsJson.parse(json.reinterpret(length).toArray(ValueLayout.JAVA_BYTE), batch);
    } finally {
      floe_h.floe_bytes_free(json, length);
      FloeDecodeResult.rejects_json(result, MemorySegment.NULL); // freed: never again
    }
  }

  /** Frees the native reject list unread (the batch it describes is lost anyway). */
  private void discardRejects() {
    MemorySegment json = FloeDecodeResult.rejects_json(result);
    if (!MemorySegment.NULL.equals(json)) {
      floe_h.floe_bytes_free(json, FloeDecodeResult.rejects_len(result));
      FloeDecodeResult.rejects_json(result, MemorySegment.NULL);
    }
  }

  private static List<RejectedMessage> collected(BadRecordPolicy policy, List<RejectedMessage> all) {
    return policy == BadRecordPolicy.DEAD_LETTER ? all : List.of();
  }

  /** Frees the native decoder. Idempotent; also frees a failed decoder. */
  @Override
  public synchronized void close() {
    super.close();
  }

  @Override
  void free(MemorySegment decoder) {
    floe_h.floe_decoder_free(decoder);
  }
}
