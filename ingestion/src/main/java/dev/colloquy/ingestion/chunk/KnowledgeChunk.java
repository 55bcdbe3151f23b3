package dev.colloquy.ingestion.chunk;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A stored chunk: the payload of seed 004 §6.3, plus the chunk's position and text.
 *
 * @param chunkId unique id of this chunk
 * @param documentId the document version it belongs to
 * @param tenantId the tenant that owns it; every store filters on it
 * @param fileName the uploaded file's name
 * @param documentVersion 1 for a file name's first upload, then 2, 3, …
 * @param latestVersion whether the chunk is searchable: its document is ready, active and the latest
 *     version of its file name. Stores manage it (see {@code VectorStore#publish}); the value given
 *     to an upsert is ignored
 * @param sectionHeading the heading of the section the chunk comes from ("" before any heading)
 * @param elementType what the chunk holds: paragraph, list_item, table, code, heading or mixed
 * @param chunkIndex position in the document, from 0
 * @param text the chunk's Markdown text
 * @param charCount characters of {@code text}
 * @param tokenCount cl100k_base tokens of {@code text}
 * @param summary a short summary of the chunk
 * @param hypotheticalQuestions three questions the chunk answers
 * @param enrichmentGenerator what wrote the summary and questions (a model name, or the offline method)
 * @param ingestedAt when the document version was ingested
 */
public record KnowledgeChunk(
    String chunkId,
    String documentId,
    String tenantId,
    String fileName,
    int documentVersion,
    boolean latestVersion,
    String sectionHeading,
    String elementType,
    int chunkIndex,
    String text,
    int charCount,
    int tokenCount,
    String summary,
    List<String> hypotheticalQuestions,
    String enrichmentGenerator,
    Instant ingestedAt) {

  public KnowledgeChunk {
    Objects.requireNonNull(chunkId, "chunkId");
    Objects.requireNonNull(documentId, "documentId");
    Objects.requireNonNull(tenantId, "tenantId");
    Objects.requireNonNull(text, "text");
    hypotheticalQuestions = List.copyOf(hypotheticalQuestions);
  }

  public KnowledgeChunk withLatestVersion(boolean latest) {
    return new KnowledgeChunk(chunkId, documentId, tenantId, fileName, documentVersion, latest, sectionHeading,
        elementType, chunkIndex, text, charCount, tokenCount, summary, hypotheticalQuestions, enrichmentGenerator,
        ingestedAt);
  }

  public KnowledgeChunk withEnrichment(Enrichment enrichment) {
    return new KnowledgeChunk(chunkId, documentId, tenantId, fileName, documentVersion, latestVersion,
        sectionHeading, elementType, chunkIndex, text, charCount, tokenCount, enrichment.summary(),
        enrichment.questions(), enrichment.generator(), ingestedAt);
  }

  /** The text embedded as the chunk's "text" vector: its section heading leads unless the text already starts with it. */
  public String textForEmbedding() {
    if (sectionHeading.isEmpty() || text.contains(sectionHeading)) {
      return text;
    }
    return sectionHeading + "\n\n" + text;
  }

  /** The hypothetical questions as one string, embedded as the "questions" vector. */
  public String questionsForEmbedding() {
    return String.join(" ", hypotheticalQuestions);
  }
}
