package dev.colloquy.ingestion.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.NoMergePolicy;
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

  @Test
  void mergesThatEndAfterATenantsLastWriteReachItsSearches(@TempDir Path elsewhere) {
    CountDownLatch mergesMayRun = new CountDownLatch(1);
    // Merges wait until every write is done, as a bulk ingestion's last merges end after its last commit.
    ConcurrentMergeScheduler heldMerges = new ConcurrentMergeScheduler() {
      @Override
      protected void doMerge(MergeSource source, MergePolicy.OneMerge merge) throws IOException {
        try {
          mergesMayRun.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted before merging", e);
        }
        super.doMerge(source, merge);
      }
    };
    float[] x = {1, 0, 0, 0};
    try (LuceneVectorStore store = new LuceneVectorStore(elsewhere, DIMENSIONS,
        config -> config.setMergeScheduler(heldMerges).setMaxFullFlushMergeWaitMillis(0))) {
      int writes = 15;
      for (int i = 0; i < writes; i++) {
        store.upsert("acme", List.of(embedded(chunk("acme", "doc-" + i, 0, "Chunk number " + i, "Chunks"), x, x, x)));
      }
      assertThat(store.searchedSegments("acme")).as("one segment per committed write").isEqualTo(writes);

      mergesMayRun.countDown();

      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (store.searchedSegments("acme") == writes && System.nanoTime() < deadline) {
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
      assertThat(store.searchedSegments("acme")).as("segments searched once the merges ended, with no write since").isLessThan(writes);
      for (int i = 0; i < writes; i++) {
        assertThat(store.count("acme", "doc-" + i)).isEqualTo(1);
      }
    }
  }

  @Test
  void searchesRankAcrossTheSegmentsOfAnIndex(@TempDir Path elsewhere) {
    float[] query = {1, 0, 0, 0};
    try (LuceneVectorStore store = new LuceneVectorStore(elsewhere, DIMENSIONS, config -> config.setMergePolicy(NoMergePolicy.INSTANCE))) {
      // One write per chunk, merges off: each chunk in a segment of its own, the nearest ones in the first.
      int chunks = 6;
      for (int i = 0; i < chunks; i++) {
        float[] vector = {chunks - i, i, 0, 0};
        store.upsert("acme", List.of(embedded(chunk("acme", "doc-" + i, 0, "refund number " + i, "Refunds"), vector, vector, vector)));
        store.publish("acme", "doc-" + i, List.of());
      }
      assertThat(store.searchedSegments("acme")).isEqualTo(chunks);

      for (VectorName space : VectorName.values()) {
        assertThat(store.searchDense("acme", space, query, 3)).as(space.name())
            .extracting(hit -> hit.chunk().documentId()).containsExactly("doc-0", "doc-1", "doc-2");
      }
      assertThat(store.searchDenseEach("acme", List.of(VectorName.values()), query, 2).values())
          .allSatisfy(hits -> assertThat(hits).extracting(hit -> hit.chunk().documentId()).containsExactly("doc-0", "doc-1"));
      assertThat(store.searchText("acme", "refund", 10)).hasSize(chunks);
      assertThat(store.searchableCount("acme")).isEqualTo(chunks);
    }
  }
}
