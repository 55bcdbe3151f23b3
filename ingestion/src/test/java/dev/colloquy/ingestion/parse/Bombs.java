package dev.colloquy.ingestion.parse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSStream;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDResources;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.common.PDStream;
import org.apache.pdfbox.pdmodel.graphics.form.PDFormXObject;

/** Small files that make a parser work without end: what an attacker uploads. Test fixtures. */
public final class Bombs {

  private Bombs() {}

  /**
   * A PDF of a few kilobytes whose one page draws a form that draws a form that draws a form,
   * {@code fanOut} times at each level: fanOut³ × 100 path operators for the text extractor to walk,
   * and not a single character of text, so a parser checking its time at each piece of text never does.
   */
  public static byte[] formFanOutPdf(int fanOut) {
    try (PDDocument document = new PDDocument(); ByteArrayOutputStream bytes = new ByteArrayOutputStream()) {
      PDFormXObject leaf = form(document, "0 0 m 1 1 l S\n".repeat(100), null, null);
      PDFormXObject middle = form(document, "/X Do\n".repeat(fanOut), "X", leaf);
      PDFormXObject top = form(document, "/X Do\n".repeat(fanOut), "X", middle);
      PDPage page = new PDPage(PDRectangle.A4);
      PDResources resources = new PDResources();
      resources.put(COSName.getPDFName("X"), top);
      page.setResources(resources);
      PDStream content = new PDStream(document);
      try (OutputStream out = content.createOutputStream(COSName.FLATE_DECODE)) {
        out.write("/X Do\n".repeat(fanOut).getBytes(StandardCharsets.US_ASCII));
      }
      page.setContents(content);
      document.addPage(page);
      document.save(bytes);
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A PDF whose page content is one Flate stream holding a single string of {@code inflatedBytes}
   * letters, compressed to a few thousandths of that: a decompression bomb, since a parser holds a
   * string whole to read it.
   */
  public static byte[] flatePdf(long inflatedBytes) {
    try (PDDocument document = new PDDocument(); ByteArrayOutputStream bytes = new ByteArrayOutputStream()) {
      PDPage page = new PDPage(PDRectangle.A4);
      COSStream stream = document.getDocument().createCOSStream();
      try (OutputStream raw = stream.createRawOutputStream()) {
        DeflaterOutputStream deflate = new DeflaterOutputStream(raw, new Deflater(Deflater.BEST_SPEED), 64 * 1024);
        byte[] letters = "a".repeat(1024 * 1024).getBytes(StandardCharsets.US_ASCII);
        deflate.write("BT /F1 12 Tf (".getBytes(StandardCharsets.US_ASCII));
        for (long written = 0; written < inflatedBytes; written += letters.length) {
          deflate.write(letters);
        }
        deflate.write(") Tj ET".getBytes(StandardCharsets.US_ASCII));
        deflate.finish();
      }
      stream.setItem(COSName.FILTER, COSName.FLATE_DECODE);
      page.setContents(new PDStream(stream));
      document.addPage(page);
      document.save(bytes);
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static PDFormXObject form(PDDocument document, String operators, String name, PDFormXObject child)
      throws IOException {
    PDStream stream = new PDStream(document);
    try (OutputStream out = stream.createOutputStream(COSName.FLATE_DECODE)) {
      out.write(operators.getBytes(StandardCharsets.US_ASCII));
    }
    PDFormXObject form = new PDFormXObject(stream);
    form.setBBox(new PDRectangle(10, 10));
    if (child != null) {
      PDResources resources = new PDResources();
      resources.put(COSName.getPDFName(name), child);
      form.setResources(resources);
    }
    return form;
  }
}
