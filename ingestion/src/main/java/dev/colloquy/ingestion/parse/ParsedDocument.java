package dev.colloquy.ingestion.parse;

import java.util.List;

/** A parsed document: its type, its title if it declares one, and its elements in document order. */
public record ParsedDocument(DocumentType type, String title, List<Element> elements) {

  public ParsedDocument {
    elements = List.copyOf(elements);
  }
}
