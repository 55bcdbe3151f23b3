package dev.colloquy.ingestion.parse;

import java.util.ArrayList;
import java.util.List;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TableRow;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.BlockQuote;
import org.commonmark.node.Code;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.Image;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.ListBlock;
import org.commonmark.node.ListItem;
import org.commonmark.node.Node;
import org.commonmark.node.OrderedList;
import org.commonmark.node.Paragraph;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;

/** Reads Markdown (CommonMark with GFM tables) into elements; Tika would see it as plain text. */
final class MarkdownReader {

  private static final Parser PARSER = Parser.builder().extensions(List.of(TablesExtension.create())).build();

  private final ElementCollector collector;
  private final TextBudget budget;

  MarkdownReader(ElementCollector collector, TextBudget budget) {
    this.collector = collector;
    this.budget = budget;
  }

  void read(String markdown) {
    Node document = PARSER.parse(markdown);
    budget.check();
    for (Node block = document.getFirstChild(); block != null; block = block.getNext()) {
      block(block, 0);
    }
  }

  private void block(Node node, int listDepth) {
    budget.check();
    switch (node) {
      case Heading heading -> collector.heading(heading.getLevel(), inline(heading));
      case Paragraph paragraph -> collector.paragraph(inline(paragraph));
      case ListBlock list -> list(list, listDepth);
      case FencedCodeBlock code -> collector.code(code.getLiteral());
      case IndentedCodeBlock code -> collector.code(code.getLiteral());
      case TableBlock table -> collector.table(rows(table));
      case BlockQuote quote -> children(quote, listDepth);
      case HtmlBlock html -> collector.paragraph(html.getLiteral().replaceAll("<[^>]*>", " "));
      default -> {}
    }
  }

  private void children(Node parent, int listDepth) {
    for (Node child = parent.getFirstChild(); child != null; child = child.getNext()) {
      block(child, listDepth);
    }
  }

  private void list(ListBlock list, int depth) {
    boolean ordered = list instanceof OrderedList;
    for (Node item = list.getFirstChild(); item != null; item = item.getNext()) {
      if (item instanceof ListItem listItem) {
        listItem(listItem, depth, ordered);
      }
    }
  }

  private void listItem(ListItem item, int depth, boolean ordered) {
    StringBuilder own = new StringBuilder();
    List<Node> nested = new ArrayList<>();
    for (Node child = item.getFirstChild(); child != null; child = child.getNext()) {
      if (child instanceof ListBlock || child instanceof FencedCodeBlock || child instanceof IndentedCodeBlock) {
        nested.add(child);
      } else {
        own.append(' ').append(inline(child));
      }
    }
    collector.listItem(own.toString(), depth, ordered);
    for (Node child : nested) {
      if (child instanceof ListBlock list) {
        list(list, depth + 1);
      } else {
        block(child, depth + 1);
      }
    }
  }

  private static List<List<String>> rows(TableBlock table) {
    List<List<String>> rows = new ArrayList<>();
    collectRows(table, rows);
    return rows;
  }

  private static void collectRows(Node node, List<List<String>> rows) {
    for (Node child = node.getFirstChild(); child != null; child = child.getNext()) {
      if (child instanceof TableRow) {
        List<String> cells = new ArrayList<>();
        for (Node cell = child.getFirstChild(); cell != null; cell = cell.getNext()) {
          if (cell instanceof TableCell) {
            cells.add(inline(cell));
          }
        }
        rows.add(cells);
      } else {
        collectRows(child, rows);
      }
    }
  }

  /** The visible text of a node's inline content: link and emphasis text, code spans in backticks. */
  private static String inline(Node node) {
    StringBuilder out = new StringBuilder();
    appendInline(node, out);
    return out.toString();
  }

  private static void appendInline(Node node, StringBuilder out) {
    for (Node child = node.getFirstChild(); child != null; child = child.getNext()) {
      switch (child) {
        case Text text -> out.append(text.getLiteral());
        case Code code -> out.append('`').append(code.getLiteral()).append('`');
        case SoftLineBreak ignored -> out.append(' ');
        case HardLineBreak ignored -> out.append('\n');
        case Image image -> appendInline(image, out);
        default -> {
          appendInline(child, out);
          if (child instanceof Paragraph) {
            out.append(' ');
          }
        }
      }
    }
  }
}
