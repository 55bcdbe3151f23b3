package dev.colloquy.ingestion;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.chunk.ChunkEnricher;
import dev.colloquy.ingestion.chunk.ChunkingSettings;
import dev.colloquy.ingestion.chunk.Enrichment;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.chunk.OfflineEnricher;
import dev.colloquy.ingestion.chunk.StructureAwareSplitter;
import dev.colloquy.ingestion.chunk.TextChunk;
import dev.colloquy.ingestion.chunk.Tokenizer;
import dev.colloquy.ingestion.embed.ChunkVectors;
import dev.colloquy.ingestion.parse.DocumentParser;
import dev.colloquy.ingestion.parse.DocumentParsing;
import dev.colloquy.ingestion.parse.DocumentType;
import dev.colloquy.ingestion.parse.ParsedDocument;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Parse → chunk → enrich → embed: turns one uploaded file into chunks ready to store. Blocking; thread-safe. */
public final class IngestionPipeline {

  private final DocumentParser checks;
  private final DocumentParsing parser;
  private final StructureAwareSplitter splitter;
  private final ChunkEnricher enricher;
  private final ChunkVectors vectors;

  /**
   * @param checks what refuses a file before parsing (size, type), and the limits
   * @param parser what parses it: {@link ParserProcesses} for files from users
   */
  public IngestionPipeline(DocumentParser checks, DocumentParsing parser, StructureAwareSplitter splitter,
      ChunkEnricher enricher, EmbeddingModel embeddings) {
    this.checks = checks;
    this.parser = parser;
    this.splitter = splitter;
    this.enricher = enricher;
    this.vectors = new ChunkVectors(embeddings);
  }

  /** Default limits and chunking, offline summaries and questions; files parsed on the calling thread. */
  public static IngestionPipeline create(KnowledgeSettings.Ingestion limits, EmbeddingModel embeddings) {
    DocumentParser parser = new DocumentParser(limits);
    return create(parser, parser, embeddings);
  }

  /** The same with files parsed by {@code parser}. */
  public static IngestionPipeline create(KnowledgeSettings.Ingestion limits, DocumentParsing parser,
      EmbeddingModel embeddings) {
    return create(new DocumentParser(limits), parser, embeddings);
  }

  private static IngestionPipeline create(DocumentParser checks, DocumentParsing parser, EmbeddingModel embeddings) {
    return new IngestionPipeline(checks, parser,
        new StructureAwareSplitter(ChunkingSettings.defaults(), Tokenizer.cl100k()),
        new OfflineEnricher(),
        embeddings);
  }

  public KnowledgeSettings.Ingestion limits() {
    return checks.limits();
  }

  /** Refuses at once what can be refused without parsing: too large, unsupported type. */
  public DocumentType accept(String fileName, Path file) {
    return checks.accept(fileName, file);
  }

  /** Who a document version's chunks belong to. */
  public record Origin(String tenantId, String documentId, String fileName, int version, Instant ingestedAt) {}

  /** A file already in memory (tests, benchmarks), through a temporary file as an upload goes. */
  public List<EmbeddedChunk> prepare(Origin origin, byte[] content) {
    Path file = null;
    try {
      file = Files.createTempFile("colloquy-document", ".upload");
      Files.write(file, content);
      return prepare(origin, file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (file != null) {
        file.toFile().delete();
      }
    }
  }

  public List<EmbeddedChunk> prepare(Origin origin, Path file) {
    ParsedDocument parsed = parser.parse(origin.fileName(), file);
    List<TextChunk> pieces = splitter.split(parsed.elements());
    if (pieces.isEmpty()) {
      throw new IngestionException(IngestionException.Code.EMPTY_DOCUMENT, "the file holds no text");
    }
    List<KnowledgeChunk> chunks = new ArrayList<>(pieces.size());
    for (TextChunk piece : pieces) {
      Enrichment enrichment = enricher.enrich(piece.section(), piece.text());
      chunks.add(new KnowledgeChunk(
          UUID.randomUUID().toString(), origin.documentId(), origin.tenantId(), origin.fileName(), origin.version(),
          false, piece.section(), piece.elementType(), piece.index(), piece.text(), piece.charCount(),
          piece.tokenCount(), enrichment.summary(), enrichment.questions(), enrichment.generator(), origin.ingestedAt()));
    }
    return vectors.embed(chunks);
  }

  /** Chunks with a new summary and questions from {@code modelEnricher}, their two vectors embedded again. */
  public List<EmbeddedChunk> reenrich(List<EmbeddedChunk> chunks, ChunkEnricher modelEnricher) {
    List<KnowledgeChunk> enriched = chunks.stream()
        .map(embedded -> embedded.chunk().withEnrichment(modelEnricher.enrich(embedded.chunk().sectionHeading(), embedded.chunk().text())))
        .toList();
    return vectors.reembedEnrichment(chunks, enriched);
  }
}
