package dev.colloquy.ingestion.parse;

import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.TestLimits;
import java.util.List;
import org.junit.jupiter.api.Test;

class DocumentParserTest {

  private final DocumentParser parser = new DocumentParser(TestLimits.defaults());

  @Test
  void docxHeadingsParagraphsListAndTableInOrder() {
    ParsedDocument doc = parser.parse("policy.docx", Fixtures.docx());

    assertThat(doc.type()).isEqualTo(DocumentType.DOCX);
    assertThat(doc.elements())
        .extracting(Element::type)
        .containsExactly(
            ElementType.HEADING, ElementType.PARAGRAPH, ElementType.LIST_ITEM, ElementType.LIST_ITEM,
            ElementType.TABLE, ElementType.HEADING, ElementType.PARAGRAPH);
    assertThat(doc.elements().get(0)).isEqualTo(Element.heading(1, "Returns"));
    assertThat(doc.elements().get(2).text()).isEqualTo("Keep the receipt");
    assertThat(doc.elements().get(4).text())
        .isEqualTo("| Product | Days |\n|---|---|\n| Shoes | 30 |\n| Laptops | 14 |");
    assertThat(doc.elements().get(4).section()).isEqualTo("Returns");
    assertThat(doc.elements().get(5)).isEqualTo(Element.heading(2, "Exceptions"));
    assertThat(doc.elements().get(6).section()).isEqualTo("Exceptions");
  }

  @Test
  void pdfParagraphsWithHeadingsGuessedFromShortLines() {
    ParsedDocument doc = parser.parse("shipping.pdf", Fixtures.pdf());

    assertThat(doc.elements())
        .containsExactly(
            Element.heading(2, "Shipping Policy"),
            Element.paragraph(
                "We ship to all countries in the European Union. Delivery takes three to five working days.",
                "Shipping Policy"),
            Element.heading(2, "Refunds"),
            Element.paragraph("Refunds are paid within ten days of receiving the parcel.", "Refunds"));
  }

  @Test
  void htmlBlocksLooseTextNestedListsCodeAndTables() {
    String html = """
        <html><head><title>Help</title><style>p { color: red }</style></head><body>
        <h1>Account</h1><div>Loose text <b>in bold</b></div>
        <p>First paragraph.</p>
        <ol><li>Open settings<ul><li>Tap profile</li></ul></li><li>Save</li></ol>
        <pre><code>curl -X POST /v1/reset
          --data x</code></pre>
        <h2>Fees</h2>
        <table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>5 | EUR</td></tr></table>
        <script>alert('x')</script>
        </body></html>""";

    ParsedDocument doc = parser.parse("help.html", utf8(html));

    assertThat(doc.title()).isEqualTo("Help");
    assertThat(doc.elements())
        .containsExactly(
            Element.heading(1, "Account"),
            Element.paragraph("Loose text in bold", "Account"),
            Element.paragraph("First paragraph.", "Account"),
            Element.listItem("Open settings", 0, true, "Account"),
            Element.listItem("Tap profile", 1, false, "Account"),
            Element.listItem("Save", 0, true, "Account"),
            Element.code("curl -X POST /v1/reset\n  --data x", "Account"),
            Element.heading(2, "Fees"),
            Element.table("| Plan | Price |\n|---|---|\n| Basic | 5 \\| EUR |", "Fees"));
  }

  @Test
  void markdownThroughCommonMark() {
    String markdown = """
        # Guide

        Intro with `code` and a [link](https://example.org).

        ## Steps

        1. Install
           - on Linux
        2. Run

        ```java
        int x = 1;
        ```

        | Key | Value |
        |-----|-------|
        | a   | 1     |
        """;

    ParsedDocument doc = parser.parse("guide.md", utf8(markdown));

    assertThat(doc.elements())
        .containsExactly(
            Element.heading(1, "Guide"),
            Element.paragraph("Intro with `code` and a link.", "Guide"),
            Element.heading(2, "Steps"),
            Element.listItem("Install", 0, true, "Steps"),
            Element.listItem("on Linux", 1, false, "Steps"),
            Element.listItem("Run", 0, true, "Steps"),
            Element.code("int x = 1;", "Steps"),
            Element.table("| Key | Value |\n|---|---|\n| a | 1 |", "Steps"));
  }

  @Test
  void plainTextParagraphsSplitOnBlankLines() {
    ParsedDocument doc = parser.parse("notes.txt", utf8("Line one\nline two\n\nSecond paragraph – naïve.\n"));

    assertThat(doc.elements())
        .containsExactly(Element.paragraph("Line one line two", ""), Element.paragraph("Second paragraph – naïve.", ""));
  }

  @Test
  void csvIsOneTableWithItsHeader() {
    ParsedDocument doc = parser.parse("prices.csv", utf8("name,price\n\"apple, red\",1\npear,2\n"));

    assertThat(doc.elements())
        .containsExactly(Element.table("| name | price |\n|---|---|\n| apple, red | 1 |\n| pear | 2 |", ""));
  }

  @Test
  void unsupportedAndMislabelledFilesAreRefusedBeforeParsing() {
    assertCode(() -> parser.parse("old.doc", utf8("x")), Code.UNSUPPORTED_TYPE);
    assertCode(() -> parser.parse("noextension", utf8("x")), Code.UNSUPPORTED_TYPE);
    assertCode(() -> parser.parse("image.txt", Fixtures.pdf()), Code.UNSUPPORTED_TYPE);
    assertCode(() -> parser.parse("fake.pdf", utf8("just text")), Code.CORRUPT_FILE);
  }

  @Test
  void tooLargeIsRefusedBeforeParsing() {
    DocumentParser small = new DocumentParser(TestLimits.withMaxUploadBytes(10));

    assertCode(() -> small.accept("a.txt", utf8("more than ten bytes")), Code.TOO_LARGE);
  }

  @Test
  void emptyDocumentIsReported() {
    assertCode(() -> parser.parse("empty.md", utf8("\n\n   \n")), Code.EMPTY_DOCUMENT);
  }

  static void assertCode(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Code code) {
    assertThatThrownBy(call)
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(code));
  }

  static List<String> texts(ParsedDocument doc) {
    return doc.elements().stream().map(Element::text).toList();
  }
}
