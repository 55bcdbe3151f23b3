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
import dev.colloquy.ingestion.parse.DocumentType;
import dev.colloquy.ingestion.parse.ParsedDocument;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Parse → chunk → enrich → embed: turns one uploaded file into chunks ready to store. Blocking; thread-safe. */
public final class IngestionPipeline {

  private final DocumentParser parser;
  private final StructureAwareSplitter splitter;
  private final ChunkEnricher enricher;
  private final ChunkVectors vectors;

  public IngestionPipeline(
      DocumentParser parser, StructureAwareSplitter splitter, ChunkEnricher enricher, EmbeddingModel embeddings) {
    this.parser = parser;
    this.splitter = splitter;
    this.enricher = enricher;
    this.vectors = new ChunkVectors(embeddings);
  }

  /** Default limits and chunking, offline summaries and questions. */
  public static IngestionPipeline create(KnowledgeSettings.Ingestion limits, EmbeddingModel embeddings) {
    return new IngestionPipeline(
        new DocumentParser(limits),
        new StructureAwareSplitter(ChunkingSettings.defaults(), Tokenizer.cl100k()),
        new OfflineEnricher(),
        embeddings);
  }

  /** Refuses at once what can be refused without parsing: too large, unsupported type. */
  public DocumentType accept(String fileName, byte[] content) {
    return parser.accept(fileName, content);
  }

  /** Who a document version's chunks belong to. */
  public record Origin(String tenantId, String documentId, String fileName, int version, Instant ingestedAt) {}

  public List<EmbeddedChunk> prepare(Origin origin, byte[] content) {
    ParsedDocument parsed = parser.parse(origin.fileName(), content);
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
