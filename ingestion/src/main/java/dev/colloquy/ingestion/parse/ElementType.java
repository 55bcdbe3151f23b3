package dev.colloquy.ingestion.parse;

import java.util.Locale;

/** The kinds of structural elements a document is parsed into. */
public enum ElementType {
  HEADING,
  PARAGRAPH,
  LIST_ITEM,
  /** A whole table, rendered as a Markdown grid. */
  TABLE,
  /** A whole code or preformatted block, verbatim. */
  CODE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
