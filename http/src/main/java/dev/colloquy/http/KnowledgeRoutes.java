package dev.colloquy.http;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.documents.KnowledgeDocument;
import dev.colloquy.ingestion.documents.KnowledgeService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;

/**
 * The knowledge API of seed 004 §5.4: upload a document (multipart, 202), its status, the list, and
 * delete. Ingestion runs in the background; a document becomes searchable once all its chunks are stored.
 */
public final class KnowledgeRoutes extends AllDirectives {

  /** Room for the multipart envelope around a file of the largest accepted size. */
  private static final long MULTIPART_OVERHEAD = 64 * 1024;

  private final KnowledgeService documents;
  private final long maxUploadBytes;
  private final Executor blocking;

  public KnowledgeRoutes(KnowledgeService documents, long maxUploadBytes, Executor blocking) {
    this.documents = documents;
    this.maxUploadBytes = maxUploadBytes;
    this.blocking = blocking;
  }

  /** The knowledge of the caller's tenant: another tenant's document answers as a missing one. */
  public Route route(Principal principal) {
    String tenantId = principal.tenantId();
    return pathPrefix("v1", () -> pathPrefix("knowledge", () -> concat(
        path("ingest", () -> post(() -> withSizeLimit(maxUploadBytes + MULTIPART_OVERHEAD, () -> ingest(tenantId)))),
        path("list", () -> get(() -> onSuccess(blocking(() -> listJson(tenantId)), this::ok))),
        pathPrefix(segment(), documentId -> concat(
            path("status", () -> get(() -> onSuccess(blocking(() -> statusJson(tenantId, documentId)), this::ok))),
            pathEndOrSingleSlash(() -> delete(() -> onSuccess(blocking(() -> deleteJson(tenantId, documentId)), this::ok))))))));
  }

  private Route ingest(String tenantId) {
    return extractMaterializer(materializer -> fileUpload("file", (info, bytes) -> onSuccess(
        bytes.runWith(Sink.fold(ByteString.emptyByteString(), ByteString::concat), materializer)
            .thenApplyAsync(content -> accept(tenantId, info.getFileName(), content.toArray()), blocking),
        body -> json(StatusCodes.ACCEPTED, body))));
  }

  private ObjectNode accept(String tenantId, String fileName, byte[] content) {
    try {
      KnowledgeDocument document = documents.ingest(tenantId, fileName, content).document();
      return Json.MAPPER.createObjectNode()
          .put("document_id", document.id())
          .put("filename", document.fileName())
          .put("version", document.version())
          .put("status", "processing")
          .put("message", "Ingestion started. Poll /v1/knowledge/" + document.id() + "/status");
    } catch (IngestionException e) {
      throw refused(e);
    }
  }

  static ApiException refused(IngestionException e) {
    return switch (e.code()) {
      case TOO_LARGE -> new ApiException(StatusCodes.PAYLOAD_TOO_LARGE, "FILE_TOO_LARGE", e.getMessage());
      case UNSUPPORTED_TYPE -> new ApiException(StatusCodes.UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_FILE_TYPE", e.getMessage());
      default -> new ApiException(StatusCodes.UNPROCESSABLE_ENTITY, e.code().name(), e.getMessage());
    };
  }

  private ObjectNode statusJson(String tenantId, String documentId) {
    if (!RequestBodies.isUuid(documentId)) {
      throw notFound();
    }
    KnowledgeDocument document = documents.status(tenantId, documentId)
        .orElseThrow(KnowledgeRoutes::notFound);
    ObjectNode body = Json.MAPPER.createObjectNode()
        .put("document_id", document.id())
        .put("filename", document.fileName())
        .put("version", document.version())
        .put("status", document.status().wireName())
        .put("active", document.active())
        .put("chunk_count", document.chunkCount());
    body.put("error_code", document.error().map(KnowledgeDocument.Failure::code).orElse(null));
    body.put("error_message", document.error().map(KnowledgeDocument.Failure::message).orElse(null));
    return body;
  }

  private ObjectNode listJson(String tenantId) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    ArrayNode list = body.putArray("documents");
    for (KnowledgeDocument document : documents.list(tenantId)) {
      list.addObject()
          .put("id", document.id())
          .put("filename", document.fileName())
          .put("version", document.version())
          .put("status", document.status().wireName())
          .put("chunk_count", document.chunkCount())
          .put("ingested_at", document.createdAt().toString());
    }
    return body;
  }

  private ObjectNode deleteJson(String tenantId, String documentId) {
    if (!RequestBodies.isUuid(documentId) || !documents.delete(tenantId, documentId)) {
      throw notFound();
    }
    return Json.MAPPER.createObjectNode().put("deleted", true);
  }

  private static ApiException notFound() {
    return new ApiException(StatusCodes.NOT_FOUND, "DOCUMENT_NOT_FOUND", "Document not found");
  }

  private <T> CompletionStage<T> blocking(java.util.function.Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, blocking);
  }

  private Route ok(ObjectNode body) {
    return json(StatusCodes.OK, body);
  }

  private Route json(StatusCode status, ObjectNode body) {
    return complete(HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString())));
  }
}
