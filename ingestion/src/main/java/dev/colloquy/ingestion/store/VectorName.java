package dev.colloquy.ingestion.store;

import java.util.Locale;

/** The three named vectors every chunk is stored with (seed 004 §6.4). */
public enum VectorName {
  TEXT,
  SUMMARY,
  QUESTIONS;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
