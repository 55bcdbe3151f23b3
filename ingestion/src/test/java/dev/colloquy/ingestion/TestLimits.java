package dev.colloquy.ingestion;

import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.KnowledgeSettings;
import java.time.Duration;

/** Ingestion limits for tests: the shipped defaults (reference.conf), or those with one limit changed. */
public final class TestLimits {

  public static final long MIB = 1024L * 1024L;

  private TestLimits() {}

  public static KnowledgeSettings.Ingestion defaults() {
    return ColloquySettings.defaults().knowledge().ingestion();
  }

  public static KnowledgeSettings.Ingestion withParseTimeout(Duration timeout) {
    KnowledgeSettings.Ingestion d = defaults();
    return new KnowledgeSettings.Ingestion(d.maxUploadBytes(), timeout, d.maxArchiveEntries(),
        d.maxArchiveUncompressedBytes(), d.maxExtractedChars(), d.workers(), d.parseHeapBytes(), d.maxQueued(),
        d.maxUploadsPerTenant(), d.uploadTimeout());
  }

  public static KnowledgeSettings.Ingestion withMaxUploadBytes(long bytes) {
    KnowledgeSettings.Ingestion d = defaults();
    return new KnowledgeSettings.Ingestion(bytes, d.parseTimeout(), d.maxArchiveEntries(),
        d.maxArchiveUncompressedBytes(), d.maxExtractedChars(), d.workers(), d.parseHeapBytes(), d.maxQueued(),
        d.maxUploadsPerTenant(), d.uploadTimeout());
  }

  public static KnowledgeSettings.Ingestion withArchiveLimits(int entries, long uncompressedBytes) {
    KnowledgeSettings.Ingestion d = defaults();
    return new KnowledgeSettings.Ingestion(d.maxUploadBytes(), d.parseTimeout(), entries, uncompressedBytes,
        d.maxExtractedChars(), d.workers(), d.parseHeapBytes(), d.maxQueued(), d.maxUploadsPerTenant(), d.uploadTimeout());
  }

  public static KnowledgeSettings.Ingestion withQueue(int workers, int maxQueued) {
    KnowledgeSettings.Ingestion d = defaults();
    return new KnowledgeSettings.Ingestion(d.maxUploadBytes(), d.parseTimeout(), d.maxArchiveEntries(),
        d.maxArchiveUncompressedBytes(), d.maxExtractedChars(), workers, d.parseHeapBytes(), maxQueued,
        d.maxUploadsPerTenant(), d.uploadTimeout());
  }
}
