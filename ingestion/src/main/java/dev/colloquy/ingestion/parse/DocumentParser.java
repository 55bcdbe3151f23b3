package dev.colloquy.ingestion.parse;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.tika.exception.EncryptedDocumentException;
import org.apache.tika.metadata.Metadata;
import org.apache.tika.metadata.TikaCoreProperties;
import org.apache.tika.mime.MediaType;
import org.apache.tika.mime.MimeTypes;
import org.apache.tika.parser.ParseContext;
import org.apache.tika.parser.Parser;
import org.apache.tika.parser.html.JSoupParser;
import org.apache.tika.parser.microsoft.ooxml.OOXMLParser;
import org.apache.tika.parser.pdf.PDFParser;
import org.apache.tika.parser.txt.TXTParser;

/**
 * Parses an uploaded file into typed elements in document order, on the calling thread. PDF, DOCX,
 * HTML and TXT go through Tika's XHTML output; Markdown through CommonMark and CSV through Commons
 * CSV, which Tika would read as plain text.
 *
 * <p>Guards: the upload size; the file type (by extension, checked against the content's magic
 * bytes); DOCX archives are inspected for decompression bombs before any parser opens them; XML
 * with a DTD is refused by Tika's and POI's secure XML settings; extracted text is capped for every
 * format, and a parse gives up at its next piece of text once past its time. That last check is
 * cooperative: a parser busy without producing text does not see it, so untrusted files are parsed
 * through {@link ParserProcesses}, which runs this class in a JVM it kills at the time limit. Every
 * refusal is an {@link IngestionException} with a stable code. Thread-safe.
 */
public final class DocumentParser implements DocumentParsing {

  private final KnowledgeSettings.Ingestion limits;

  public DocumentParser(KnowledgeSettings.Ingestion limits) {
    this.limits = limits;
  }

  public KnowledgeSettings.Ingestion limits() {
    return limits;
  }

  /**
   * Checks what can be checked without parsing: size and type. Callers that accept uploads run this
   * first so an oversized or unsupported file is refused at once.
   */
  public DocumentType accept(String fileName, byte[] content) {
    if (content.length > limits.maxUploadBytes()) {
      throw new IngestionException(
          Code.TOO_LARGE, "the file is " + content.length + " bytes; the limit is " + limits.maxUploadBytes());
    }
    DocumentType type = detectType(fileName, content);
    if (type == DocumentType.TXT) {
      refuseTooMuchText(content);
    }
    return type;
  }

  /**
   * A plain-text file yields its own characters, so one over the text cap is refused at upload
   * rather than accepted and failed later; other types yield less text than their bytes hold.
   */
  private void refuseTooMuchText(byte[] content) {
    if (content.length <= limits.maxExtractedChars()) {
      return;
    }
    int chars = TextDecoding.decode(content).length();
    if (chars > limits.maxExtractedChars()) {
      throw new IngestionException(Code.TOO_LARGE, "the file holds " + chars + " characters of text; the limit is "
          + limits.maxExtractedChars());
    }
  }

  public ParsedDocument parse(String fileName, byte[] content) {
    DocumentType type = accept(fileName, content);
    if (type == DocumentType.DOCX) {
      ArchiveGuard.check(content, limits);
    }
    TextBudget budget = new TextBudget(limits.parseTimeout().toNanos(), limits.maxExtractedChars());
    ParsedDocument parsed;
    try {
      parsed = parseNow(type, fileName, content, budget);
    } catch (IngestionException e) {
      throw e;
    } catch (Exception | StackOverflowError e) {
      throw translate(type, e);
    }
    if (parsed.elements().isEmpty()) {
      throw new IngestionException(Code.EMPTY_DOCUMENT, "the file holds no text");
    }
    return parsed;
  }

  @Override
  public ParsedDocument parse(String fileName, Path file) {
    return parse(fileName, read(file));
  }

