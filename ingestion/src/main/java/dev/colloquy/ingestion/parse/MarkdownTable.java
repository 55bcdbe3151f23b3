package dev.colloquy.ingestion.parse;

import java.util.List;

/** Renders rows of cells as a Markdown grid whose first row is the header. */
final class MarkdownTable {

  private MarkdownTable() {}

  static String render(List<List<String>> rows) {
    int columns = rows.stream().mapToInt(List::size).max().orElse(0);
    if (columns == 0) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    appendRow(out, rows.get(0), columns);
    out.append('\n').append("|---".repeat(columns)).append('|');
    for (List<String> row : rows.subList(1, rows.size())) {
      out.append('\n');
      appendRow(out, row, columns);
    }
    return out.toString();
  }

  private static void appendRow(StringBuilder out, List<String> cells, int columns) {
    out.append('|');
    for (int i = 0; i < columns; i++) {
      String cell = i < cells.size() ? cells.get(i) : "";
      out.append(' ').append(cell.replace("|", "\\|").replaceAll("\\s+", " ").strip()).append(" |");
    }
  }
}
