package dev.colloquy.http;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.documents.KnowledgeDocument;
import dev.colloquy.ingestion.documents.KnowledgeService;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.http.javadsl.model.Multipart;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;

/**
 * The knowledge API of seed 004 §5.4: upload a document (multipart, 202), its status, the list, and
 * delete. Ingestion runs in the background; a document becomes searchable once all its chunks are
 * stored. Besides the seed's routes, a cited passage: the text of the chunk a citation names.
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
        path("ingest", () -> post(() -> limitedTo(limits.maxUploadBytes() + MULTIPART_OVERHEAD,
            () -> ingest(tenantId)))),
        path("list", () -> get(() -> onSuccess(list(tenantId), this::ok))),
        pathPrefix(segment(), documentId -> concat(
            path("status", () -> get(() -> onSuccess(status(tenantId, documentId), this::ok))),
            path(PathMatchers.segment("chunks").slash(segment()), chunkIndex ->
                get(() -> onSuccess(passage(tenantId, documentId, chunkIndex), this::ok))),
            pathEndOrSingleSlash(() -> delete(() -> onSuccess(delete(tenantId, documentId), this::ok))))))));
  }

  /**
   * The upload's body within {@code maxBytes} (a larger declared length is refused unread), and
   * drained rather than cancelled when it is refused part-way, so that the refusal reaches the client.
   */
  private Route limitedTo(long maxBytes, Supplier<Route> inner) {
    return extractRequestEntity(entity -> {
      RequestEntity limited = DrainingBody.limited(entity, maxBytes);
      return mapRequest(request -> request.withEntity(limited), inner);
    });
  }

  /** The file, and the optional {@code document_type} field beside it (seed 004 §5.4), in any order. */
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
        () -> extractMaterializer(materializer -> entity(Unmarshaller.entityToMultipartFormData(), form -> onSuccess(
            receive(form, materializer).thenCompose(upload -> ingest(tenantId, upload)),
            accepted -> complete(Json.response(StatusCodes.ACCEPTED, accepted))))));
  }

  /** What an upload's form held once received: the file on disk, its name, its document type. */
  private record Upload(Path file, String fileName, Optional<String> documentType) {}

  /**
   * The form's parts in the order they come (seed 004 §5.4: the file, and the optional
   * {@code document_type} beside it, in any order): the file written to a file of the knowledge
   * service's as it arrives, the type read as a short text, anything else skipped; all within the
   * upload timeout.
   */
  private CompletionStage<Upload> receive(Multipart.FormData form, Materializer materializer) {
    Path file = documents.newUploadFile();
    String[] fileName = {null};
    Optional<String>[] documentType = new Optional[] {Optional.empty()};
    return form.getParts()
        .completionTimeout(limits.uploadTimeout())
        .mapAsync(1, part -> switch (part.getName()) {
          case "file" -> {
            fileName[0] = part.getFilename().orElse("upload");
            yield part.getEntity().getDataBytes().runWith(FileIO.toPath(file), materializer).thenApply(written -> true);
          }
          case "document_type" -> part.getEntity().toStrict(limits.uploadTimeout().toMillis(), 1024, materializer)
              .thenApply(text -> {
                documentType[0] = Optional.of(text.getData().utf8String());
                return true;
              });
          default -> part.getEntity().discardBytes(materializer).completionStage().thenApply(done -> true);
        })
        .runWith(Sink.ignore(), materializer)
        .handle((done, failure) -> {
          if (failure == null && fileName[0] != null) {
            return new Upload(file, fileName[0], documentType[0]);
          }
          file.toFile().delete();
          if (failure == null) {
            throw new ApiException(ErrorCode.FIELD_REQUIRED, "The multipart form field 'file' is required");
          }
          Throwable cause = StageFailures.cause(failure);
          if (cause instanceof TimeoutException) {
            throw new ApiException(ErrorCode.REQUEST_TIMEOUT, "The upload did not arrive within "
                + limits.uploadTimeout().toSeconds() + " s");
          }
          throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
  }

  private static String documentType(Optional<String> value) {
    if (value.isEmpty() || value.get().isBlank()) {
      return null;
    }
    if (!KnowledgeDocument.DOCUMENT_TYPES.contains(value.get().strip())) {
      throw new ApiException(ErrorCode.INVALID_FIELD,
          "The field document_type must be one of " + String.join(", ", KnowledgeDocument.DOCUMENT_TYPES));
    }
    return value.get().strip();
  }

  // ---- calls to the knowledge service, off the HTTP threads ----

  private CompletionStage<Accepted> ingest(String tenantId, Upload upload) {
    return blocking(() -> {
      String documentType;
      try {
        documentType = documentType(upload.documentType());
      } catch (ApiException invalid) {
        upload.file().toFile().delete();
        throw invalid;
      }
      try {
        return Accepted.toApi(documents.ingest(tenantId, upload.fileName(), upload.file(), documentType).document());
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

  /** Every id that names no passage of the tenant's searchable documents is the same 404. */
  private CompletionStage<Passage> passage(String tenantId, String documentId, String chunkIndex) {
    return blocking(() -> {
      if (!RequestBodies.isUuid(documentId) || !chunkIndex.matches("\\d{1,9}")) {
        throw passageNotFound();
      }
      return Passage.toApi(documents.passage(tenantId, documentId, Integer.parseInt(chunkIndex))
          .orElseThrow(KnowledgeRoutes::passageNotFound));
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

  private static ApiException passageNotFound() {
    return new ApiException(ErrorCode.PASSAGE_NOT_FOUND,
        "Passage not found: no such passage in the knowledge base (its document may have been deleted or replaced)");
  }

  private <T> CompletionStage<T> blocking(Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, blocking);
  }

  private Route ok(Object body) {
    return complete(Json.response(StatusCodes.OK, body));
  }

  // ---- response bodies ----

  record Accepted(String documentId, String filename, int version, String documentType, String status, String message) {
    static Accepted toApi(KnowledgeDocument document) {
      return new Accepted(document.id(), document.fileName(), document.version(), document.documentType(), "processing",
          "Ingestion started. Poll /v1/knowledge/" + document.id() + "/status");
    }
  }

  record Status(String documentId, String filename, int version, String documentType, String status, boolean active,
      int chunkCount, String errorCode, String errorMessage) {
    static Status toApi(KnowledgeDocument document) {
      return new Status(document.id(), document.fileName(), document.version(), document.documentType(),
          ApiDocumentStatus.of(document.status()), document.active(), document.chunkCount(),
          document.error().map(KnowledgeDocument.Failure::code).orElse(null),
          document.error().map(KnowledgeDocument.Failure::message).orElse(null));
    }
  }

  record Documents(List<Document> documents) {
    static Documents toApi(List<KnowledgeDocument> documents) {
      return new Documents(documents.stream().map(Document::toApi).toList());
    }
  }

  record Document(String id, String filename, int version, String documentType, String status, int chunkCount,
      String ingestedAt) {
    static Document toApi(KnowledgeDocument document) {
      return new Document(document.id(), document.fileName(), document.version(), document.documentType(),
          ApiDocumentStatus.of(document.status()), document.chunkCount(), document.createdAt().toString());
    }
  }

  record Deleted(boolean deleted) {}

  /** A cited passage: where it comes from, and its text (Markdown). */
  record Passage(String documentId, String filename, int version, String section, int chunkIndex, String elementType,
      String text) {
    static Passage toApi(KnowledgeChunk chunk) {
      return new Passage(chunk.documentId(), chunk.fileName(), chunk.documentVersion(), chunk.sectionHeading(),
          chunk.chunkIndex(), chunk.elementType(), chunk.text());
    }
  }
}
