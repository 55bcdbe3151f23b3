package dev.colloquy.ingestion.parse;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * Builds elements in document order from a stream of block events, keeping track of the current
 * section. Both the XHTML handler (Tika) and the Markdown reader feed it.
 */
final class ElementCollector {

  private final List<Element> elements = new ArrayList<>();
  private final TextBudget budget;
  private String section = "";

  ElementCollector(TextBudget budget) {
    this.budget = budget;
  }

  void heading(int level, String text) {
    String clean = collapse(text);
    if (!clean.isEmpty()) {
      section = clean;
      add(Element.heading(level, clean));
    }
  }

  void paragraph(String text) {
    String clean = collapse(text);
    if (!clean.isEmpty()) {
      add(Element.paragraph(clean, section));
    }
  }

  /** Text that may hold several paragraphs separated by blank lines (plain text, PDF pages). */
  void paragraphs(String text) {
    for (String part : text.split("\\n\\s*\\n")) {
      paragraph(part);
    }
  }

  void listItem(String text, int depth, boolean ordered) {
    String clean = collapse(text);
    if (!clean.isEmpty()) {
      add(Element.listItem(clean, depth, ordered, section));
    }
  }

  void table(List<List<String>> rows) {
    List<List<String>> kept = rows.stream().filter(row -> row.stream().anyMatch(cell -> !cell.isBlank())).toList();
    if (!kept.isEmpty()) {
      add(Element.table(MarkdownTable.render(kept), section));
    }
  }

  void code(String text) {
    String trimmed = text.stripTrailing().replaceFirst("^\\s*\\n", "");
    if (!trimmed.isBlank()) {
      add(Element.code(trimmed, section));
    }
  }

  List<Element> elements() {
    return List.copyOf(elements);
  }

  private void add(Element element) {
    budget.spend(element.text().length());
    elements.add(element);
  }

  static String collapse(String text) {
    return text.replace('\u00a0', ' ').replaceAll("-\\n(?=\\p{Ll})", "").replaceAll("\\s+", " ").strip();
  }

  /** Rows of cells under construction, for nested-table-safe table building. */
  static final class TableBuilder {
    final List<List<String>> rows = new ArrayList<>();
    List<String> row;
    StringBuilder cell;

    void startRow() {
      row = new ArrayList<>();
      rows.add(row);
    }

    void startCell() {
      if (row == null) {
        startRow();
      }
      cell = new StringBuilder();
    }

    void endCell() {
      if (cell != null && row != null) {
        row.add(collapse(cell.toString()));
      }
      cell = null;
    }
  }

  /** Open list contexts: whether each is numbered. */
  static final class Lists {
    private final Deque<Boolean> open = new ArrayDeque<>();

    void push(String tag) {
      open.push(tag.toLowerCase(Locale.ROOT).equals("ol"));
    }

    void pop() {
      open.poll();
    }

    int depth() {
      return Math.max(0, open.size() - 1);
    }

    boolean ordered() {
      return Boolean.TRUE.equals(open.peek());
    }
  }
}
