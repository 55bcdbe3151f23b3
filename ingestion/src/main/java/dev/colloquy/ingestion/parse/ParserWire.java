package dev.colloquy.ingestion.parse;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.config.KnowledgeSettings;
import java.time.Duration;

/**
 * What a parser JVM and its parent say to each other, one JSON line each way: the child announces
 * itself once, then answers every request (a file on disk and the limits to parse it by) with the
 * document or the refusal.
 */
final class ParserWire {

  static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** The child's first line: it has started and reads requests. */
  static final String READY = "{\"ready\":true}";

  record Limits(long maxUploadBytes, long parseTimeoutMillis, int maxArchiveEntries, long maxArchiveUncompressedBytes,
      long maxExtractedChars) {

    static Limits of(KnowledgeSettings.Ingestion limits) {
      return new Limits(limits.maxUploadBytes(), limits.parseTimeout().toMillis(), limits.maxArchiveEntries(),
          limits.maxArchiveUncompressedBytes(), limits.maxExtractedChars());
    }

    KnowledgeSettings.Ingestion toSettings() {
      return new KnowledgeSettings.Ingestion(maxUploadBytes, Duration.ofMillis(parseTimeoutMillis), maxArchiveEntries,
          maxArchiveUncompressedBytes, maxExtractedChars, 1, 0, 0, 1, Duration.ofMillis(parseTimeoutMillis));
    }
  }

  record Request(String fileName, String path, Limits limits) {}

  record Failure(String code, String message) {}

  /** Exactly one of the two is set. */
  record Reply(ParsedDocument document, Failure error) {}

  private ParserWire() {}
}
