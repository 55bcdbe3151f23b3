package dev.colloquy.ingestion.parse;

import dev.colloquy.config.KnowledgeSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * What a parser JVM parses before it says it is ready: a one-page PDF and a short Markdown file made
 * here. Loading Tika's, PDFBox's and CommonMark's classes takes a fresh JVM seconds on a busy machine;
 * done at start (within the start-up timeout), it no longer counts against the first file's parse
 * timeout, which then measures parsing only.
 */
final class ParserWarmUp {

  private static final KnowledgeSettings.Ingestion LIMITS = new KnowledgeSettings.Ingestion(1 << 20,
      Duration.ofMinutes(1), 16, 1 << 20, 100_000, 1, 0, 0, 1, Duration.ofMinutes(1));

  private ParserWarmUp() {}

  /** Parses both samples; a failure here is left to the real parses to report. */
  static void run() {
    DocumentParser parser = new DocumentParser(LIMITS);
    try {
      parser.parse("warm-up.pdf", pdf());
      parser.parse("warm-up.md", "# Warm-up\n\nA paragraph.\n".getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException | IOException e) {
      System.err.println("parser warm-up failed: " + e);
    }
  }

  private static byte[] pdf() throws IOException {
    try (PDDocument document = new PDDocument()) {
      PDPage page = new PDPage();
      document.addPage(page);
      try (PDPageContentStream content = new PDPageContentStream(document, page)) {
        content.beginText();
        content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 11);
        content.newLineAtOffset(72, 700);
        content.showText("Warm-up");
        content.endText();
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      document.save(out);
      return out.toByteArray();
    }
  }
}
