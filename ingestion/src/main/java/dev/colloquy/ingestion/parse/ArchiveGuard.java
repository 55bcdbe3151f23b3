package dev.colloquy.ingestion.parse;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import java.io.IOException;
import java.io.InputStream;
import java.util.Enumeration;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.io.channels.ByteArraySeekableByteChannel;

/**
 * Checks a ZIP-based file (DOCX) before any parser opens it: the number of entries, and the bytes it
 * really inflates to, counted while inflating (declared sizes can lie) and stopped at the limit.
 */
final class ArchiveGuard {

  private ArchiveGuard() {}

  static void check(byte[] archive, KnowledgeSettings.Ingestion limits) {
    try (ZipFile zip = ZipFile.builder().setSeekableByteChannel(ByteArraySeekableByteChannel.wrap(archive)).get()) {
      int entries = 0;
      long remaining = limits.maxArchiveUncompressedBytes();
      byte[] buffer = new byte[64 * 1024];
      for (Enumeration<ZipArchiveEntry> all = zip.getEntries(); all.hasMoreElements(); ) {
        ZipArchiveEntry entry = all.nextElement();
        if (++entries > limits.maxArchiveEntries()) {
          throw bomb("it holds more than " + limits.maxArchiveEntries() + " entries");
        }
        if (entry.getSize() > remaining) {
          throw bomb("it declares more than " + limits.maxArchiveUncompressedBytes() + " uncompressed bytes");
        }
        remaining -= inflate(zip, entry, buffer, remaining);
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof IngestionException ingestion) {
        throw ingestion;
      }
      throw new IngestionException(Code.CORRUPT_FILE, "the file is not a readable DOCX (ZIP) archive: " + e.getMessage(), e);
    }
  }

  private static long inflate(ZipFile zip, ZipArchiveEntry entry, byte[] buffer, long remaining) throws IOException {
    long total = 0;
    try (InputStream in = zip.getInputStream(entry)) {
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        total += read;
        if (total > remaining) {
          throw bomb("its entries inflate to more than the limit of uncompressed bytes");
        }
      }
    }
    return total;
  }

  private static IngestionException bomb(String why) {
    return new IngestionException(Code.DECOMPRESSION_BOMB, "the file was refused as a decompression bomb: " + why);
  }
}
