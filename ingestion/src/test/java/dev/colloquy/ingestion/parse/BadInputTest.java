package dev.colloquy.ingestion.parse;

import static dev.colloquy.ingestion.parse.DocumentParserTest.assertCode;
import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.TestLimits;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BadInputTest {

  private static final String DOCUMENT_XML = "word/document.xml";
  private final DocumentParser parser = new DocumentParser(TestLimits.defaults());

  @Test
  void docxWithTooManyEntriesIsABomb() {
    byte[] bomb = Fixtures.withExtraEntries(Fixtures.docx(), 60, 10);
    DocumentParser strict = new DocumentParser(TestLimits.withArchiveLimits(50, 100 * TestLimits.MIB));

    assertCode(() -> strict.parse("bomb.docx", bomb), Code.DECOMPRESSION_BOMB);
  }

  @Test
  void docxInflatingPastTheLimitIsABomb() {
    byte[] bomb = Fixtures.withExtraEntries(Fixtures.docx(), 1, 8 * (int) TestLimits.MIB);
    DocumentParser strict = new DocumentParser(TestLimits.withArchiveLimits(1_000, 4 * TestLimits.MIB));

    assertThat(bomb.length).isLessThan(64 * 1024);
    assertCode(() -> strict.parse("bomb.docx", bomb), Code.DECOMPRESSION_BOMB);
  }

  @Test
  void billionLaughsInDocxIsRefused() {
    String laughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
          <!ENTITY lol "lol">
          <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
          <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
          <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
          <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
          <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
          <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
          <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
          <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
        ]>
        <w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
          <w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body>
        </w:document>""";
    byte[] attack = Fixtures.replaceEntry(Fixtures.docx(), DOCUMENT_XML, utf8(laughs));

    assertCode(() -> parser.parse("laughs.docx", attack), Code.XML_ENTITIES);
  }

  @Test
  void externalEntityInDocxIsRefusedAndNothingLeaks() {
    String xxe = """
        <?xml version="1.0"?>
        <!DOCTYPE doc [ <!ENTITY secret SYSTEM "file:///etc/hostname"> ]>
        <w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
          <w:body><w:p><w:r><w:t>&secret;</w:t></w:r></w:p></w:body>
        </w:document>""";
    byte[] attack = Fixtures.replaceEntry(Fixtures.docx(), DOCUMENT_XML, utf8(xxe));

    assertCode(() -> parser.parse("xxe.docx", attack), Code.XML_ENTITIES);
  }

  @Test
  void entitiesDeclaredInHtmlAreNotExpanded() {
    String html = """
        <!DOCTYPE html [ <!ENTITY boom "BOOM BOOM BOOM"> <!ENTITY leak SYSTEM "file:///etc/hostname"> ]>
        <html><body><p>Safe &boom; &leak; text</p></body></html>""";

    ParsedDocument doc = parser.parse("entities.html", utf8(html));

    assertThat(doc.elements()).extracting(Element::text).noneMatch(text -> text.contains("BOOM BOOM"));
  }

  @Test
  void corruptPdfIsReportedAsCorrupt() {
    byte[] pdf = Fixtures.pdf();
    byte[] truncated = Arrays.copyOf(pdf, 40);

    assertCode(() -> parser.parse("broken.pdf", truncated), Code.CORRUPT_FILE);
  }

  @Test
  void corruptDocxIsReportedAsCorrupt() {
    byte[] docx = Fixtures.docx();
    byte[] truncated = Arrays.copyOf(docx, docx.length / 2);

    assertCode(() -> parser.parse("broken.docx", truncated), Code.CORRUPT_FILE);
  }

  @Test
  void aParseOverTheTimeLimitStopsAtItsNextEvent() {
    DocumentParser impatient = new DocumentParser(TestLimits.withParseTimeout(Duration.ofNanos(1)));

    assertCode(() -> impatient.parse("shipping.pdf", Fixtures.pdf()), Code.PARSE_TIMEOUT);
  }
}
