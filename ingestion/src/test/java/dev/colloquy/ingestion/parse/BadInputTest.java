package dev.colloquy.ingestion.parse;

import static dev.colloquy.ingestion.parse.DocumentParserTest.assertCode;
import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.TestLimits;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.tika.metadata.Metadata;
import org.apache.tika.mime.MediaType;
import org.apache.tika.parser.ParseContext;
import org.apache.tika.parser.Parser;
import org.junit.jupiter.api.Test;
import org.xml.sax.ContentHandler;

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

  @Test
  void aParserThatHangsIsAbandonedAtTheTimeLimit() throws InterruptedException {
    CountDownLatch released = new CountDownLatch(1);
    DocumentParser hanging = new DocumentParser(
        TestLimits.withParseTimeout(Duration.ofMillis(300)), Optional.of(new HangingParser(released)));

    long start = System.nanoTime();
    assertThatThrownBy(() -> hanging.parse("slow.html", utf8("<p>x</p>")))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.PARSE_TIMEOUT));

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(released.await(5, TimeUnit.SECONDS)).as("the hanging parse was interrupted").isTrue();
  }

  /** Blocks until interrupted, like a parser stuck in a loop would (but one that can be stopped). */
  private record HangingParser(CountDownLatch released) implements Parser {
    @Override
    public Set<MediaType> getSupportedTypes(ParseContext context) {
      return Set.of(MediaType.TEXT_HTML);
    }

    @Override
    public void parse(InputStream stream, ContentHandler handler, Metadata metadata, ParseContext context) {
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        released.countDown();
      }
    }
  }
}
