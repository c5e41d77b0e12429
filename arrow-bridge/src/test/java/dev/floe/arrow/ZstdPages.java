package dev.floe.arrow;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/**
 * Proves the zstd level of a file: Parquet does not record it, but recompressing each stored page
 * body with the reference zstd at a given level reproduces the stored bytes only at that level.
 */
final class ZstdPages {
  private ZstdPages() {}

  static boolean everyPageIsZstdAtLevel(Path file, int level) throws IOException {
    int pages = 0;
    try (FileChannel channel = FileChannel.open(file)) {
      for (BlockMetaData block : ParquetReadBack.footer(file).getBlocks()) {
        for (ColumnChunkMetaData column : block.getColumns()) {
          channel.position(column.getStartingPos());
          InputStream in = Channels.newInputStream(channel);
          long end = column.getStartingPos() + column.getTotalSize();
          while (channel.position() < end) {
            PageHeader header = Util.readPageHeader(in);
            byte[] stored = in.readNBytes(header.getCompressed_page_size());
            byte[] raw = Zstd.decompress(stored, header.getUncompressed_page_size());
            if (!Arrays.equals(stored, compress(raw, level))) {
              return false;
            }
            pages++;
          }
        }
      }
    }
    return pages > 0;
  }

  /** One-shot compression of a whole page, as parquet-rs's zstd codec does it. */
  private static byte[] compress(byte[] raw, int level) {
    return Zstd.compress(raw, level);
  }
}
