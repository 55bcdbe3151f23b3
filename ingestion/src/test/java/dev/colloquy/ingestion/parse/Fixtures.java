package dev.colloquy.ingestion.parse;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDFont;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.poi.xwpf.usermodel.XWPFAbstractNum;
import org.apache.poi.xwpf.usermodel.XWPFDocument;
import org.apache.poi.xwpf.usermodel.XWPFNumbering;
import org.apache.poi.xwpf.usermodel.XWPFParagraph;
import org.apache.poi.xwpf.usermodel.XWPFStyle;
import org.apache.poi.xwpf.usermodel.XWPFStyles;
import org.apache.poi.xwpf.usermodel.XWPFTable;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTAbstractNum;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTLvl;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTString;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.CTStyle;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.STNumberFormat;
import org.openxmlformats.schemas.wordprocessingml.x2006.main.STStyleType;

/** Small real documents made with the libraries Tika itself uses (POI for DOCX, PDFBox for PDF). */
public final class Fixtures {

  private Fixtures() {}

  /** A DOCX with two headings, paragraphs, a bulleted list and a table. */
  public static byte[] docx() {
    try (XWPFDocument doc = new XWPFDocument()) {
      addStyles(doc, 3);
      BigInteger bullets = addBulletNumbering(doc);
      heading(doc, 1, "Returns");
      doc.createParagraph().createRun().setText("You may return items within 30 days of delivery.");
      for (String item : List.of("Keep the receipt", "Use the original box")) {
        XWPFParagraph li = doc.createParagraph();
        li.setStyle("ListParagraph");
        li.setNumID(bullets);
        li.createRun().setText(item);
      }
      XWPFTable table = doc.createTable(3, 2);
      cell(table, 0, 0, "Product");
      cell(table, 0, 1, "Days");
      cell(table, 1, 0, "Shoes");
      cell(table, 1, 1, "30");
      cell(table, 2, 0, "Laptops");
      cell(table, 2, 1, "14");
      heading(doc, 2, "Exceptions");
      doc.createParagraph().createRun().setText("Sale items are final and cannot be returned.");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      doc.write(out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A one-page PDF with two bold headings, each followed by a paragraph. */
  public static byte[] pdf() {
    try (PDDocument doc = new PDDocument()) {
      PDPage page = new PDPage();
      doc.addPage(page);
      PDFont bold = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
      PDFont regular = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
      try (PDPageContentStream content = new PDPageContentStream(doc, page)) {
        float y = 700;
        y = line(content, bold, 18, "Shipping Policy", y, 30);
        y = line(content, regular, 11, "We ship to all countries in the European Union.", y, 14);
        y = line(content, regular, 11, "Delivery takes three to five working days.", y, 30);
        y = line(content, bold, 18, "Refunds", y, 30);
        line(content, regular, 11, "Refunds are paid within ten days of receiving the parcel.", y, 14);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      doc.save(out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A copy of {@code docx} with one entry's content replaced. */
  public static byte[] replaceEntry(byte[] docx, String entryName, byte[] replacement) {
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(docx))) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ZipOutputStream out = new ZipOutputStream(bytes)) {
        for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
          out.putNextEntry(new ZipEntry(entry.getName()));
          out.write(entry.getName().equals(entryName) ? replacement : in.readAllBytes());
          out.closeEntry();
        }
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A copy of {@code docx} with extra entries of {@code size} zero bytes each (they compress ~1000:1). */
  public static byte[] withExtraEntries(byte[] docx, int count, int size) {
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(docx))) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ZipOutputStream out = new ZipOutputStream(bytes)) {
        for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
          out.putNextEntry(new ZipEntry(entry.getName()));
          out.write(in.readAllBytes());
          out.closeEntry();
        }
        byte[] zeros = new byte[size];
        for (int i = 0; i < count; i++) {
          out.putNextEntry(new ZipEntry("word/media/padding" + i + ".bin"));
          out.write(zeros);
          out.closeEntry();
        }
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Paragraph styles "Heading 1" to "Heading {@code headingLevels}" and "List Paragraph", as Word names them. */
  public static void addStyles(XWPFDocument doc, int headingLevels) {
    XWPFStyles styles = doc.createStyles();
    for (int level = 1; level <= headingLevels; level++) {
      styles.addStyle(new XWPFStyle(style("Heading" + level, "heading " + level)));
    }
    styles.addStyle(new XWPFStyle(style("ListParagraph", "List Paragraph")));
  }

  private static CTStyle style(String id, String name) {
    CTStyle style = CTStyle.Factory.newInstance();
    style.setStyleId(id);
    style.setType(STStyleType.PARAGRAPH);
    CTString styleName = CTString.Factory.newInstance();
    styleName.setVal(name);
    style.setName(styleName);
    return style;
  }

  /** A bullet list numbering; paragraphs with its id are list items. */
  public static BigInteger addBulletNumbering(XWPFDocument doc) {
    CTAbstractNum abstractNum = CTAbstractNum.Factory.newInstance();
    abstractNum.setAbstractNumId(BigInteger.ZERO);
    CTLvl level = abstractNum.addNewLvl();
    level.setIlvl(BigInteger.ZERO);
    level.addNewNumFmt().setVal(STNumberFormat.BULLET);
    level.addNewLvlText().setVal("\u2022");
    XWPFNumbering numbering = doc.createNumbering();
    BigInteger abstractId = numbering.addAbstractNum(new XWPFAbstractNum(abstractNum));
    return numbering.addNum(abstractId);
  }

  private static void heading(XWPFDocument doc, int level, String text) {
    XWPFParagraph paragraph = doc.createParagraph();
    paragraph.setStyle("Heading" + level);
    paragraph.createRun().setText(text);
  }

  private static void cell(XWPFTable table, int row, int column, String text) {
    table.getRow(row).getCell(column).setText(text);
  }

  private static float line(PDPageContentStream content, PDFont font, float size, String text, float y, float gap)
      throws IOException {
    content.beginText();
    content.setFont(font, size);
    content.newLineAtOffset(72, y);
    content.showText(text);
    content.endText();
    return y - gap;
  }
}
