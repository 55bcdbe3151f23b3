package dev.colloquy.ingestion.store;

import java.nio.file.Path;

class LuceneVectorStoreTest extends VectorStoreContract {

  @Override
  protected VectorStore open(Path directory) {
    return new LuceneVectorStore(directory, DIMENSIONS);
  }
}
