package dev.colloquy.ingestion.store;

import static org.assertj.core.api.Assertions.assertThat;
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
  void aTenantHoldsNothingUntilItsFirstChunkIsStored(@TempDir Path elsewhere) {
    try (VectorStore store = open(elsewhere)) {
      assertThat(store.holdsNothingFor("acme")).isTrue();
      store.upsert("acme", java.util.List.of(embedded(chunk("acme", "doc-1", 0, "Refunds.", "Refunds"),
          new float[] {1, 0, 0, 0}, new float[] {0, 1, 0, 0}, new float[] {0, 0, 1, 0})));
      assertThat(store.holdsNothingFor("acme")).isFalse();
      assertThat(store.holdsNothingFor("globex")).isTrue();
    }
    try (VectorStore reopened = open(elsewhere)) {
      assertThat(reopened.holdsNothingFor("acme")).as("its index is on disk").isFalse();
    }
  }

  @Test
  void closingTwiceIsHarmless(@TempDir Path elsewhere) {
    VectorStore store = open(elsewhere);
    store.upsert("acme", java.util.List.of());
    store.close();
    assertThatCode(store::close).doesNotThrowAnyException();
  }
}
