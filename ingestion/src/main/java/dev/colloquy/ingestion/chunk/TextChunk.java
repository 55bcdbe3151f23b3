package dev.colloquy.ingestion.chunk;

/**
 * A piece of a document sized for embedding, in Markdown.
 *
 * @param index position in the document, from 0
 * @param section the heading of the section the chunk belongs to ("" before the first heading)
 * @param text the chunk's Markdown text (a section's first chunk starts with its heading)
 * @param tokenCount cl100k_base tokens of {@code text}
 * @param elementType what the chunk holds besides headings: paragraph, list_item, table, code, or
 *     mixed; heading when it holds only headings
 */
public record TextChunk(int index, String section, String text, int tokenCount, String elementType) {

  public int charCount() {
    return text.length();
  }
}
