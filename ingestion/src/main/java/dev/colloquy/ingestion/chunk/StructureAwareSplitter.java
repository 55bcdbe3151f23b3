package dev.colloquy.ingestion.chunk;

import dev.colloquy.ingestion.parse.Element;
import dev.colloquy.ingestion.parse.ElementType;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Cuts a document's elements into chunks of {@link ChunkingSettings#minTokens()}–{@link
 * ChunkingSettings#maxTokens()} tokens that never cross a section boundary.
 *
 * <ul>
 *   <li>A heading always travels with the block after it (its first paragraph, list, table or code),
 *       so a section's first chunk starts with its heading.
 *   <li>Consecutive list items form one list. A table, list or code block is never split: when it
 *       does not fit in the current chunk it starts a new one, and one larger than a chunk becomes a
 *       chunk of its own. Only a block larger than {@link ChunkingSettings#maxBlockTokens()} is cut,
 *       at row, item or line boundaries, and a table's pieces each repeat its header.
 *   <li>Paragraphs are packed whole; a paragraph is split, at sentence boundaries, only to fill a
 *       chunk still below the minimum, or when it alone is larger than a chunk.
 *   <li>The next chunk of the same section starts with the last {@link
 *       ChunkingSettings#overlapTokens()} tokens (widened to a word boundary) of the previous chunk
 *       when that chunk ends in prose. After a table, list or code block there is no overlap: a
 *       fragment of one would split it.
 * </ul>
 */
public final class StructureAwareSplitter {

  private static final String BLOCK_SEPARATOR = "\n\n";
  /** Below this distance from the limit, token counts are recomputed exactly instead of added up. */
  private static final int EXACT_MARGIN = 16;

  private final ChunkingSettings settings;
  private final Tokenizer tokenizer;

  public StructureAwareSplitter(ChunkingSettings settings, Tokenizer tokenizer) {
    this.settings = settings;
    this.tokenizer = tokenizer;
  }

  public List<TextChunk> split(List<Element> elements) {
    List<TextChunk> chunks = new ArrayList<>();
    for (List<Block> section : sections(blocks(elements))) {
      new SectionWriter(section.getFirst().section(), chunks).write(section);
    }
    return chunks;
  }

  private record Block(ElementType kind, List<String> headings, List<String> lines, String section) {

    String body() {
      return switch (kind) {
        case HEADING -> "";
        case PARAGRAPH -> lines.getFirst();
        case LIST_ITEM, TABLE -> String.join("\n", lines);
        case CODE -> fence(lines);
      };
    }

    String text() {
      String heading = String.join("\n", headings);
      String body = body();
      if (heading.isEmpty()) {
        return body;
      }
      return body.isEmpty() ? heading : heading + BLOCK_SEPARATOR + body;
    }
  }

  private static String fence(List<String> lines) {
    return "```\n" + String.join("\n", lines) + "\n```";
  }

  private static List<Block> blocks(List<Element> elements) {
    List<Block> blocks = new ArrayList<>();
    List<String> headings = new ArrayList<>();
    List<String> listLines = new ArrayList<>();
    String section = "";
    for (Element element : elements) {
      if (element.type() != ElementType.LIST_ITEM && !listLines.isEmpty()) {
        blocks.add(new Block(ElementType.LIST_ITEM, take(headings), List.copyOf(listLines), section));
        listLines.clear();
      }
      section = element.section();
      switch (element.type()) {
        case HEADING -> headings.add(element.toMarkdown());
        case LIST_ITEM -> listLines.add(element.toMarkdown());
        case PARAGRAPH -> blocks.add(new Block(ElementType.PARAGRAPH, take(headings), List.of(element.text()), section));
        case TABLE -> blocks.add(new Block(ElementType.TABLE, take(headings), List.of(element.text().split("\n")), section));
        case CODE -> blocks.add(new Block(ElementType.CODE, take(headings), List.of(element.text().split("\n", -1)), section));
      }
    }
    if (!listLines.isEmpty()) {
      blocks.add(new Block(ElementType.LIST_ITEM, take(headings), List.copyOf(listLines), section));
    }
    if (!headings.isEmpty()) {
      blocks.add(new Block(ElementType.HEADING, take(headings), List.of(), section));
    }
    return blocks;
  }

  private static List<String> take(List<String> headings) {
    List<String> taken = List.copyOf(headings);
    headings.clear();
    return taken;
  }

  /** A new section starts at every block that carries a heading. */
  private static List<List<Block>> sections(List<Block> blocks) {
    List<List<Block>> sections = new ArrayList<>();
    for (Block block : blocks) {
      if (sections.isEmpty() || !block.headings().isEmpty()) {
        sections.add(new ArrayList<>());
      }
      sections.getLast().add(block);
    }
    return sections;
  }

  /** Packs one section's blocks into chunks. */
  private final class SectionWriter {

    private final String section;
    private final List<TextChunk> out;
    private final List<String> parts = new ArrayList<>();
    private final Set<ElementType> kinds = EnumSet.noneOf(ElementType.class);
    private int tokens;
    private boolean hasContent;
    private boolean endsInProse;
    private String lastProse = "";

    SectionWriter(String section, List<TextChunk> out) {
      this.section = section;
      this.out = out;
    }

    void write(List<Block> blocks) {
      for (Block block : blocks) {
        String text = block.text();
        int count = tokenizer.count(text);
        if (fits(text, count)) {
          add(text, count, block.kind(), block.kind() == ElementType.PARAGRAPH ? block.body() : null);
        } else if (block.kind() == ElementType.PARAGRAPH || block.kind() == ElementType.HEADING) {
          writeParagraph(block, text, count);
        } else {
          writeWholeBlock(block, text, count);
        }
      }
      close(false);
    }

    private void writeParagraph(Block block, String text, int count) {
      if (hasContent && tokens >= settings.minTokens()) {
        close(true);
        if (fits(text, count)) {
          add(text, count, block.kind(), block.body());
          return;
        }
      }
      String prefix = String.join("\n", block.headings());
      StringBuilder piece = new StringBuilder(prefix);
      int pieceTokens = tokenizer.count(prefix);
      for (String unit : units(block.body())) {
        String separator = piece.isEmpty() ? "" : prefix.contentEquals(piece) ? BLOCK_SEPARATOR : " ";
        int unitTokens = tokenizer.count(separator + unit);
        if (!fits(piece + separator + unit, pieceTokens + unitTokens)) {
          if (!piece.isEmpty()) {
            add(piece.toString(), tokenizer.count(piece.toString()), ElementType.PARAGRAPH, strippedOf(prefix, piece.toString()));
          }
          close(true);
          piece.setLength(0);
          separator = "";
          unitTokens = tokenizer.count(unit);
        }
        piece.append(separator).append(unit);
        pieceTokens = piece.length() == unit.length() ? unitTokens : pieceTokens + unitTokens;
      }
      if (!piece.isEmpty()) {
        add(piece.toString(), tokenizer.count(piece.toString()), ElementType.PARAGRAPH, strippedOf(prefix, piece.toString()));
      }
    }

    private void writeWholeBlock(Block block, String text, int count) {
      if (hasContent) {
        close(true);
      }
      if (fits(text, count)) {
        add(text, count, block.kind(), null);
        return;
      }
      discardOverlap();
      if (count <= settings.maxBlockTokens()) {
        add(text, count, block.kind(), null);
        close(false);
        return;
      }
      for (String piece : cut(block)) {
        add(piece, tokenizer.count(piece), block.kind(), null);
        close(false);
      }
    }

    /** The paragraph's sentences, and any sentence longer than a chunk cut into runs of words. */
    private List<String> units(String paragraph) {
      List<String> units = new ArrayList<>();
      int capacity = settings.maxTokens() - settings.overlapTokens() - EXACT_MARGIN;
      for (String sentence : sentences(paragraph)) {
        if (tokenizer.count(sentence) <= capacity) {
          units.add(sentence);
          continue;
        }
        StringBuilder run = new StringBuilder();
        for (String word : sentence.split("\\s+")) {
          if (!run.isEmpty() && tokenizer.count(run + " " + word) > capacity) {
            units.add(run.toString());
            run.setLength(0);
          }
          run.append(run.isEmpty() ? "" : " ").append(word);
        }
        if (!run.isEmpty()) {
          units.add(run.toString());
        }
      }
      return units;
    }

    /** Pieces of an oversized table (header repeated), list (whole items) or code block (whole lines). */
    private List<String> cut(Block block) {
      String heading = String.join("\n", block.headings());
      List<String> lines = block.lines();
      List<String> pieces = new ArrayList<>();
      switch (block.kind()) {
        case TABLE -> {
          String header = String.join("\n", lines.subList(0, Math.min(2, lines.size())));
          pack(lines.subList(Math.min(2, lines.size()), lines.size()), rows -> header + "\n" + String.join("\n", rows), pieces);
        }
        case LIST_ITEM -> pack(listItems(lines), items -> String.join("\n", items), pieces);
        default -> pack(lines, StructureAwareSplitter::fence, pieces);
      }
      if (!heading.isEmpty() && !pieces.isEmpty()) {
        pieces.set(0, heading + BLOCK_SEPARATOR + pieces.getFirst());
      }
      return pieces;
    }

    private void pack(List<String> units, java.util.function.Function<List<String>, String> render, List<String> pieces) {
      List<String> current = new ArrayList<>();
      for (String unit : units) {
        current.add(unit);
        if (current.size() > 1 && tokenizer.count(render.apply(current)) > settings.maxTokens() - EXACT_MARGIN) {
          current.removeLast();
          pieces.add(render.apply(current));
          current = new ArrayList<>(List.of(unit));
        }
      }
      if (!current.isEmpty()) {
        pieces.add(render.apply(current));
      }
    }

    private boolean fits(String text, int estimate) {
      int separator = parts.isEmpty() ? 0 : 1;
      int total = tokens + separator + estimate;
      if (total <= settings.maxTokens() - EXACT_MARGIN) {
        return true;
      }
      if (total > settings.maxTokens() + EXACT_MARGIN) {
        return false;
      }
      return tokenizer.count(joinedWith(text)) <= settings.maxTokens();
    }

    private void add(String text, int count, ElementType kind, String prose) {
      parts.add(text);
      tokens = parts.size() == 1 ? count : tokenizer.count(String.join(BLOCK_SEPARATOR, parts));
      if (kind != ElementType.HEADING || !hasContent) {
        kinds.add(kind);
      }
      hasContent = true;
      endsInProse = prose != null;
      lastProse = prose == null ? "" : prose;
    }

    private void close(boolean continueWithOverlap) {
      if (hasContent) {
        String text = String.join(BLOCK_SEPARATOR, parts);
        out.add(new TextChunk(out.size(), section, text, tokenizer.count(text), elementType()));
      }
      String overlap = continueWithOverlap && endsInProse && settings.overlapTokens() > 0
          ? tokenizer.tail(lastProse, settings.overlapTokens())
          : "";
      parts.clear();
      kinds.clear();
      hasContent = false;
      endsInProse = false;
      lastProse = "";
      tokens = 0;
      if (!overlap.isEmpty()) {
        parts.add(overlap);
        tokens = tokenizer.count(overlap);
      }
    }

    private void discardOverlap() {
      if (!hasContent) {
        parts.clear();
        tokens = 0;
      }
    }

    private String elementType() {
      Set<ElementType> content = EnumSet.copyOf(kinds);
      if (content.size() > 1) {
        content.remove(ElementType.HEADING);
      }
      return content.size() == 1 ? content.iterator().next().wireName() : "mixed";
    }

    private String joinedWith(String text) {
      return parts.isEmpty() ? text : String.join(BLOCK_SEPARATOR, parts) + BLOCK_SEPARATOR + text;
    }
  }

  private static String strippedOf(String prefix, String piece) {
    return !prefix.isEmpty() && piece.startsWith(prefix) ? piece.substring(prefix.length()).strip() : piece;
  }

  private static List<String> sentences(String paragraph) {
    BreakIterator breaks = BreakIterator.getSentenceInstance(Locale.ROOT);
    breaks.setText(paragraph);
    List<String> sentences = new ArrayList<>();
    for (int start = breaks.first(), end = breaks.next(); end != BreakIterator.DONE; start = end, end = breaks.next()) {
      String sentence = paragraph.substring(start, end).strip();
      if (!sentence.isEmpty()) {
        sentences.add(sentence);
      }
    }
    return sentences;
  }

  /** Top-level list items with their nested lines. */
  private static List<String> listItems(List<String> lines) {
    List<String> items = new ArrayList<>();
    for (String line : lines) {
      if (items.isEmpty() || !line.startsWith(" ")) {
        items.add(line);
      } else {
        items.set(items.size() - 1, items.getLast() + "\n" + line);
      }
    }
    return items;
  }
}
