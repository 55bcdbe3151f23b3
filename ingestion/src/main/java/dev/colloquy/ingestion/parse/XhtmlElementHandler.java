package dev.colloquy.ingestion.parse;

import dev.colloquy.ingestion.IngestionException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xml.sax.Attributes;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Turns Tika's XHTML SAX events (h1..h6, p, ul/ol/li, table/tr/td, pre) into {@link Element}s.
 * Text outside any block (loose text in a div) becomes paragraphs. PDF carries no heading markup,
 * so with {@code guessHeadings} a short single-line paragraph without closing punctuation is read
 * as a heading.
 */
final class XhtmlElementHandler extends DefaultHandler {

  private static final Set<String> SKIPPED = Set.of("head", "title", "script", "style", "noscript", "template");
  private static final Set<String> BREAKS =
      Set.of("div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote", "body", "dl", "dd", "dt", "form");
  private static final Pattern HEADING_LIKE = Pattern.compile("^[\\p{Lu}\\p{N}][^.!,;:]{0,78}[^.!,;:\\s]$");

  /** The bullet or number Word list paragraphs start with. */
  private static final Pattern LIST_MARKER = Pattern.compile("^([\\u2022\\u00b7\\u25aa\\u25e6\\u2013\\u2014\\-*o\\uf0b7\\uf0a7]|\\d{1,3}[.)]|[a-zA-Z][.)])\\s+");

  private enum Mode { LOOSE, HEADING, PARAGRAPH, LIST_ITEM, CODE }

  private final ElementCollector collector;
  private final TextBudget budget;
  private final boolean guessHeadings;
  private final StringBuilder text = new StringBuilder();
  private final Deque<ElementCollector.TableBuilder> tables = new ArrayDeque<>();
  private final ElementCollector.Lists lists = new ElementCollector.Lists();
  private Mode mode = Mode.LOOSE;
  private int headingLevel;
  private int skipDepth;
  private int nestedTableDepth;
  private int preDepth;
  private int listItemDepth;
  private boolean listParagraph;

  XhtmlElementHandler(ElementCollector collector, TextBudget budget, boolean guessHeadings) {
    this.collector = collector;
    this.budget = budget;
    this.guessHeadings = guessHeadings;
  }

  @Override
  public void startElement(String uri, String localName, String qName, Attributes attributes) throws SAXException {
    guard();
    String tag = tagOf(localName, qName);
    if (SKIPPED.contains(tag) || skipDepth > 0) {
      skipDepth++;
      return;
    }
    if (!tables.isEmpty()) {
      startInTable(tag);
      return;
    }
    switch (tag) {
      case "table" -> {
        flush();
        tables.push(new ElementCollector.TableBuilder());
      }
      case "h1", "h2", "h3", "h4", "h5", "h6" -> {
        flush();
        mode = Mode.HEADING;
        headingLevel = tag.charAt(1) - '0';
      }
      case "p" -> {
        if (mode == Mode.LIST_ITEM || mode == Mode.CODE || mode == Mode.HEADING) {
          text.append(' ');
        } else {
          flush();
          String styleClass = attributes.getValue("class");
          listParagraph = styleClass != null && styleClass.toLowerCase(Locale.ROOT).contains("list");
          mode = listParagraph ? Mode.LIST_ITEM : Mode.PARAGRAPH;
          listItemDepth = 0;
        }
      }
      case "ul", "ol" -> {
        flush();
        lists.push(tag);
      }
      case "li" -> {
        flush();
        mode = Mode.LIST_ITEM;
        listItemDepth = lists.depth();
      }
      case "pre" -> {
        if (preDepth++ == 0) {
          flush();
          mode = Mode.CODE;
        }
      }
      case "br" -> text.append('\n');
      default -> {
        if (BREAKS.contains(tag) && mode == Mode.LOOSE) {
          flush();
        }
      }
    }
  }

  @Override
  public void endElement(String uri, String localName, String qName) throws SAXException {
    guard();
    String tag = tagOf(localName, qName);
    if (skipDepth > 0) {
      skipDepth--;
      return;
    }
    if (!tables.isEmpty()) {
      endInTable(tag);
      return;
    }
    switch (tag) {
      case "h1", "h2", "h3", "h4", "h5", "h6", "p", "li" -> {
        if (mode != Mode.CODE) {
          flush();
        }
      }
      case "ul", "ol" -> {
        flush();
        lists.pop();
      }
      case "pre" -> {
        if (--preDepth == 0) {
          flush();
        }
      }
      default -> {
        if (BREAKS.contains(tag)) {
          flush();
        }
      }
    }
  }

  @Override
  public void characters(char[] ch, int start, int length) throws SAXException {
    guard();
    if (skipDepth > 0) {
      return;
    }
    ElementCollector.TableBuilder table = tables.peek();
    if (table != null) {
      if (table.cell != null) {
        table.cell.append(ch, start, length);
      }
      return;
    }
    text.append(ch, start, length);
  }

  @Override
  public void ignorableWhitespace(char[] ch, int start, int length) throws SAXException {
    characters(ch, start, length);
  }

  @Override
  public void endDocument() throws SAXException {
    guard();
    flush();
  }

  private void startInTable(String tag) {
    ElementCollector.TableBuilder table = tables.peek();
    switch (tag) {
      case "table" -> nestedTableDepth++;
      case "tr" -> {
        if (nestedTableDepth == 0) {
          table.startRow();
        }
      }
      case "td", "th" -> {
        if (nestedTableDepth == 0) {
          table.startCell();
        } else if (table.cell != null) {
          table.cell.append(' ');
        }
      }
      default -> {
        if (table.cell != null) {
          table.cell.append(' ');
        }
      }
    }
  }

  private void endInTable(String tag) {
    ElementCollector.TableBuilder table = tables.peek();
    switch (tag) {
      case "table" -> {
        if (nestedTableDepth > 0) {
          nestedTableDepth--;
        } else {
          tables.pop();
          collector.table(table.rows);
        }
      }
      case "td", "th" -> {
        if (nestedTableDepth == 0) {
          table.endCell();
        }
      }
      default -> {}
    }
  }

  private void flush() {
    String content = text.toString();
    text.setLength(0);
    Mode current = mode;
    mode = Mode.LOOSE;
    switch (current) {
      case HEADING -> collector.heading(headingLevel, content);
      case LIST_ITEM -> {
        if (listParagraph) {
          String item = ElementCollector.collapse(content);
          Matcher marker = LIST_MARKER.matcher(item);
          boolean numbered = marker.lookingAt() && marker.group(1).matches("\\d.*");
          collector.listItem(marker.lookingAt() ? item.substring(marker.end()) : item, 0, numbered);
        } else {
          collector.listItem(content, listItemDepth, lists.ordered());
        }
        listParagraph = false;
      }
      case CODE -> collector.code(content);
      case PARAGRAPH, LOOSE -> {
        String trimmed = content.strip();
        if (guessHeadings && looksLikeHeading(trimmed)) {
          collector.heading(2, trimmed);
        } else {
          collector.paragraphs(content);
        }
      }
    }
  }

  private static boolean looksLikeHeading(String line) {
    return !line.contains("\n") && HEADING_LIKE.matcher(line).matches() && line.split("\\s+").length <= 10;
  }

  private void guard() throws SAXException {
    try {
      budget.check();
    } catch (IngestionException e) {
      throw new SAXException(e);
    }
  }

  private static String tagOf(String localName, String qName) {
    String name = localName == null || localName.isEmpty() ? qName : localName;
    return name.toLowerCase(Locale.ROOT);
  }
}
