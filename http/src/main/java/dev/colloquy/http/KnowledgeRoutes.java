package dev.colloquy.http;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.documents.KnowledgeDocument;
import dev.colloquy.ingestion.documents.KnowledgeService;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The knowledge API of seed 004 §5.4: upload a document (multipart, 202), its status, the list, and
 * delete. Ingestion runs in the background; a document becomes searchable once all its chunks are stored.
 *
 * <p>An upload streams to a file under the data directory as it arrives, never whole into memory,
 * within the upload timeout. A tenant receives at most {@code maxUploadsPerTenant} at once, and an
 * upload while the ingestion backlog is full is refused: both with 429 and {@code Retry-After},
 * answered before any of the body is read.
 */
public final class KnowledgeRoutes extends AllDirectives {

  /** Room for the multipart envelope around a file of the largest accepted size. */
  private static final long MULTIPART_OVERHEAD = 64 * 1024;

  private final KnowledgeService documents;
  private final KnowledgeSettings.Ingestion limits;
  private final Executor blocking;
  private final ConcurrentHashMap<String, AtomicInteger> receiving = new ConcurrentHashMap<>();

  public KnowledgeRoutes(KnowledgeService documents, KnowledgeSettings.Ingestion limits, Executor blocking) {
    this.documents = documents;
    this.limits = limits;
    this.blocking = blocking;
  }

  /** The knowledge of the caller's tenant: another tenant's document answers as a missing one. */
  public Route route(Principal principal) {
    String tenantId = principal.tenantId();
    return pathPrefix("v1", () -> pathPrefix("knowledge", () -> concat(
        path("ingest", () -> post(() -> withSizeLimit(limits.maxUploadBytes() + MULTIPART_OVERHEAD,
            () -> ingest(tenantId)))),
        path("list", () -> get(() -> onSuccess(list(tenantId), this::ok))),
        pathPrefix(segment(), documentId -> concat(
            path("status", () -> get(() -> onSuccess(status(tenantId, documentId), this::ok))),
            pathEndOrSingleSlash(() -> delete(() -> onSuccess(delete(tenantId, documentId), this::ok))))))));
  }

  private Route ingest(String tenantId) {
    if (!documents.hasRoom()) {
      throw new ApiException(ErrorCode.INGEST_QUEUE_FULL,
          "Too many documents are waiting to be ingested; try again shortly");
    }
    AtomicInteger count = receiving.computeIfAbsent(tenantId, id -> new AtomicInteger());
    if (count.incrementAndGet() > limits.maxUploadsPerTenant()) {
      count.decrementAndGet();
      throw new ApiException(ErrorCode.UPLOADS_IN_PROGRESS, "This tenant already has "
          + limits.maxUploadsPerTenant() + " uploads in progress; try again when one has finished");
    }
    return mapRouteResultFuture(result -> result.whenComplete((done, failure) -> count.decrementAndGet()),
        () -> extractMaterializer(materializer -> fileUpload("file", (info, bytes) -> onSuccess(
            receive(bytes, materializer).thenCompose(file -> ingest(tenantId, info.getFileName(), file)),
            accepted -> complete(Json.response(StatusCodes.ACCEPTED, accepted))))));
  }

  /** The file part, written to a file of the knowledge service's as it arrives, within the upload timeout. */
  private CompletionStage<Path> receive(Source<ByteString, Object> bytes, Materializer materializer) {
    Path file = documents.newUploadFile();
    return bytes.completionTimeout(limits.uploadTimeout())
        .runWith(FileIO.toPath(file), materializer)
        .handle((written, failure) -> {
          if (failure == null) {
            return file;
          }
          file.toFile().delete();
          Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
          if (cause instanceof TimeoutException) {
            throw new ApiException(ErrorCode.REQUEST_TIMEOUT, "The upload did not arrive within "
                + limits.uploadTimeout().toSeconds() + " s");
          }
          throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
  }

  // ---- calls to the knowledge service, off the HTTP threads ----

  private CompletionStage<Accepted> ingest(String tenantId, String fileName, Path content) {
    return blocking(() -> {
      try {
        return Accepted.toApi(documents.ingest(tenantId, fileName, content).document());
      } catch (IngestionException e) {
        throw refused(e);
      }
    });
  }

  private CompletionStage<Status> status(String tenantId, String documentId) {
    return blocking(() -> {
      if (!RequestBodies.isUuid(documentId)) {
        throw notFound();
      }
      return Status.toApi(documents.status(tenantId, documentId)
          .orElseThrow(KnowledgeRoutes::notFound));
    });
  }

  private CompletionStage<Documents> list(String tenantId) {
    return blocking(() -> Documents.toApi(documents.list(tenantId)));
  }

  private CompletionStage<Deleted> delete(String tenantId, String documentId) {
    return blocking(() -> {
      if (!RequestBodies.isUuid(documentId) || !documents.delete(tenantId, documentId)) {
        throw notFound();
      }
      return new Deleted(true);
    });
  }

  /** An ingestion refusal is the document's fault (422) unless its code names another status. */
  static ApiException refused(IngestionException e) {
    return switch (e.code()) {
      case TOO_LARGE -> new ApiException(ErrorCode.FILE_TOO_LARGE, e.getMessage());
      case UNSUPPORTED_TYPE -> new ApiException(ErrorCode.UNSUPPORTED_FILE_TYPE, e.getMessage());
      case QUEUE_FULL -> new ApiException(ErrorCode.INGEST_QUEUE_FULL, e.getMessage());
      default -> new ApiException(StatusCodes.UNPROCESSABLE_ENTITY, e.code().name(), e.getMessage());
    };
  }

  private static ApiException notFound() {
    return new ApiException(ErrorCode.DOCUMENT_NOT_FOUND, "Document not found");
  }

  private <T> CompletionStage<T> blocking(Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, blocking);
  }

  private Route ok(Object body) {
    return complete(Json.response(StatusCodes.OK, body));
  }

  // ---- response bodies ----

  record Accepted(String documentId, String filename, int version, String status, String message) {
    static Accepted toApi(KnowledgeDocument document) {
      return new Accepted(document.id(), document.fileName(), document.version(), "processing",
          "Ingestion started. Poll /v1/knowledge/" + document.id() + "/status");
    }
  }

  record Status(String documentId, String filename, int version, String status, boolean active, int chunkCount,
      String errorCode, String errorMessage) {
    static Status toApi(KnowledgeDocument document) {
      return new Status(document.id(), document.fileName(), document.version(), document.status().wireName(),
          document.active(), document.chunkCount(), document.error().map(KnowledgeDocument.Failure::code).orElse(null),
          document.error().map(KnowledgeDocument.Failure::message).orElse(null));
    }
  }

  record Documents(List<Document> documents) {
    static Documents toApi(List<KnowledgeDocument> documents) {
      return new Documents(documents.stream().map(Document::toApi).toList());
    }
  }

  record Document(String id, String filename, int version, String status, int chunkCount, String ingestedAt) {
    static Document toApi(KnowledgeDocument document) {
      return new Document(document.id(), document.fileName(), document.version(), document.status().wireName(),
          document.chunkCount(), document.createdAt().toString());
    }
  }

  record Deleted(boolean deleted) {}
}
