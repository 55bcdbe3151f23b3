package dev.colloquy.ingestion;

import java.time.Duration;

/**
 * Guards applied to every uploaded file before and while it is parsed.
 *
 * @param maxUploadBytes largest accepted file
 * @param parseTimeout longest a single parse may run
 * @param maxArchiveEntries most entries an archive-based file (DOCX) may hold
 * @param maxArchiveUncompressedBytes most bytes an archive-based file may inflate to, counted while inflating
 * @param maxExtractedChars most characters of text a file may yield
 */
public record IngestionLimits(
    long maxUploadBytes,
    Duration parseTimeout,
    int maxArchiveEntries,
    long maxArchiveUncompressedBytes,
    long maxExtractedChars) {

  public static final long MIB = 1024L * 1024L;

  public IngestionLimits {
    requirePositive(maxUploadBytes, "maxUploadBytes");
    requirePositive(maxArchiveEntries, "maxArchiveEntries");
    requirePositive(maxArchiveUncompressedBytes, "maxArchiveUncompressedBytes");
    requirePositive(maxExtractedChars, "maxExtractedChars");
    if (parseTimeout.isNegative() || parseTimeout.isZero()) {
      throw new IllegalArgumentException("parseTimeout must be positive, was " + parseTimeout);
    }
  }

  /** 25 MiB uploads, 60 s parses, DOCX of at most 5,000 entries inflating to at most 256 MiB, 20 M chars. */
  public static IngestionLimits defaults() {
    return new IngestionLimits(25 * MIB, Duration.ofSeconds(60), 5_000, 256 * MIB, 20_000_000);
  }

  public IngestionLimits withParseTimeout(Duration timeout) {
    return new IngestionLimits(maxUploadBytes, timeout, maxArchiveEntries, maxArchiveUncompressedBytes, maxExtractedChars);
  }

  public IngestionLimits withMaxUploadBytes(long bytes) {
    return new IngestionLimits(bytes, parseTimeout, maxArchiveEntries, maxArchiveUncompressedBytes, maxExtractedChars);
  }

  public IngestionLimits withArchiveLimits(int entries, long uncompressedBytes) {
    return new IngestionLimits(maxUploadBytes, parseTimeout, entries, uncompressedBytes, maxExtractedChars);
  }

  private static void requirePositive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
