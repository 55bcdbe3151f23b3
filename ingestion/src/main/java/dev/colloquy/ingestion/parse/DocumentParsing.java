package dev.colloquy.ingestion.parse;

import java.nio.file.Path;

/**
 * Turns an accepted file into its elements. {@link DocumentParser} does it on the calling thread;
 * {@link ParserProcesses} in JVMs of their own, which a parse that runs away cannot outlive.
 */
public interface DocumentParsing {

  /**
   * @throws dev.colloquy.ingestion.IngestionException with a stable code when the file cannot be parsed
   */
  ParsedDocument parse(String fileName, Path file);
}
