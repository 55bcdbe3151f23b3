package dev.colloquy.ingestion.documents;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.chunk.ChunkEnricher;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.parse.DocumentType;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import dev.colloquy.ingestion.store.VectorStore;
import dev.colloquy.config.KnowledgeSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tenant's documents: ingest, status, list, delete (seed 004 §5.4).
 *
 * <ul>
 *   <li>{@link #ingest} refuses at once a file that is too large or of an unsupported type, else
 *       records it as pending and processes it on the executor: processing → ready, or failed with
 *       its error. A document becomes searchable only once all its chunks are stored; a failed one
 *       leaves no chunks behind.
 *   <li>Uploading a file name again makes a new version. When it is ready it replaces the older
 *       versions in search in one step, and their chunks are removed in the background. A version
 *       that completes after a newer one is already ready is retired at once.
 *   <li>{@link #delete} hides a document from search and from the list at once and removes its
 *       chunks in the background.
 *   <li>With a model enricher, summaries and questions are rewritten by it in the background once
 *       the document is searchable (the offline ones serve until then).
 * </ul>
 */
public final class KnowledgeService {

  private static final Logger LOG = LoggerFactory.getLogger(KnowledgeService.class);
  /** The suffix of an accepted upload's file in the spool; files still being received end otherwise. */
  private static final String ACCEPTED = ".accepted";

  private final DocumentStore documents;
  private final VectorStore vectors;
  private final IngestionPipeline pipeline;
  private final Optional<ChunkEnricher> modelEnricher;
  private final Executor executor;
  private final Clock clock;
  private final Path spool;
  /** Accepted files not yet ingested: each waits on disk, and there are at most this many. */
  private final Semaphore backlog;
  private final ConcurrentHashMap<String, Object> tenantLocks = new ConcurrentHashMap<>();

  /**
   * @param documents document metadata
   * @param vectors where chunks are stored and searched
   * @param pipeline parse → chunk → enrich (offline) → embed
   * @param modelEnricher a chat-model enricher to rewrite summaries and questions in the background, if any
   * @param executor runs ingestion and background clean-up (blocking work: a bounded pool, not the actors' dispatcher)
   * @param clock for the documents' timestamps
   */
  public KnowledgeService(
      DocumentStore documents,
      VectorStore vectors,
      IngestionPipeline pipeline,
      Optional<ChunkEnricher> modelEnricher,
      Executor executor,
      Clock clock) {
    this(documents, vectors, pipeline, modelEnricher, executor, clock, temporarySpool());
  }

  /**
   * @param spool where accepted files wait for ingestion (the service owns the files it is given and
   *     deletes each once ingested or failed)
   */
  public KnowledgeService(
      DocumentStore documents,
      VectorStore vectors,
      IngestionPipeline pipeline,
      Optional<ChunkEnricher> modelEnricher,
      Executor executor,
      Clock clock,
      Path spool) {
    this.documents = documents;
    this.vectors = vectors;
    this.pipeline = pipeline;
    this.modelEnricher = modelEnricher;
    this.executor = executor;
    this.clock = clock;
    this.spool = spool;
    KnowledgeSettings.Ingestion limits = pipeline.limits();
    this.backlog = new Semaphore(limits.workers() + limits.maxQueued());
  }

  private static Path temporarySpool() {
    try {
      return Files.createTempDirectory("colloquy-uploads");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where a caller writes an upload before handing it to {@link #ingest(String, String, Path)}. */
  public Path newUploadFile() {
    try {
      Files.createDirectories(spool);
      return Files.createTempFile(spool, "upload-", ".part");
    } catch (IOException e) {
      throw new IngestionException(Code.INTERNAL_ERROR, "no room for the upload", e);
    }
  }

  /** Whether an upload would be accepted into the backlog now (it may be full by the time it arrives). */
  public boolean hasRoom() {
    return backlog.availablePermits() > 0;
  }

  /** An accepted upload: its pending record, and a stage that completes with its final record (ready or failed). */
  public record Ingestion(KnowledgeDocument document, CompletionStage<KnowledgeDocument> completion) {}

  /**
   * Accepts a file for ingestion.
   *
   * @throws IngestionException with code TOO_LARGE or UNSUPPORTED_TYPE when the file is refused outright
   */
  public Ingestion ingest(String tenantId, String fileName, byte[] content) {
    return ingest(tenantId, fileName, content, null);
  }

  /**
   * Accepts a file for ingestion as a document of {@code documentType} (one of {@link
   * KnowledgeDocument#DOCUMENT_TYPES}, or null when its uploader did not say).
   */
  public Ingestion ingest(String tenantId, String fileName, byte[] content, String documentType) {
    Path file = newUploadFile();
    try {
      Files.write(file, content);
    } catch (IOException e) {
      delete(file);
      throw new IngestionException(Code.INTERNAL_ERROR, "no room for the upload", e);
    }
    return ingest(tenantId, fileName, file, documentType);
  }

  /**
   * Accepts a file on disk for ingestion as a document of {@code documentType} (or null); the service
   * owns the file from now on and deletes it once done (or at once when refused).
   *
   * @throws IngestionException with code TOO_LARGE or UNSUPPORTED_TYPE when the file is refused
   *     outright, QUEUE_FULL when too many files wait already
   */
  public Ingestion ingest(String tenantId, String fileName, Path file) {
    return ingest(tenantId, fileName, file, null);
  }

  public Ingestion ingest(String tenantId, String fileName, Path file, String documentType) {
    if (documentType != null && !KnowledgeDocument.DOCUMENT_TYPES.contains(documentType)) {
      delete(file);
      throw new IllegalArgumentException("not a document type: " + documentType);
    }
    if (!backlog.tryAcquire()) {
      delete(file);
      throw new IngestionException(Code.QUEUE_FULL, "too many documents are waiting to be ingested; try again shortly");
    }
    Path accepted = file;
    try {
      DocumentType type = acceptedType(fileName, file);
      KnowledgeDocument pending = documents.create(tenantId, fileName, type.wireName(), documentType, clock.instant());
      try {
        accepted = keep(file, pending);
      } catch (IngestionException e) {
        documents.update(pending.failed(e.code().wireName(), e.getMessage(), clock.instant()));
        throw e;
      }
      return new Ingestion(pending, submit(pending, accepted, true, false));
    } catch (RuntimeException e) {
      delete(accepted);
      backlog.release();
      throw e;
    }
  }

  /**
   * Picks up what a previous run accepted and never finished (it stopped or was killed while the
   * files waited or were being parsed): each such document is ingested again from its file, which
   * stays in the spool until its document is ready or failed. The rest of the spool (uploads still
   * being received when the run ended) is deleted. A pending document whose file is not in this
   * node's spool is left as it is: with a shared database it may be another node's.
   */
  public List<Ingestion> resume() {
    Set<Path> kept = new HashSet<>();
    List<Ingestion> resumed = new ArrayList<>();
    for (KnowledgeDocument unfinished : documents.unfinished()) {
      Path file = acceptedFile(unfinished);
      if (Files.isRegularFile(file)) {
        kept.add(file);
        resumed.add(new Ingestion(unfinished, submit(unfinished, file, backlog.tryAcquire(), true)));
      }
    }
    try (Stream<Path> left = Files.isDirectory(spool) ? Files.list(spool) : Stream.empty()) {
      left.filter(file -> !kept.contains(file)).forEach(KnowledgeService::delete);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the upload directory " + spool, e);
    }
    if (!resumed.isEmpty()) {
      LOG.info("Resuming the ingestion of {} document(s) a previous run accepted and did not finish", resumed.size());
    }
    return resumed;
  }

  /** An accepted upload's file, named for its document so that a restart finds it. */
  private Path acceptedFile(KnowledgeDocument document) {
    return spool.resolve(document.id() + ACCEPTED);
  }

  private Path keep(Path file, KnowledgeDocument pending) {
    Path accepted = acceptedFile(pending);
    try {
      Files.createDirectories(spool);
      return Files.move(file, accepted, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new IngestionException(Code.INTERNAL_ERROR, "no room for the upload", e);
    }
  }

  /**
   * Ingests on the executor, deletes the file when done and gives back the backlog's permit if it
   * took one; {@code again} when a previous run may have stored some of the document's chunks.
   */
  private CompletableFuture<KnowledgeDocument> submit(KnowledgeDocument document, Path file, boolean permit,
      boolean again) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return process(document, file, again);
      } finally {
        delete(file);
        if (permit) {
          backlog.release();
        }
      }
    }, executor);
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("Could not delete an upload file: {}", e.getClass().getName());
    }
  }

  /**
   * Only size and type refuse an upload outright; a file whose content does not match its type (a
   * corrupt file) is recorded and fails like any other bad content, so its owner can see why.
   */
  private DocumentType acceptedType(String fileName, Path content) {
    try {
      return pipeline.accept(fileName, content);
    } catch (IngestionException e) {
      if (e.code() == Code.TOO_LARGE || e.code() == Code.UNSUPPORTED_TYPE) {
        throw e;
      }
      return DocumentType.fromFileName(fileName).orElseThrow(() -> e);
    }
  }

  public Optional<KnowledgeDocument> status(String tenantId, String documentId) {
    return documents.find(tenantId, documentId);
  }

  /** The tenant's active documents (every upload still in flight, ready or failed; no deleted or replaced ones), newest first. */
  public List<KnowledgeDocument> list(String tenantId) {
    return documents.listActive(tenantId);
  }

  /**
   * The passage a citation names: the chunk at {@code chunkIndex} of one of the tenant's documents,
   * while that document is searchable. Once it is deleted or replaced by a newer version its passages
   * are gone, as they are from search.
   */
  public Optional<KnowledgeChunk> passage(String tenantId, String documentId, int chunkIndex) {
    return documents.find(tenantId, documentId).filter(KnowledgeDocument::searchable)
        .flatMap(document -> vectors.searchableChunk(tenantId, documentId, chunkIndex));
  }

  /** Hides the document at once and removes its chunks in the background; false when there is no such active document. */
  public boolean delete(String tenantId, String documentId) {
    synchronized (lock(tenantId)) {
      Optional<KnowledgeDocument> found = documents.find(tenantId, documentId).filter(KnowledgeDocument::active);
      if (found.isEmpty()) {
        return false;
      }
      documents.update(found.get().deactivated(clock.instant()));
      vectors.unpublish(tenantId, documentId);
    }
    removeChunksLater(tenantId, documentId);
    return true;
  }

  private KnowledgeDocument process(KnowledgeDocument pending, Path content, boolean again) {
    String tenantId = pending.tenantId();
    KnowledgeDocument processing = pending.processing(clock.instant());
    documents.update(processing);
    try {
      if (again) {
        vectors.delete(tenantId, pending.id());
      }
      List<EmbeddedChunk> chunks = pipeline.prepare(
          new IngestionPipeline.Origin(tenantId, pending.id(), pending.fileName(), pending.version(), pending.createdAt()), content);
      vectors.upsert(tenantId, chunks);
      KnowledgeDocument ready = publish(processing, chunks.size());
      if (ready.searchable()) {
        modelEnricher.ifPresent(enricher -> executor.execute(() -> enrichLater(ready, chunks, enricher)));
      }
      return ready;
    } catch (RuntimeException e) {
      return fail(processing, e);
    }
  }

  /** Makes the version searchable and retires older ones, unless it was deleted or a newer version is ready. */
  private KnowledgeDocument publish(KnowledgeDocument processing, int chunkCount) {
    String tenantId = processing.tenantId();
    List<String> retired;
    KnowledgeDocument ready;
    synchronized (lock(tenantId)) {
      KnowledgeDocument current = documents.find(tenantId, processing.id()).orElse(processing);
      List<KnowledgeDocument> others = documents.activeVersions(tenantId, processing.fileName()).stream()
          .filter(other -> !other.id().equals(processing.id()))
          .toList();
      boolean superseded = others.stream()
          .anyMatch(other -> other.status() == DocumentStatus.READY && other.version() > processing.version());
      if (!current.active() || superseded) {
        ready = current.ready(chunkCount, clock.instant()).deactivated(clock.instant());
        documents.update(ready);
        retired = List.of(processing.id());
      } else {
        retired = others.stream()
            .filter(other -> other.version() < processing.version() && other.status() != DocumentStatus.PROCESSING
                && other.status() != DocumentStatus.PENDING)
            .map(KnowledgeDocument::id)
            .toList();
        vectors.publish(tenantId, processing.id(), retired);
        ready = current.ready(chunkCount, clock.instant());
        documents.update(ready);
        for (String id : retired) {
          documents.find(tenantId, id).ifPresent(old -> documents.update(old.deactivated(clock.instant())));
        }
      }
    }
    retired.forEach(id -> removeChunksLater(tenantId, id));
    return ready;
  }

  private KnowledgeDocument fail(KnowledgeDocument processing, RuntimeException failure) {
    IngestionException cause = failure instanceof IngestionException ingestion
        ? ingestion
        : new IngestionException(Code.INTERNAL_ERROR, "ingestion failed unexpectedly: " + failure, failure);
    // Codes and ids only: a failure's message names the file and quotes what the parser read, which is
    // the tenant's content; its owner reads it in the document's status.
    if (cause.code() == Code.INTERNAL_ERROR || cause.code() == Code.STORE_FAILED) {
      LOG.warn("Ingestion of document {} failed: {} ({})", processing.id(), cause.code().wireName(), causes(failure));
    } else {
      LOG.info("Ingestion of document {} failed: {}", processing.id(), cause.code().wireName());
    }
    try {
      vectors.delete(processing.tenantId(), processing.id());
    } catch (RuntimeException cleanup) {
      LOG.warn("Could not remove the chunks of failed document {} ({})", processing.id(), causes(cleanup));
    }
    KnowledgeDocument current = documents.find(processing.tenantId(), processing.id()).orElse(processing);
    KnowledgeDocument failed = current.failed(cause.code().wireName(), cause.getMessage(), clock.instant());
    documents.update(failed);
    return failed;
  }

  private void enrichLater(KnowledgeDocument ready, List<EmbeddedChunk> chunks, ChunkEnricher enricher) {
    try {
      List<EmbeddedChunk> enriched = pipeline.reenrich(chunks, enricher);
      synchronized (lock(ready.tenantId())) {
        if (documents.find(ready.tenantId(), ready.id()).filter(KnowledgeDocument::searchable).isPresent()) {
          vectors.upsert(ready.tenantId(), enriched);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not enrich the chunks of document {}; the offline summaries stay ({})", ready.id(), causes(e));
    }
  }

  private void removeChunksLater(String tenantId, String documentId) {
    executor.execute(() -> {
      try {
        vectors.delete(tenantId, documentId);
      } catch (RuntimeException e) {
        LOG.warn("Could not remove the chunks of document {} ({})", documentId, causes(e));
      }
    });
  }

  /** A failure as the logs may show it: the classes of its causes, never their messages. */
  private static String causes(Throwable failure) {
    StringBuilder classes = new StringBuilder();
    for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      classes.append(classes.isEmpty() ? "" : " < ").append(cause.getClass().getName());
    }
    return classes.toString();
  }

  private Object lock(String tenantId) {
    return tenantLocks.computeIfAbsent(tenantId, id -> new Object());
  }
}
