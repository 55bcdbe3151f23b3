package dev.colloquy.ingestion.parse;

import java.util.Locale;
import java.util.Optional;

/** The file types that can be ingested. */
public enum DocumentType {
  PDF("pdf"),
  DOCX("docx"),
  HTML("html"),
  MARKDOWN("md"),
  TXT("txt"),
  CSV("csv");

  private final String wireName;

  DocumentType(String wireName) {
    this.wireName = wireName;
  }

  /** The short name stored with a document ("pdf", "docx", "html", "md", "txt", "csv"). */
  public String wireName() {
    return wireName;
  }

  /** The type a file name's extension names, if it names a supported one. */
  public static Optional<DocumentType> fromFileName(String fileName) {
    int dot = fileName.lastIndexOf('.');
    if (dot < 0) {
      return Optional.empty();
    }
    return switch (fileName.substring(dot + 1).toLowerCase(Locale.ROOT)) {
      case "pdf" -> Optional.of(PDF);
      case "docx" -> Optional.of(DOCX);
      case "html", "htm", "xhtml" -> Optional.of(HTML);
      case "md", "markdown" -> Optional.of(MARKDOWN);
      case "txt", "text" -> Optional.of(TXT);
      case "csv" -> Optional.of(CSV);
      default -> Optional.empty();
    };
  }
}
