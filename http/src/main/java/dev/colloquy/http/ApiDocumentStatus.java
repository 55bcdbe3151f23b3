package dev.colloquy.http;

import dev.colloquy.ingestion.documents.DocumentStatus;

/**
 * A document's status as the API names it: {@code processing}, {@code ready} or {@code failed}, the three
 * values of the support agent's contract (seed 004), which its clients switch on. A document still waiting
 * for an ingestion worker is {@code processing} there too: accepted, and not yet searchable, as the 202
 * that accepted it already said. The store keeps the difference; the wire does not.
 */
public final class ApiDocumentStatus {

  private ApiDocumentStatus() {}

  public static String of(DocumentStatus status) {
    return status == DocumentStatus.PENDING ? DocumentStatus.PROCESSING.wireName() : status.wireName();
  }
}
