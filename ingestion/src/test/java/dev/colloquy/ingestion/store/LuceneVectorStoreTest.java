package dev.colloquy.ingestion.store;

import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LuceneVectorStoreTest extends VectorStoreContract {

  @Override
  protected VectorStore open(Path directory) {
    return new LuceneVectorStore(directory, DIMENSIONS);
  }

  @Test
  void closingTwiceIsHarmless(@TempDir Path elsewhere) {
    VectorStore store = open(elsewhere);
    store.upsert("acme", java.util.List.of());
    store.close();
    assertThatCode(store::close).doesNotThrowAnyException();
  }
}
