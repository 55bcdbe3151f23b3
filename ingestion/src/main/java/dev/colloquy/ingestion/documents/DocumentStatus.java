package dev.colloquy.ingestion.documents;

import java.util.Locale;

/** Where a document version is in its ingestion: pending → processing → ready | failed. */
public enum DocumentStatus {
  PENDING,
  PROCESSING,
  READY,
  FAILED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static DocumentStatus fromWireName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }
}
