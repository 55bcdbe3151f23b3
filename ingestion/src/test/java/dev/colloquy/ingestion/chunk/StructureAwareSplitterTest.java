package dev.colloquy.ingestion.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.ingestion.parse.Element;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StructureAwareSplitterTest {

  private final Tokenizer tokenizer = Tokenizer.cl100k();
  private final StructureAwareSplitter splitter = new StructureAwareSplitter(ChunkingSettings.defaults(), tokenizer);

  @Test
  void aLongSectionMakesChunksOf400To500TokensWithItsHeadingFirst() {
    List<Element> elements = new ArrayList<>();
    elements.add(Element.heading(1, "Warranty"));
    for (int p = 0; p < 12; p++) {
      elements.add(Element.paragraph(paragraph(p, 8), "Warranty"));
    }

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks).hasSizeGreaterThan(2);
    assertThat(chunks.getFirst().text()).startsWith("# Warranty\n\nSentence 0-0 ");
    assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.tokenCount()).isLessThanOrEqualTo(500));
    assertThat(chunks.subList(0, chunks.size() - 1))
        .allSatisfy(chunk -> assertThat(chunk.tokenCount()).isGreaterThanOrEqualTo(400));
    assertThat(chunks).extracting(TextChunk::section).containsOnly("Warranty");
    assertThat(chunks).extracting(TextChunk::index).containsExactlyElementsOf(IntStream.range(0, chunks.size()).boxed().toList());
    assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.tokenCount()).isEqualTo(tokenizer.count(chunk.text())));
  }

  @Test
  void consecutiveChunksOfASectionOverlapBy50Tokens() {
    List<Element> elements = List.of(
        Element.heading(2, "Care"), Element.paragraph(paragraph(0, 90), "Care"));

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks).hasSizeGreaterThanOrEqualTo(3);
    for (int i = 1; i < chunks.size(); i++) {
      String overlap = chunks.get(i).text().substring(0, chunks.get(i).text().indexOf("\n\n"));
      assertThat(chunks.get(i - 1).text()).endsWith(overlap);
      assertThat(tokenizer.count(overlap)).isBetween(50, 56);
    }
  }

  @Test
  void aHeadingStaysWithItsFirstParagraphAndSectionsDoNotShareChunks() {
    List<Element> elements = List.of(
        Element.heading(1, "Orders"),
        Element.heading(2, "Placing an order"),
        Element.paragraph("Orders are placed online.", "Placing an order"),
        Element.heading(2, "Cancelling"),
        Element.paragraph("Cancel within one hour.", "Cancelling"),
        Element.paragraph("After that, contact support.", "Cancelling"));

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks)
        .extracting(TextChunk::text)
        .containsExactly(
            "# Orders\n## Placing an order\n\nOrders are placed online.",
            "## Cancelling\n\nCancel within one hour.\n\nAfter that, contact support.");
    assertThat(chunks).extracting(TextChunk::section).containsExactly("Placing an order", "Cancelling");
    assertThat(chunks).extracting(TextChunk::elementType).containsExactly("paragraph", "paragraph");
  }

  @Test
  void aTableAtAChunkBoundaryMovesWholeToTheNextChunk() {
    String table = table(20);
    List<Element> elements = List.of(
        Element.heading(1, "Prices"),
        Element.paragraph(paragraph(0, 30), "Prices"),
        Element.table(table, "Prices"),
        Element.paragraph("Prices include tax.", "Prices"));

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks).hasSize(2);
    assertThat(chunks.get(0).text()).doesNotContain("| Item");
    assertThat(chunks.get(1).text()).contains(table).endsWith("Prices include tax.");
    assertThat(chunks.get(1).elementType()).isEqualTo("mixed");
  }

  @Test
  void aListAtAChunkBoundaryMovesWholeToTheNextChunk() {
    List<Element> elements = new ArrayList<>();
    elements.add(Element.heading(1, "Steps"));
    elements.add(Element.paragraph(paragraph(0, 30), "Steps"));
    for (int i = 0; i < 15; i++) {
      elements.add(Element.listItem("Step number " + i + " of the installation guide for the device", 0, true, "Steps"));
    }

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks).hasSize(2);
    assertThat(chunks.get(0).text()).doesNotContain("1. Step number");
    assertThat(chunks.get(1).text()).contains("1. Step number 0 of").contains("1. Step number 14 of");
    assertThat(chunks.get(1).elementType()).isEqualTo("list_item");
  }

  @Test
  void anOversizedTableIsAChunkOfItsOwn() {
    String table = table(60);
    List<Element> elements = List.of(
        Element.paragraph("Before.", ""), Element.table(table, ""), Element.paragraph("After.", ""));

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks).extracting(TextChunk::text).containsExactly("Before.", table, "After.");
    assertThat(chunks.get(1).tokenCount()).isGreaterThan(500).isLessThan(2_000);
    assertThat(chunks.get(1).elementType()).isEqualTo("table");
  }

  @Test
  void aHugeTableIsCutAtRowsAndEachPieceRepeatsTheHeader() {
    String table = table(300);
    List<Element> elements = List.of(Element.heading(1, "Catalog"), Element.table(table, "Catalog"));

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks).hasSizeGreaterThan(4);
    assertThat(chunks.getFirst().text()).startsWith("# Catalog\n\n| Item | Price | Note |\n|---|---|---|\n");
    assertThat(chunks.subList(1, chunks.size()))
        .allSatisfy(chunk -> assertThat(chunk.text()).startsWith("| Item | Price | Note |\n|---|---|---|\n| Item "));
    assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.tokenCount()).isLessThanOrEqualTo(500));
    String rows = String.join("\n", chunks.stream().map(c -> c.text().substring(c.text().indexOf("|---|---|---|\n") + 14)).toList());
    assertThat(rows).isEqualTo(table.substring(table.indexOf("|---|---|---|\n") + 14));
  }

  @Test
  void aCodeBlockIsNeverSplit() {
    String code = String.join("\n", IntStream.range(0, 40).mapToObj(i -> "    call(step" + i + ", options);").toList());
    List<Element> elements = List.of(
        Element.heading(1, "API"),
        Element.paragraph(paragraph(0, 25), "API"),
        Element.code(code, "API"));

    List<TextChunk> chunks = splitter.split(elements);

    assertThat(chunks).hasSize(2);
    assertThat(chunks.get(1).text()).contains("```\n" + code + "\n```");
  }

  /** {@code sentences} sentences of about 13 tokens each, numbered so every chunk is distinct. */
  static String paragraph(int number, int sentences) {
    return String.join(" ", IntStream.range(0, sentences)
        .mapToObj(i -> "Sentence " + number + "-" + i + " explains how the product warranty covers repairs.")
        .toList());
  }

  static String table(int rows) {
    StringBuilder out = new StringBuilder("| Item | Price | Note |\n|---|---|---|");
    for (int i = 0; i < rows; i++) {
      out.append("\n| Item ").append(i).append(" | ").append(i * 3).append(" EUR | in stock |");
    }
    return out.toString();
  }
}
