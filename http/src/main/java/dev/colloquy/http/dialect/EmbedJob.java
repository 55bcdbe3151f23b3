package dev.colloquy.http.dialect;

import dev.colloquy.engine.StageFailures;
import dev.colloquy.http.ApiDocumentStatus;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.documents.DocumentStatus;
import dev.colloquy.ingestion.documents.KnowledgeDocument;
import dev.colloquy.ingestion.documents.KnowledgeService;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * One embedding job of the Edge contract: each item's text goes through the knowledge base's own
 * ingestion (parse, chunk, embed, store) as a text document named for the item, so it becomes
 * searchable like an upload; an item sent again with the same id makes a new version that replaces
 * the old. The job reports progress as each item is done, in the order they finish, then its totals.
 */
final class EmbedJob {

  /** Items ingested at the same time; the knowledge base's own workers bound the real parallelism. */
  private static final int PARALLELISM = 4;

  record Item(String id, String text) {}

  record Ready(String jobId, int total, String traceId) {}

  record Status(String jobId, int processed, int total, double progress, String itemId, String status, String traceId) {}

  record ItemResult(String id, String documentId, String status, int chunkCount, String errorCode, String errorMessage) {}

  record Done(String jobId, int total, int embedded, int failed, int chunks, long durationMs, List<ItemResult> items,
      String traceId) {}

  private final KnowledgeService knowledge;
  private final Executor blocking;
  private final String tenantId;
  private final String jobId;
  private final String traceId;
  private final List<Item> items;

  EmbedJob(KnowledgeService knowledge, Executor blocking, String tenantId, String jobId, String traceId, List<Item> items) {
    this.knowledge = knowledge;
    this.blocking = blocking;
    this.tenantId = tenantId;
    this.jobId = jobId;
    this.traceId = traceId;
    this.items = List.copyOf(items);
  }

  /** {@code ready}, an {@code embed.status} per item done, and {@code embed.done}; the work starts when it is read. */
  Source<DialectSse.Frame, NotUsed> frames() {
    return Source.lazySource(() -> {
      long startedNanos = System.nanoTime();
      List<ItemResult> results = new ArrayList<>();
      Source<DialectSse.Frame, NotUsed> progress = Source.from(items)
          .mapAsyncUnordered(PARALLELISM, this::ingest)
          .map(result -> {
            results.add(result);
            int processed = results.size();
            return new DialectSse.Frame("embed.status", null, new Status(jobId, processed, items.size(),
                (double) processed / items.size(), result.id(), result.status(), traceId));
          });
      return Source.single(new DialectSse.Frame("ready", null, new Ready(jobId, items.size(), traceId)))
          .concatLazy(progress)
          .concatLazy(Source.lazySingle(() -> new DialectSse.Frame("embed.done", null, done(results, startedNanos))));
    }).mapMaterializedValue(future -> NotUsed.getInstance());
  }

  private Done done(List<ItemResult> results, long startedNanos) {
    int embedded = (int) results.stream().filter(r -> r.status().equals(DocumentStatus.READY.wireName())).count();
    int chunks = results.stream().mapToInt(ItemResult::chunkCount).sum();
    return new Done(jobId, items.size(), embedded, results.size() - embedded, chunks,
        (System.nanoTime() - startedNanos) / 1_000_000, List.copyOf(results), traceId);
  }

  /** One item through ingestion, to its end: ready with its chunks, or failed with the reason. */
  private CompletionStage<ItemResult> ingest(Item item) {
    return CompletableFuture
        .supplyAsync(() -> knowledge.ingest(tenantId, item.id() + ".txt", item.text().getBytes(StandardCharsets.UTF_8)),
            blocking)
        .thenCompose(KnowledgeService.Ingestion::completion)
        .thenApply(document -> result(item, document))
        .exceptionally(failure -> {
          Throwable cause = StageFailures.cause(failure);
          String code = cause instanceof IngestionException refused ? refused.code().wireName() : "internal_error";
          String message = cause instanceof IngestionException ? cause.getMessage() : "the item could not be ingested";
          return new ItemResult(item.id(), null, DocumentStatus.FAILED.wireName(), 0, code, message);
        });
  }

  private static ItemResult result(Item item, KnowledgeDocument document) {
    return new ItemResult(item.id(), document.id(), ApiDocumentStatus.of(document.status()), document.chunkCount(),
        document.error().map(KnowledgeDocument.Failure::code).orElse(null),
        document.error().map(KnowledgeDocument.Failure::message).orElse(null));
  }
}
