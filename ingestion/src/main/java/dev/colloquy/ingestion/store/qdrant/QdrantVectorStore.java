package dev.colloquy.ingestion.store.qdrant;

import dev.colloquy.ingestion.store.ChunkChecks;

import static io.qdrant.client.ConditionFactory.match;
import static io.qdrant.client.ConditionFactory.matchKeyword;
import static io.qdrant.client.ConditionFactory.matchKeywords;
import static io.qdrant.client.PointIdFactory.id;
import static io.qdrant.client.QueryFactory.nearest;
import static io.qdrant.client.ValueFactory.list;
import static io.qdrant.client.ValueFactory.value;
import static io.qdrant.client.VectorFactory.vector;
import static io.qdrant.client.VectorsFactory.namedVectors;
import static io.qdrant.client.WithPayloadSelectorFactory.exclude;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import dev.colloquy.ingestion.store.ScoredChunk;
import dev.colloquy.ingestion.store.VectorName;
import dev.colloquy.ingestion.store.VectorStore;
import dev.colloquy.ingestion.store.qdrant.Bm25Terms.Field;
import dev.colloquy.ingestion.store.qdrant.Bm25Terms.Sparse;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.grpc.Collections.BoolIndexParams;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.HnswConfigDiff;
import io.qdrant.client.grpc.Collections.KeywordIndexParams;
import io.qdrant.client.grpc.Collections.PayloadIndexParams;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.SparseVectorConfig;
import io.qdrant.client.grpc.Collections.SparseVectorParams;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorParamsMap;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsSelector;
import io.qdrant.client.grpc.Points.PointsUpdateOperation;
import io.qdrant.client.grpc.Points.PointsUpdateOperation.SetPayload;
import io.qdrant.client.grpc.Points.QueryPoints;
import io.qdrant.client.grpc.Points.RetrievedPoint;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.Points.ScrollResponse;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.UpdateBatchPoints;
import io.qdrant.client.grpc.Points.UpsertPoints;
import io.qdrant.client.grpc.Points.Vector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * The scale-out {@link VectorStore}: one Qdrant collection per deployment, shared by all tenants.
 *
 * <p><b>Layout.</b> A point per chunk, its id a UUID derived from tenant and chunk id (so equal chunk
 * ids of two tenants never meet). Three named dense vectors {@code text}, {@code summary},
 * {@code questions} (cosine, the embedding model's dimensions) and one sparse vector {@code bm25}.
 * The payload is the chunk's fields as {@link ChunkPayload} names them, plus {@code text_terms} and
 * {@code section_terms}, the chunk's distinct analysed terms. Payload indexes: {@code tenant_id}
 * (keyword, marked as the tenant key so Qdrant co-locates a tenant's points), {@code document_id}
 * (keyword), {@code latest_version} (bool, the visibility flag), and the two term fields (keyword).
 * As Qdrant advises for multitenancy, the HNSW graphs are built per tenant ({@code payload_m = 16},
 * HNSW enabled on the {@code tenant_id} index only) and there is no global graph ({@code m = 0}):
 * no search ever spans tenants.
 *
 * <p><b>Tenancy.</b> Every filter this class sends is built by {@link #ofTenant}, which starts with
 * {@code tenant_id = tenant}: every query, count, payload update and delete is scoped to one tenant.
 *
 * <p><b>Visibility.</b> {@code latest_version} is false on upsert unless the document is already
 * published. {@link #publish} flips it for the document and clears it for the retired ones in one
 * {@code UpdateBatch} request. Qdrant applies the batch's operations in order but not atomically, so
 * a concurrent search may briefly see both versions (never neither: the new one is shown first).
 *
 * <p><b>Text search.</b> Qdrant's full-text payload index only filters (a match is yes or no), and
 * its own BM25 ({@code Modifier.Idf}) takes IDF over the whole collection, i.e. over every tenant,
 * which would let one tenant's documents shift another's scores. So BM25 is computed as in the
 * Lucene store, split between the two sides (see {@link Bm25Terms}): each point stores the
 * term-frequency half as the {@code bm25} sparse vector; at query time the tenant's IDF of each query
 * term comes from exact {@code Count} requests on the keyword-indexed term fields (all sent at once),
 * and Qdrant ranks by the sparse dot product under the tenant and visibility filter. The score is
 * Lucene's BM25 over text and section heading except that the length normalisation uses a fixed
 * average length per field. A search costs {@code 1 + 2 × distinct query terms} counts and one query.
 *
 * <p><b>Consistency.</b> Writes wait until Qdrant has applied them ({@code wait = true}), so a
 * search after a write sees it and the write is in Qdrant's write-ahead log when the call returns.
 * Writes of one tenant are serialized within this process, as in the Lucene store; two processes
 * writing the same document concurrently are not coordinated.
 *
 * <p>The store owns the client it is given and closes it in {@link #close}.
 */
public final class QdrantVectorStore implements VectorStore {

  /** How long each request to Qdrant may take, for stores from {@link #connect}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  static final String SPARSE_VECTOR = "bm25";
  private static final int UPSERT_BATCH = 128;
  private static final int SCROLL_PAGE = 128;
  private static final List<String> NOT_RETURNED = List.of(Field.TEXT.payloadKey(), Field.SECTION.payloadKey());

  private final QdrantClient client;
  private final String collection;
  private final int dimensions;
  private final Bm25Terms bm25 = new Bm25Terms();
  private final Map<String, Object> tenantLocks = new ConcurrentHashMap<>();

  /**
   * Uses {@code collection}, creating it and its payload indexes if missing; an existing collection
   * must have the three named vectors with {@code dimensions} and cosine distance.
   *
   * @param client the Qdrant client, owned (closed) by this store from now on
   * @param collection the collection of this deployment, shared by all tenants
   * @param dimensions the dimension of every vector, that of the embedding model in use
   */
  public QdrantVectorStore(QdrantClient client, String collection, int dimensions) {
    this.client = client;
    this.collection = collection;
    this.dimensions = dimensions;
    try {
      ensureCollection();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Connects to a Qdrant server over gRPC (port 6334 by default in Qdrant).
   *
   * @param apiKey the server's API key, or {@code null} for an unsecured server
   * @param useTls whether to connect with TLS (required when an API key crosses a network)
   */
  public static QdrantVectorStore connect(String host, int port, String apiKey, boolean useTls, String collection, int dimensions) {
    QdrantGrpcClient.Builder grpc = QdrantGrpcClient.newBuilder(host, port, useTls).withTimeout(DEFAULT_TIMEOUT);
    if (apiKey != null && !apiKey.isBlank()) {
      grpc.withApiKey(apiKey);
    }
    return new QdrantVectorStore(new QdrantClient(grpc.build()), collection, dimensions);
  }

  @Override
  public void upsert(String tenantId, List<EmbeddedChunk> chunks) {
    if (chunks.isEmpty()) {
      return;
    }
    synchronized (lock(tenantId)) {
      Set<String> published = publishedAmong(tenantId, chunks);
      List<PointStruct> points = new ArrayList<>(chunks.size());
      for (EmbeddedChunk embedded : chunks) {
        ChunkChecks.requireTenant(tenantId, embedded.chunk());
        points.add(point(embedded, published.contains(embedded.chunk().documentId())));
      }
      for (int from = 0; from < points.size(); from += UPSERT_BATCH) {
        List<PointStruct> batch = points.subList(from, Math.min(points.size(), from + UPSERT_BATCH));
        await(client.upsertAsync(UpsertPoints.newBuilder().setCollectionName(collection).setWait(true).addAllPoints(batch).build()));
      }
    }
  }

  @Override
  public void publish(String tenantId, String documentId, Collection<String> retired) {
    synchronized (lock(tenantId)) {
      UpdateBatchPoints.Builder batch = UpdateBatchPoints.newBuilder().setCollectionName(collection).setWait(true)
          .addOperations(setLatest(ofTenant(tenantId, matchKeyword(ChunkPayload.DOCUMENT_ID, documentId)), true));
      List<String> others = retired.stream().filter(old -> !old.equals(documentId)).distinct().toList();
      if (!others.isEmpty()) {
        batch.addOperations(setLatest(ofTenant(tenantId, matchKeywords(ChunkPayload.DOCUMENT_ID, others)), false));
      }
      await(client.batchUpdateAsync(batch.build(), null));
    }
  }

  @Override
  public void unpublish(String tenantId, String documentId) {
    synchronized (lock(tenantId)) {
      await(client.batchUpdateAsync(UpdateBatchPoints.newBuilder().setCollectionName(collection).setWait(true)
          .addOperations(setLatest(ofTenant(tenantId, matchKeyword(ChunkPayload.DOCUMENT_ID, documentId)), false))
          .build(), null));
    }
  }

  @Override
  public void delete(String tenantId, String documentId) {
    synchronized (lock(tenantId)) {
      await(client.deleteAsync(DeletePoints.newBuilder().setCollectionName(collection).setWait(true)
          .setPoints(PointsSelector.newBuilder().setFilter(ofTenant(tenantId, matchKeyword(ChunkPayload.DOCUMENT_ID, documentId))))
          .build()));
    }
  }

  @Override
  public List<ScoredChunk> searchDense(String tenantId, VectorName vector, float[] query, int limit) {
    ChunkChecks.requireDimensions(query, dimensions);
    if (limit <= 0) {
      return List.of();
    }
    return search(QueryPoints.newBuilder().setQuery(nearest(query)).setUsing(vector.wireName()), tenantId, limit);
  }

  @Override
  public List<ScoredChunk> searchText(String tenantId, String query, int limit) {
    List<String> terms = bm25.queryTerms(query);
    if (terms.isEmpty() || limit <= 0) {
      return List.of();
    }
    Future<Long> searchable = client.countAsync(collection, ofTenant(tenantId, match(ChunkPayload.LATEST, true)), true);
    Map<Field, Map<String, Future<Long>>> pending = new EnumMap<>(Field.class);
    for (Field field : Field.values()) {
      Map<String, Future<Long>> perTerm = new LinkedHashMap<>();
      for (String term : terms) {
        perTerm.put(term, client.countAsync(collection,
            ofTenant(tenantId, match(ChunkPayload.LATEST, true), matchKeyword(field.payloadKey(), term)), true));
      }
      pending.put(field, perTerm);
    }
    Map<Field, Map<String, Long>> frequencies = new EnumMap<>(Field.class);
    pending.forEach((field, perTerm) -> {
      Map<String, Long> counted = new LinkedHashMap<>();
      perTerm.forEach((term, count) -> counted.put(term, await(count)));
      frequencies.put(field, counted);
    });
    Sparse weights = bm25.query(frequencies, await(searchable));
    if (weights.isEmpty()) {
      return List.of();
    }
    return search(QueryPoints.newBuilder().setQuery(nearest(weights.values(), weights.indices())).setUsing(SPARSE_VECTOR), tenantId, limit);
  }

  /**
   * Scrolls through the document's searchable points until the one at {@code chunkIndex}: a filter on
   * the chunk's position would need a payload index that collections made before it lack.
   */
  @Override
  public Optional<KnowledgeChunk> searchableChunk(String tenantId, String documentId, int chunkIndex) {
    ScrollPoints.Builder page = ScrollPoints.newBuilder().setCollectionName(collection)
        .setFilter(ofTenant(tenantId, match(ChunkPayload.LATEST, true), matchKeyword(ChunkPayload.DOCUMENT_ID, documentId)))
        .setLimit(SCROLL_PAGE)
        .setWithPayload(exclude(NOT_RETURNED));
    while (true) {
      ScrollResponse scrolled = await(client.scrollAsync(page.build()));
      for (RetrievedPoint point : scrolled.getResultList()) {
        KnowledgeChunk chunk = ChunkPayload.chunk(point.getPayloadMap());
        if (chunk.chunkIndex() == chunkIndex && tenantId.equals(chunk.tenantId())) {
          return Optional.of(chunk.withLatestVersion(true));
        }
      }
      if (!scrolled.hasNextPageOffset()) {
        return Optional.empty();
      }
      page.setOffset(scrolled.getNextPageOffset());
    }
  }

  @Override
  public long searchableCount(String tenantId) {
    return await(client.countAsync(collection, ofTenant(tenantId, match(ChunkPayload.LATEST, true)), true));
  }

  @Override
  public int count(String tenantId, String documentId) {
    return Math.toIntExact(await(client.countAsync(collection, ofTenant(tenantId, matchKeyword(ChunkPayload.DOCUMENT_ID, documentId)), true)));
  }

  @Override
  public void close() {
    bm25.close();
    client.close();
  }

  /** The only way filters are built here: the tenant's points, narrowed by {@code conditions}. */
  static Filter ofTenant(String tenantId, Condition... conditions) {
    return Filter.newBuilder().addMust(matchKeyword(ChunkPayload.TENANT_ID, tenantId)).addAllMust(List.of(conditions)).build();
  }

  /** The point id of a chunk: a name-based UUID of tenant and chunk id. */
  static UUID pointId(String tenantId, String chunkId) {
    return UUID.nameUUIDFromBytes((tenantId + "\u0000" + chunkId).getBytes(StandardCharsets.UTF_8));
  }

  private List<ScoredChunk> search(QueryPoints.Builder query, String tenantId, int limit) {
    List<ScoredPoint> points = await(client.queryAsync(query
        .setCollectionName(collection)
        .setFilter(ofTenant(tenantId, match(ChunkPayload.LATEST, true)))
        .setLimit(limit)
        .setWithPayload(exclude(NOT_RETURNED))
        .build()));
    List<ScoredChunk> hits = new ArrayList<>(points.size());
    for (ScoredPoint point : points) {
      KnowledgeChunk chunk = ChunkPayload.chunk(point.getPayloadMap());
      // the filter already scopes to the tenant; checking the payload too means a server that ignored it cannot leak
      if (tenantId.equals(chunk.tenantId())) {
        hits.add(new ScoredChunk(chunk.withLatestVersion(true), point.getScore()));
      }
    }
    return hits;
  }

  private PointStruct point(EmbeddedChunk embedded, boolean latest) {
    KnowledgeChunk chunk = embedded.chunk().withLatestVersion(latest);
    Map<String, Vector> vectors = new LinkedHashMap<>();
    for (VectorName name : VectorName.values()) {
      float[] values = embedded.vector(name);
      ChunkChecks.requireDimensions(values, dimensions);
      vectors.put(name.wireName(), vector(values));
    }
    Sparse terms = bm25.document(Map.of(Field.TEXT, chunk.text(), Field.SECTION, chunk.sectionHeading()));
    if (!terms.isEmpty()) {
      vectors.put(SPARSE_VECTOR, vector(terms.values(), terms.indices()));
    }
    Map<String, Value> payload = new LinkedHashMap<>(ChunkPayload.of(chunk));
    payload.put(Field.TEXT.payloadKey(), keywords(bm25.distinctTerms(chunk.text())));
    payload.put(Field.SECTION.payloadKey(), keywords(bm25.distinctTerms(chunk.sectionHeading())));
    return PointStruct.newBuilder()
        .setId(id(pointId(chunk.tenantId(), chunk.chunkId())))
        .setVectors(namedVectors(vectors))
        .putAllPayload(payload)
        .build();
  }

  private Set<String> publishedAmong(String tenantId, List<EmbeddedChunk> chunks) {
    Set<String> documentIds = new LinkedHashSet<>();
    chunks.forEach(chunk -> documentIds.add(chunk.chunk().documentId()));
    Map<String, Future<Long>> live = new LinkedHashMap<>();
    for (String documentId : documentIds) {
      live.put(documentId, client.countAsync(collection,
          ofTenant(tenantId, matchKeyword(ChunkPayload.DOCUMENT_ID, documentId), match(ChunkPayload.LATEST, true)), true));
    }
    Set<String> published = new LinkedHashSet<>();
    live.forEach((documentId, count) -> {
      if (await(count) > 0) {
        published.add(documentId);
      }
    });
    return published;
  }

  private static PointsUpdateOperation setLatest(Filter documents, boolean latest) {
    return PointsUpdateOperation.newBuilder()
        .setSetPayload(SetPayload.newBuilder()
            .putPayload(ChunkPayload.LATEST, value(latest))
            .setPointsSelector(PointsSelector.newBuilder().setFilter(documents)))
        .build();
  }

  private void ensureCollection() {
    if (!await(client.collectionExistsAsync(collection))) {
      try {
        await(client.createCollectionAsync(createCollection()));
      } catch (IngestionException raced) {
        if (!await(client.collectionExistsAsync(collection))) {
          throw raced;
        }
      }
    }
    requireLayout(await(client.getCollectionInfoAsync(collection)));
    createIndex(ChunkPayload.TENANT_ID, PayloadSchemaType.Keyword, PayloadIndexParams.newBuilder()
        .setKeywordIndexParams(KeywordIndexParams.newBuilder().setIsTenant(true)).build());
    createIndex(ChunkPayload.DOCUMENT_ID, PayloadSchemaType.Keyword, keywordWithoutGraph());
    createIndex(ChunkPayload.LATEST, PayloadSchemaType.Bool, PayloadIndexParams.newBuilder()
        .setBoolIndexParams(BoolIndexParams.newBuilder().setEnableHnsw(false)).build());
    for (Field field : Field.values()) {
      createIndex(field.payloadKey(), PayloadSchemaType.Keyword, keywordWithoutGraph());
    }
  }

  /** Only the tenant gets HNSW subgraphs; one per document or per term would cost much and serve no search. */
  private static PayloadIndexParams keywordWithoutGraph() {
    return PayloadIndexParams.newBuilder().setKeywordIndexParams(KeywordIndexParams.newBuilder().setEnableHnsw(false)).build();
  }

  private CreateCollection createCollection() {
    VectorParamsMap.Builder dense = VectorParamsMap.newBuilder();
    for (VectorName name : VectorName.values()) {
      dense.putMap(name.wireName(), VectorParams.newBuilder().setSize(dimensions).setDistance(Distance.Cosine).build());
    }
    return CreateCollection.newBuilder()
        .setCollectionName(collection)
        .setVectorsConfig(VectorsConfig.newBuilder().setParamsMap(dense))
        .setSparseVectorsConfig(SparseVectorConfig.newBuilder().putMap(SPARSE_VECTOR, SparseVectorParams.getDefaultInstance()))
        .setHnswConfig(HnswConfigDiff.newBuilder().setM(0).setPayloadM(16))
        .build();
  }

  /** Indexes are created on every start: Qdrant treats creating an existing index as a no-op. */
  private void createIndex(String field, PayloadSchemaType type, PayloadIndexParams params) {
    await(client.createPayloadIndexAsync(collection, field, type, params, true, null, null));
  }

  private void requireLayout(CollectionInfo info) {
    Map<String, VectorParams> dense = info.getConfig().getParams().getVectorsConfig().getParamsMap().getMapMap();
    for (VectorName name : VectorName.values()) {
      VectorParams params = dense.get(name.wireName());
      if (params == null || params.getSize() != dimensions || params.getDistance() != Distance.Cosine) {
        throw new IngestionException(Code.STORE_FAILED, "Qdrant collection " + collection + " does not have a cosine vector '"
            + name.wireName() + "' of " + dimensions + " dimensions (has " + (params == null ? "none" : params.getSize() + ", " + params.getDistance())
            + "); use another collection for this embedding model");
      }
    }
    if (!info.getConfig().getParams().getSparseVectorsConfig().getMapMap().containsKey(SPARSE_VECTOR)) {
      throw new IngestionException(Code.STORE_FAILED, "Qdrant collection " + collection + " has no sparse vector '" + SPARSE_VECTOR + "'");
    }
  }

  private static Value keywords(List<String> terms) {
    return list(terms.stream().map(term -> value(term)).toList());
  }

  private Object lock(String tenantId) {
    return tenantLocks.computeIfAbsent(tenantId, id -> new Object());
  }


  private static <T> T await(Future<T> result) {
    try {
      return result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IngestionException(Code.STORE_FAILED, "interrupted while waiting for Qdrant", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IngestionException(Code.STORE_FAILED, "Qdrant failed: " + cause.getMessage(), cause);
    }
  }
}
