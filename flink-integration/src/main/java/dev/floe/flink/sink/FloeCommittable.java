package dev.floe.flink.sink;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * What one checkpoint asks the committer to commit: the files every writer finished for it
 * ({@link WrittenFiles}' bytes), and the job, operator, run and checkpoint the commit's snapshot
 * summary will name, so a restored job can tell whether it already landed.
 *
 * <p>The run ({@code runId}) tells apart jobs that share a job id: Flink's application mode with
 * high availability gives every deployment of a job the same id, also one started without state,
 * whose checkpoint ids start from 1 again. {@code runId} is null in committables from checkpoints
 * of floe before runs were kept (version 1 and 2).
 *
 * <p>The files travel in the committable itself (they are few: one per open partition file per
 * writer and checkpoint) rather than in a manifest written ahead, as Iceberg's sink does; the
 * committable lives in Flink's checkpoint until its commit is known.
 */
public record FloeCommittable(byte[] files, String jobId, String operatorId, String runId, long checkpointId) {

  /** Versioned binary form for Flink's checkpoints. */
  static final class Serializer implements SimpleVersionedSerializer<FloeCommittable> {
    /**
     * 1: the files Java-serialized (floe before {@link WrittenFiles}), or Iceberg's manifests (an
     * Iceberg {@code IcebergCommittable}: the same layout); 2: {@link WrittenFiles}' bytes; 3: and
     * the run id after them.
     */
    private static final int VERSION = 3;

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(FloeCommittable committable) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(256 + committable.files().length);
      out.writeUTF(committable.jobId());
      out.writeUTF(committable.operatorId());
      out.writeLong(committable.checkpointId());
      out.writeInt(committable.files().length);
      out.write(committable.files());
      out.writeBoolean(committable.runId() != null);
      if (committable.runId() != null) {
        out.writeUTF(committable.runId());
      }
      return out.getCopyOfBuffer();
    }

    @Override
    public FloeCommittable deserialize(int version, byte[] serialized) throws IOException {
      if (version < 1 || version > VERSION) {
        throw new IOException("unknown floe committable version " + version + " (this floe reads 1 to " + VERSION + ")");
      }
      DataInputDeserializer in = new DataInputDeserializer(serialized);
      String jobId = in.readUTF();
      String operatorId = in.readUTF();
      long checkpointId = in.readLong();
      byte[] files = new byte[in.readInt()];
      in.readFully(files);
      if (version == 1) {
        // Iceberg's IcebergCommittableSerializer writes its version 1 in this very layout, with
        // its manifests where floe had a Java-serialized write result: a job that switched from
        // Iceberg's sink under the same uid restores Iceberg's committables into floe's committer.
        files = javaSerialized(files)
            ? WrittenFiles.ofJavaSerialized(files).bytes()
            : WrittenFiles.ofIcebergManifests(files).bytes();
      }
      String runId = version >= 3 && in.readBoolean() ? in.readUTF() : null;
      return new FloeCommittable(files, jobId, operatorId, runId, checkpointId);
    }

    /** Whether {@code bytes} start as Java serialization's stream does (its magic number). */
    private static boolean javaSerialized(byte[] bytes) {
      return bytes.length >= 2 && (bytes[0] & 0xFF) == 0xAC && (bytes[1] & 0xFF) == 0xED;
    }
  }
}
