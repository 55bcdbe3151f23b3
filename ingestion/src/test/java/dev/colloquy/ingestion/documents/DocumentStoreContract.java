package dev.colloquy.ingestion.documents;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What every {@link DocumentStore} must do. */
abstract class DocumentStoreContract {

  private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

  protected abstract DocumentStore store();

  @Test
  void createsPendingVersionsNumberedPerFileNameAndTenant() {
    KnowledgeDocument first = store().create("acme", "faq.md", "md", T0);
    KnowledgeDocument second = store().create("acme", "faq.md", "md", T0.plusSeconds(1));
    KnowledgeDocument other = store().create("acme", "terms.pdf", "pdf", T0.plusSeconds(2));
    KnowledgeDocument elsewhere = store().create("globex", "faq.md", "md", T0.plusSeconds(3));

    assertThat(List.of(first.version(), second.version(), other.version(), elsewhere.version())).containsExactly(1, 2, 1, 1);
    assertThat(first.status()).isEqualTo(DocumentStatus.PENDING);
    assertThat(first.active()).isTrue();
    assertThat(store().find("acme", first.id())).contains(first);
    assertThat(store().find("globex", first.id())).isEmpty();
    assertThat(store().find("acme", "not-an-id")).isEmpty();
  }

  @Test
  void updatesStatusErrorsAndActivity() {
    KnowledgeDocument created = store().create("acme", "faq.md", "md", T0);
    KnowledgeDocument failed = created.processing(T0.plusSeconds(1)).failed("corrupt_file", "bad bytes", T0.plusSeconds(2));
    store().update(failed);
    assertThat(store().find("acme", created.id())).contains(failed);

    KnowledgeDocument ready = created.ready(12, T0.plusSeconds(3));
    store().update(ready);
    assertThat(store().find("acme", created.id())).contains(ready);

    KnowledgeDocument retired = ready.deactivated(T0.plusSeconds(4));
    store().update(retired);
    assertThat(store().find("acme", created.id())).contains(retired);
  }

  @Test
  void keepsTheDocumentTypeItsUploaderGaveThroughEveryChange() {
    KnowledgeDocument created = store().create("acme", "returns.md", "md", "policy", T0);
    KnowledgeDocument untyped = store().create("acme", "notes.md", "md", T0.plusSeconds(5));
    store().update(created.processing(T0.plusSeconds(1)).ready(3, T0.plusSeconds(2)));

    assertThat(store().find("acme", created.id()).orElseThrow().documentType()).isEqualTo("policy");
    assertThat(store().listActive("acme")).extracting(KnowledgeDocument::documentType).containsExactly(null, "policy");
    assertThat(untyped.documentType()).isNull();
  }

  @Test
  void listsActiveDocumentsNewestFirstAndActiveVersionsOfAFile() {
    KnowledgeDocument v1 = store().create("acme", "faq.md", "md", T0);
    KnowledgeDocument v2 = store().create("acme", "faq.md", "md", T0.plusSeconds(10));
    KnowledgeDocument terms = store().create("acme", "terms.pdf", "pdf", T0.plusSeconds(20));
    store().create("globex", "faq.md", "md", T0.plusSeconds(30));

    assertThat(store().listActive("acme")).extracting(KnowledgeDocument::id).containsExactly(terms.id(), v2.id(), v1.id());
    assertThat(store().activeVersions("acme", "faq.md")).extracting(KnowledgeDocument::version).containsExactlyInAnyOrder(1, 2);

    store().update(v1.deactivated(T0.plusSeconds(40)));

    assertThat(store().listActive("acme")).extracting(KnowledgeDocument::id).containsExactly(terms.id(), v2.id());
    assertThat(store().activeVersions("acme", "faq.md")).extracting(KnowledgeDocument::id).containsExactly(v2.id());
  }

  @Test
  void concurrentUploadsOfOneFileNameGetDistinctVersions() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<CompletableFuture<KnowledgeDocument>> uploads = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        uploads.add(CompletableFuture.supplyAsync(() -> store().create("acme", "race.md", "md", T0), pool));
      }
      List<Integer> versions = new ArrayList<>();
      for (CompletableFuture<KnowledgeDocument> upload : uploads) {
        versions.add(upload.get(30, TimeUnit.SECONDS).version());
      }
      assertThat(versions).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8);
    } finally {
      pool.shutdownNow();
    }
  }
}