  /**
   * What {@link #accept(String, byte[])} checks, for a file on disk, reading only its head (and, for
   * a large text file, counting its characters as it streams): an upload is refused without being
   * held in memory.
   */
  public DocumentType accept(String fileName, Path file) {
    long size = size(file);
    if (size > limits.maxUploadBytes()) {
      throw new IngestionException(Code.TOO_LARGE, "the file is " + size + " bytes; the limit is " + limits.maxUploadBytes());
    }
    DocumentType type = detectType(fileName, head(file));
    if (type == DocumentType.TXT && size > limits.maxExtractedChars()) {
      long chars = TextDecoding.countChars(file);
      if (chars > limits.maxExtractedChars()) {
        throw new IngestionException(Code.TOO_LARGE, "the file holds " + chars + " characters of text; the limit is "
            + limits.maxExtractedChars());
      }
    }
    return type;
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new IngestionException(Code.INTERNAL_ERROR, "the uploaded file could not be read", e);
    }
  }

  /** Enough of a file for its magic bytes to be recognised. */
  private static byte[] head(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return in.readNBytes(64 * 1024);
    } catch (IOException e) {
      throw new IngestionException(Code.INTERNAL_ERROR, "the uploaded file could not be read", e);
    }
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IngestionException(Code.INTERNAL_ERROR, "the uploaded file could not be read", e);
    }
  }

  /** The type of a file: its extension must name a supported type and its content must not contradict it. */
  public static DocumentType detectType(String fileName, byte[] content) {
    DocumentType byName = DocumentType.fromFileName(fileName)
        .orElseThrow(() -> new IngestionException(
            Code.UNSUPPORTED_TYPE, "'" + fileName + "' is not a PDF, DOCX, HTML, Markdown, TXT or CSV file"));
    MediaType magic = sniff(content);
    boolean binary = magic.equals(MediaType.application("pdf")) || isZip(magic)
        || magic.getType().equals("image") || magic.getType().equals("audio") || magic.getType().equals("video")
        || magic.equals(MediaType.application("x-msdownload")) || magic.equals(MediaType.application("x-tika-msoffice"));
    switch (byName) {
      case PDF -> requireContent(magic.equals(MediaType.application("pdf")), fileName, "PDF");
      case DOCX -> requireContent(isZip(magic), fileName, "DOCX");
      default -> {
        if (binary) {
          throw new IngestionException(
              Code.UNSUPPORTED_TYPE, "'" + fileName + "' is named as text but its content is " + magic);
        }
      }
    }
    return byName;
  }

  private static boolean isZip(MediaType magic) {
    String subtype = magic.getSubtype();
    return subtype.contains("zip") || subtype.contains("ooxml") || subtype.contains("openxml");
  }

  private static MediaType sniff(byte[] content) {
    try {
      return MimeTypes.getDefaultMimeTypes().detect(new ByteArrayInputStream(content), new Metadata());
    } catch (IOException e) {
      return MediaType.OCTET_STREAM;
    }
  }

  private static void requireContent(boolean matches, String fileName, String typeName) {
    if (!matches) {
      throw new IngestionException(Code.CORRUPT_FILE, "'" + fileName + "' is not a valid " + typeName + " file");
    }
  }

  private ParsedDocument parseNow(DocumentType type, String fileName, byte[] content, TextBudget budget)
      throws Exception {
    ElementCollector collector = new ElementCollector(budget);
    String title = "";
    switch (type) {
      case MARKDOWN -> new MarkdownReader(collector, budget).read(TextDecoding.decode(content));
      case CSV -> new CsvReader(collector, budget).read(TextDecoding.decode(content));
      default -> title = parseWithTika(type, fileName, content, collector, budget);
    }
    return new ParsedDocument(type, title, collector.elements());
  }

  private String parseWithTika(
      DocumentType type, String fileName, byte[] content, ElementCollector collector, TextBudget budget)
      throws Exception {
    Metadata metadata = new Metadata();
    metadata.set(TikaCoreProperties.RESOURCE_NAME_KEY, fileName);
    Parser parser = tikaParserFor(type);
    XhtmlElementHandler handler = new XhtmlElementHandler(collector, budget, type == DocumentType.PDF);
    parser.parse(new ByteArrayInputStream(content), handler, metadata, new ParseContext());
    String title = metadata.get(TikaCoreProperties.TITLE);
    return title == null ? "" : title.strip();
  }

  private static Parser tikaParserFor(DocumentType type) {
    return switch (type) {
      case PDF -> new PDFParser();
      case DOCX -> new OOXMLParser();
      case HTML -> new JSoupParser();
      case TXT -> new TXTParser();
      case MARKDOWN, CSV -> throw new IllegalArgumentException(type + " is not parsed by Tika");
    };
  }

  private static IngestionException translate(DocumentType type, Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof IngestionException ingestion) {
        return ingestion;
      }
      if (cause instanceof EncryptedDocumentException) {
        return new IngestionException(Code.ENCRYPTED, "the file is password protected", failure);
      }
      if (mentionsDtd(cause.getMessage())) {
        return new IngestionException(
            Code.XML_ENTITIES, "the file declares a DTD or XML entities, which are refused", failure);
      }
      if (cause instanceof OutOfMemoryError || cause == cause.getCause()) {
        break;
      }
    }
    return new IngestionException(
        Code.CORRUPT_FILE, "the file could not be read as " + type.wireName().toUpperCase(Locale.ROOT) + ": "
            + rootMessage(failure), failure);
  }

  private static boolean mentionsDtd(String message) {
    if (message == null) {
      return false;
    }
    String lower = message.toLowerCase(Locale.ROOT);
    return lower.contains("doctype") || lower.contains("entity expansion") || lower.contains("external entity")
        || lower.contains("entities");
  }

  private static String rootMessage(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
