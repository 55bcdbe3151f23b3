package dev.colloquy.ingestion.parse;

import java.util.Objects;

/**
 * One structural element of a document, in document order.
 *
 * @param type what it is
 * @param text its text: a heading's or paragraph's text with whitespace collapsed; a list item's
 *     text without its marker; a table as a Markdown grid; code verbatim
 * @param level a heading's level (1..6), a list item's nesting depth (0 = top level), else 0
 * @param ordered for a list item: whether its list is numbered
 * @param section the text of the heading this element belongs to ("" before the first heading); a
 *     heading belongs to itself
 */
public record Element(ElementType type, String text, int level, boolean ordered, String section) {

  public Element {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(section, "section");
  }

  public static Element heading(int level, String text) {
    return new Element(ElementType.HEADING, text, level, false, text);
  }

  public static Element paragraph(String text, String section) {
    return new Element(ElementType.PARAGRAPH, text, 0, false, section);
  }

  public static Element listItem(String text, int depth, boolean ordered, String section) {
    return new Element(ElementType.LIST_ITEM, text, depth, ordered, section);
  }

  public static Element table(String markdown, String section) {
    return new Element(ElementType.TABLE, markdown, 0, false, section);
  }

  public static Element code(String text, String section) {
    return new Element(ElementType.CODE, text, 0, false, section);
  }

  /** This element as it reads in a Markdown chunk. */
  public String toMarkdown() {
    return switch (type) {
      case HEADING -> "#".repeat(Math.max(1, Math.min(level, 6))) + " " + text;
      case PARAGRAPH, TABLE -> text;
      case LIST_ITEM -> "  ".repeat(level) + (ordered ? "1. " : "- ") + text;
      case CODE -> "```\n" + text + "\n```";
    };
  }
}
