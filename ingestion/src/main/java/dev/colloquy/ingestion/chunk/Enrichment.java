package dev.colloquy.ingestion.chunk;

import java.util.List;

/** A chunk's summary and hypothetical questions, and the name of what generated them. */
public record Enrichment(String summary, List<String> questions, String generator) {

  public Enrichment {
    questions = List.copyOf(questions);
  }
}
