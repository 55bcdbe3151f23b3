package dev.colloquy.ingestion.store;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.embed.Vectors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link VectorStore}: one Lucene index per tenant on disk under a directory, holding
 * each chunk's three vectors (HNSW, dot product over unit vectors) and its text and section heading
 * (BM25, English analysis). Visibility is an updatable doc-value, so {@link #publish} flips a whole
 * document (and retires others) in one commit. Every query also filters on the tenant id. Writes to
 * one tenant are serialized; each is committed before it returns, so the index survives a restart.
 *
 * <p>Every write, and the opening and closing of an index, runs on one thread of the store's own
 * that nothing else can reach: interrupting a thread in the middle of NIO I/O closes the channel it
 * was using, which for Lucene means the index's files and its write lock ("FileLock invalidated by
 * an external force"). A caller that is interrupted (a cancelled future, an executor shut down now)
 * still waits for its write to finish and keeps its interrupt flag; the index is never touched.
 *
 * <p>Merges run in the background and often finish after the write that started them; once a second
 * the writer thread refreshes every open index's searcher so that searches use the merged segments
 * (a bulk ingestion otherwise left its tenant searching dozens of small segments until its next
 * write). The refresh runs between writes, never inside one, so it cannot show a publish half done.
 *
 * <p>A search runs its segments one after the other on the calling thread: running them side by side
 * on threads of the store's own was measured at 100,000 chunks on two cores and gave no lower latency
 * (bench/RESULTS.md).
 */
public final class LuceneVectorStore implements VectorStore {

  private static final String CHUNK_ID = "chunk_id";
  private static final String DOCUMENT_ID = "document_id";
  private static final String TENANT_ID = "tenant_id";
  private static final String LATEST = "is_latest_version";
  private static final String TEXT = "text";
  private static final String SECTION = "section_heading";
  private static final String PAYLOAD = "payload";
  private static final float SECTION_BOOST = 0.5f;
  private static final long REFRESH_SECONDS = 1;
  private static final Logger LOG = LoggerFactory.getLogger(LuceneVectorStore.class);

  private final Path directory;
  private final int dimensions;
  private final Analyzer analyzer = EnglishText.analyzer();
  private final Map<String, TenantIndex> tenants = new ConcurrentHashMap<>();
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("lucene-writer").factory());
  // Only hands the refresh to the writer thread: it never touches an index itself, so stopping it is safe.
  private final ScheduledExecutorService refresher =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("lucene-refresh").factory());
  private final Consumer<IndexWriterConfig> writerSettings;

  /**
   * @param directory where the tenants' indexes live (created if missing)
   * @param dimensions the dimension of every vector, that of the embedding model in use
   */
  public LuceneVectorStore(Path directory, int dimensions) {
    this(directory, dimensions, config -> {});
  }

  /** For tests that need to hold the index's merges: {@code writerSettings} adjusts each index writer's settings. */
  LuceneVectorStore(Path directory, int dimensions, Consumer<IndexWriterConfig> writerSettings) {
    this.directory = directory;
    this.dimensions = dimensions;
    this.writerSettings = writerSettings;
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    refresher.scheduleWithFixedDelay(this::refreshOnWriter, REFRESH_SECONDS, REFRESH_SECONDS, TimeUnit.SECONDS);
  }

  private final class TenantIndex implements AutoCloseable {
    private final Directory dir;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private volatile SearchableDocs searchable;

    TenantIndex(Path path) throws IOException {
      dir = FSDirectory.open(path);
      IndexWriterConfig config = new IndexWriterConfig(analyzer).setSimilarity(new BM25Similarity());
      writerSettings.accept(config);
      writer = new IndexWriter(dir, config);
      searchers = new SearcherManager(writer, null);
    }

    /**
     * Runs {@code search} on the current searcher with the filter of its searchable documents, worked
     * out once per reader (two searches racing on a new reader may both work it out; either is right).
     */
    <T> T search(String tenantId, Search<T> search) {
      return onSearcher(searcher -> {
        SearchableDocs docs = searchable;
        if (docs == null || !docs.isFor(searcher)) {
          docs = SearchableDocs.of(searcher, searchableFilter(tenantId));
          searchable = docs;
        }
        return search.on(searcher, docs);
      });
    }

    /** Runs {@code read} on the current searcher, which it holds until it returns. */
    <T> T onSearcher(SearcherRead<T> read) {
      try {
        IndexSearcher searcher = searchers.acquire();
        try {
          return read.on(searcher);
        } finally {
          searchers.release(searcher);
        }
      } catch (IOException e) {
        throw storeFailed(e);
      }
    }

    /** Commits and makes the change visible to searches. */
    void commit() throws IOException {
      writer.commit();
      searchers.maybeRefreshBlocking();
    }

    @Override
    public void close() throws IOException {
      searchers.close();
      writer.close();
      dir.close();
    }
  }

  @Override
  public void upsert(String tenantId, List<EmbeddedChunk> chunks) {
    if (chunks.isEmpty()) {
      return;
    }
    TenantIndex index = index(tenantId);
    synchronized (index) {
      write(() -> {
        Set<String> published = publishedAmong(index, chunks);
        for (EmbeddedChunk embedded : chunks) {
          KnowledgeChunk chunk = embedded.chunk();
          ChunkChecks.requireTenant(tenantId, chunk);
          index.writer.updateDocument(new Term(CHUNK_ID, chunk.chunkId()), document(embedded, published.contains(chunk.documentId())));
        }
        index.commit();
      });
    }
  }

  @Override
  public void publish(String tenantId, String documentId, Collection<String> retired) {
    TenantIndex index = index(tenantId);
    synchronized (index) {
      write(() -> {
        for (String old : retired) {
          setLatest(index, old, false);
        }
        setLatest(index, documentId, true);
        index.commit();
      });
    }
  }

  @Override
  public void unpublish(String tenantId, String documentId) {
    existingIndex(tenantId).ifPresent(index -> {
      synchronized (index) {
        write(() -> {
          setLatest(index, documentId, false);
          index.commit();
        });
      }
    });
  }

  @Override
  public void delete(String tenantId, String documentId) {
    existingIndex(tenantId).ifPresent(index -> {
      synchronized (index) {
        write(() -> {
          index.writer.deleteDocuments(new Term(DOCUMENT_ID, documentId));
          index.commit();
        });
      }
    });
  }

  @Override
  public List<ScoredChunk> searchDense(String tenantId, VectorName vector, float[] query, int limit) {
    ChunkChecks.requireDimensions(query, dimensions);
    return existingIndex(tenantId)
        .map(index -> index.search(tenantId, (searcher, searchable) -> scored(searcher,
            searcher.search(new KnnFloatVectorQuery(vectorField(vector), Vectors.normalized(query), limit, searchable.query()), Math.max(1, limit)),
            true, new HashMap<>())))
        .orElse(List.of());
  }

  /** The three searches share one searcher, and a chunk found in several spaces is read and decoded once. */
  @Override
  public Map<VectorName, List<ScoredChunk>> searchDenseEach(String tenantId, Collection<VectorName> vectors, float[] query, int limit) {
    ChunkChecks.requireDimensions(query, dimensions);
    Map<VectorName, List<ScoredChunk>> hits = new EnumMap<>(VectorName.class);
    Optional<TenantIndex> index = existingIndex(tenantId);
    if (index.isEmpty()) {
      vectors.forEach(vector -> hits.put(vector, List.of()));
      return hits;
    }
    float[] normalized = Vectors.normalized(query);
    return index.get().search(tenantId, (searcher, searchable) -> {
      Map<Integer, KnowledgeChunk> read = new HashMap<>();
      for (VectorName vector : vectors) {
        TopDocs top = searcher.search(new KnnFloatVectorQuery(vectorField(vector), normalized, limit, searchable.query()), Math.max(1, limit));
        hits.put(vector, scored(searcher, top, true, read));
      }
      return hits;
    });
  }

  @Override
  public List<ScoredChunk> searchText(String tenantId, String query, int limit) {
    List<String> terms = EnglishText.queryTerms(analyzer, TEXT, query);
    Optional<TenantIndex> index = existingIndex(tenantId);
    if (terms.isEmpty() || index.isEmpty()) {
      return List.of();
    }
    BooleanQuery.Builder anyTerm = new BooleanQuery.Builder();
    for (String term : terms) {
      anyTerm.add(new TermQuery(new Term(TEXT, term)), Occur.SHOULD);
      anyTerm.add(new BoostQuery(new TermQuery(new Term(SECTION, term)), SECTION_BOOST), Occur.SHOULD);
    }
    Query anyOfTheTerms = anyTerm.build();
    return index.get().search(tenantId, (searcher, searchable) -> {
      Query bm25 = new BooleanQuery.Builder()
          .add(anyOfTheTerms, Occur.MUST)
          .add(searchable.query(), Occur.FILTER)
          .build();
      return scored(searcher, searcher.search(bm25, Math.max(1, limit)), false, new HashMap<>());
    });
  }

  /**
   * Reads the document's searchable chunks until the one at {@code chunkIndex}: the index has no
   * field for a chunk's position, and a document has at most a few thousand chunks.
   */
  @Override
  public Optional<KnowledgeChunk> searchableChunk(String tenantId, String documentId, int chunkIndex) {
    return existingIndex(tenantId).flatMap(index -> index.search(tenantId, (searcher, searchable) -> {
      Query ofDocument = new BooleanQuery.Builder()
          .add(searchable.query(), Occur.FILTER)
          .add(new TermQuery(new Term(DOCUMENT_ID, documentId)), Occur.FILTER)
          .build();
      TopDocs all = searcher.search(ofDocument, Math.max(1, searcher.count(ofDocument)));
      for (ScoreDoc hit : all.scoreDocs) {
        Document stored = searcher.storedFields().document(hit.doc, Set.of(PAYLOAD));
        KnowledgeChunk chunk = ChunkJson.read(stored.getBinaryValue(PAYLOAD).bytes);
        if (chunk.chunkIndex() == chunkIndex && chunk.tenantId().equals(tenantId)) {
          return Optional.of(chunk.withLatestVersion(true));
        }
      }
      return Optional.<KnowledgeChunk>empty();
    }));
  }

  /** A tenant none of whose documents were ever stored has no index: its directory does not exist. */
  @Override
  public boolean holdsNothingFor(String tenantId) {
    return !tenants.containsKey(tenantId) && !Files.isDirectory(tenantPath(tenantId));
  }

  @Override
  public long searchableCount(String tenantId) {
    return existingIndex(tenantId).map(index -> index.search(tenantId, (searcher, searchable) -> searchable.count())).orElse(0L);
  }

  @Override
  public int count(String tenantId, String documentId) {
    return existingIndex(tenantId)
        .map(index -> index.onSearcher(searcher -> searcher.count(new TermQuery(new Term(DOCUMENT_ID, documentId)))))
        .orElse(0);
  }

  /** How many segments the tenant's searches read now (0 without an index). */
  int searchedSegments(String tenantId) {
    return existingIndex(tenantId).map(index -> index.onSearcher(searcher -> searcher.getIndexReader().leaves().size())).orElse(0);
  }

  /** Queues a refresh of every open index's searcher on the writer thread, after the writes queued before it. */
  private void refreshOnWriter() {
    try {
      writer.execute(() -> {
        for (Map.Entry<String, TenantIndex> open : tenants.entrySet()) {
          try {
            open.getValue().searchers.maybeRefresh();
          } catch (IOException | AlreadyClosedException e) {
            LOG.warn("Could not refresh the Lucene searcher of tenant {}: {}", open.getKey(), e.toString());
          }
        }
      });
    } catch (RejectedExecutionException closing) {
      // the store is closing: nothing left to refresh
    }
  }

  /** Closes every index once; closing again does nothing (an owner may close on error and in a finally). */
  @Override
  public void close() {
    refresher.shutdownNow();
    if (writer.isShutdown()) {
      return;
    }
    try {
      write(() -> {
        IOException failure = null;
        for (TenantIndex index : tenants.values()) {
          try {
            index.close();
          } catch (IOException e) {
            failure = e;
          }
        }
        tenants.clear();
        if (failure != null) {
          throw failure;
        }
      });
    } finally {
      writer.shutdown();
    }
  }

  /** A search on one searcher, given the filter of the documents it may return. */
  @FunctionalInterface
  private interface Search<T> {
    T on(IndexSearcher searcher, SearchableDocs searchable) throws IOException;
  }

  /** A read of one searcher that needs no filter (counts over stored documents, searchable or not). */
  @FunctionalInterface
  private interface SearcherRead<T> {
    T on(IndexSearcher searcher) throws IOException;
  }

  /**
   * The hits' chunks, read through one {@link StoredFields} (each instance holds its own decompression
   * state); {@code read} holds the chunks already decoded by this searcher, by document number.
   * Dense scores are Lucene's {@code (1 + cosine) / 2} turned back into the cosine.
   */
  private static List<ScoredChunk> scored(IndexSearcher searcher, TopDocs top, boolean dense, Map<Integer, KnowledgeChunk> read)
      throws IOException {
    StoredFields storedFields = searcher.storedFields();
    List<ScoredChunk> hits = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc hit : top.scoreDocs) {
      KnowledgeChunk chunk = read.get(hit.doc);
      if (chunk == null) {
        Document stored = storedFields.document(hit.doc, Set.of(PAYLOAD));
        chunk = ChunkJson.read(stored.getBinaryValue(PAYLOAD).bytes).withLatestVersion(true);
        read.put(hit.doc, chunk);
      }
      double score = dense ? 2.0 * hit.score - 1.0 : hit.score;
      hits.add(new ScoredChunk(chunk, score));
    }
    return hits;
  }

  private Document document(EmbeddedChunk embedded, boolean latest) {
    KnowledgeChunk chunk = embedded.chunk().withLatestVersion(latest);
    Document doc = new Document();
    doc.add(new StringField(CHUNK_ID, chunk.chunkId(), Field.Store.NO));
    doc.add(new StringField(DOCUMENT_ID, chunk.documentId(), Field.Store.NO));
    doc.add(new StringField(TENANT_ID, chunk.tenantId(), Field.Store.NO));
    doc.add(new NumericDocValuesField(LATEST, latest ? 1 : 0));
    doc.add(new TextField(TEXT, chunk.text(), Field.Store.NO));
    doc.add(new TextField(SECTION, chunk.sectionHeading(), Field.Store.NO));
    doc.add(new StoredField(PAYLOAD, ChunkJson.write(chunk)));
    for (VectorName name : VectorName.values()) {
      float[] vector = embedded.vector(name);
      ChunkChecks.requireDimensions(vector, dimensions);
      doc.add(new KnnFloatVectorField(vectorField(name), Vectors.normalized(vector), VectorSimilarityFunction.DOT_PRODUCT));
    }
    return doc;
  }

  private static Set<String> publishedAmong(TenantIndex index, List<EmbeddedChunk> chunks) {
    Set<String> documentIds = new LinkedHashSet<>();
    chunks.forEach(chunk -> documentIds.add(chunk.chunk().documentId()));
    return index.onSearcher(searcher -> {
      Set<String> published = new LinkedHashSet<>();
      for (String documentId : documentIds) {
        Query live = new BooleanQuery.Builder()
            .add(new TermQuery(new Term(DOCUMENT_ID, documentId)), Occur.FILTER)
            .add(NumericDocValuesField.newSlowExactQuery(LATEST, 1), Occur.FILTER)
            .build();
        if (searcher.count(live) > 0) {
          published.add(documentId);
        }
      }
      return published;
    });
  }

  /** The tenant's chunks of a published version (each index holds one tenant; the term guards that too). */
  private static Query searchableFilter(String tenantId) {
    return new BooleanQuery.Builder()
        .add(new TermQuery(new Term(TENANT_ID, tenantId)), Occur.FILTER)
        .add(NumericDocValuesField.newSlowExactQuery(LATEST, 1), Occur.FILTER)
        .build();
  }

  private static String vectorField(VectorName name) {
    return "vector_" + name.wireName();
  }

  private TenantIndex index(String tenantId) {
    TenantIndex open = tenants.get(tenantId);
    if (open != null) {
      return open;
    }
    synchronized (tenants) {
      return onWriter(() -> tenants.computeIfAbsent(tenantId, id -> {
        try {
          return new TenantIndex(tenantPath(id));
        } catch (IOException e) {
          throw storeFailed(e);
        }
      }));
    }
  }

  private Optional<TenantIndex> existingIndex(String tenantId) {
    TenantIndex open = tenants.get(tenantId);
    if (open != null) {
      return Optional.of(open);
    }
    Path path = tenantPath(tenantId);
    if (!Files.isDirectory(path)) {
      return Optional.empty();
    }
    try (Directory dir = FSDirectory.open(path)) {
      if (!DirectoryReader.indexExists(dir)) {
        return Optional.empty();
      }
    } catch (IOException e) {
      throw storeFailed(e);
    }
    return Optional.of(index(tenantId));
  }

  private static void setLatest(TenantIndex index, String documentId, boolean latest) throws IOException {
    try {
      index.writer.updateNumericDocValue(new Term(DOCUMENT_ID, documentId), LATEST, latest ? 1 : 0);
    } catch (IllegalArgumentException nothingStoredYet) {
      // the field exists once any chunk is stored; before that there is nothing to show or hide
    }
  }

  /** A readable directory name for simple tenant ids; a hash for anything else. */
  private Path tenantPath(String tenantId) {
    if (tenantId.matches("[A-Za-z0-9_-]{1,64}")) {
      return directory.resolve("tenant-" + tenantId);
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(tenantId.getBytes(StandardCharsets.UTF_8));
      return directory.resolve("tenant-sha256-" + HexFormat.of().formatHex(digest));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private interface IndexWrite {
    void run() throws IOException;
  }

  private void write(IndexWrite write) {
    onWriter(() -> {
      try {
        write.run();
        return null;
      } catch (IOException e) {
        throw storeFailed(e);
      }
    });
  }

  /** Runs the work on the writer thread and waits for it, even through an interrupt, which it keeps. */
  private <T> T onWriter(Callable<T> work) {
    Future<T> result = writer.submit(work);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return result.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException runtime) {
            throw runtime;
          }
          throw new IngestionException(Code.STORE_FAILED, "the Lucene index failed: " + e.getCause(), e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static IngestionException storeFailed(IOException e) {
    return new IngestionException(Code.STORE_FAILED, "the Lucene index failed: " + e.getMessage(), e);
  }
}
