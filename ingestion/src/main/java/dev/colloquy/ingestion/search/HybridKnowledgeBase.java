package dev.colloquy.ingestion.search;

import dev.colloquy.engine.knowledge.KnowledgeBase;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.knowledge.RetrievalResult;
import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.embed.ChunkVectors;
import dev.colloquy.ingestion.store.ScoredChunk;
import dev.colloquy.ingestion.store.VectorName;
import dev.colloquy.ingestion.store.VectorStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hybrid retrieval (seed 004 §7): the query is embedded once and searched in the chunks' three
 * vector spaces (text, summary, questions) and with BM25. The three vectors are three views of the
 * same chunk, so they make one dense ranking, by each chunk's best cosine. BM25 hits of a query of
 * three or more terms count only when they share at least two of them ({@link SharedTerms}). The
 * dense and the BM25 rankings are then merged by reciprocal rank fusion (k = 60) with equal say,
 * and reranked when a {@link Reranker} is configured. Only published (active, latest-version) chunks of the tenant are
 * searched. {@link Mode} runs either side alone, for evaluation.
 *
 * <p><b>Relevance and confidence.</b> Each returned passage carries a relevance in 0..1, and the
 * confidence is seed 004 §7.2 computed over those relevances: {@code min(1, 0.85 * top + 0.15 *
 * supporting / 10)}, with {@code top} the first passage's relevance and {@code supporting} the
 * passages among the first 8 whose relevance exceeds 0.4. With a reranker the relevance is the
 * reranker's score and passages are ordered by it. Without one (or while it fails), passages keep the fusion order and
 * the relevance is the <em>dense relevance</em>: the best cosine similarity between the query and
 * any of the chunk's three vectors, clamped to 0..1. A chunk found by BM25 alone gets the lowest
 * cosine seen in the dense rankings, which bounds its own from above (it ranked below all of them).
 *
 * <p>The blocking work (embedding, index searches, reranking) runs on the executor given. The
 * vectors of recent questions are kept ({@link QueryEmbeddingCache}), so a repeated question costs no
 * embedding.
 */
public final class HybridKnowledgeBase implements KnowledgeBase {

  private static final Logger LOG = LoggerFactory.getLogger(HybridKnowledgeBase.class);

  private final VectorStore store;
  private final ChunkVectors vectors;
  private final Optional<Reranker> reranker;
  private final Executor executor;
  private final RetrievalSettings settings;
  private final SharedTerms sharedTerms = new SharedTerms();
  private final QueryEmbeddingCache queryVectors;

  /** How many questions' vectors are kept by default: 1,024 of MiniLM's 384 floats, about 1.6 MB. */
  public static final int DEFAULT_QUERY_CACHE = 1_024;

  public HybridKnowledgeBase(
      VectorStore store, EmbeddingModel embeddings, Optional<Reranker> reranker, Executor executor, RetrievalSettings settings) {
    this(store, embeddings, reranker, executor, settings, DEFAULT_QUERY_CACHE);
  }

  /**
   * @param queryCache how many questions' vectors to keep ({@link QueryEmbeddingCache}); 0 embeds
   *     every question anew (the benchmark's measure of a question never asked before)
   */
  public HybridKnowledgeBase(VectorStore store, EmbeddingModel embeddings, Optional<Reranker> reranker, Executor executor,
      RetrievalSettings settings, int queryCache) {
    this.store = store;
    this.vectors = new ChunkVectors(embeddings);
    this.reranker = reranker;
    this.executor = executor;
    this.settings = settings;
    this.queryVectors = new QueryEmbeddingCache(queryCache);
  }

  /** No reranker, default settings. */
  public HybridKnowledgeBase(VectorStore store, EmbeddingModel embeddings, Executor executor) {
    this(store, embeddings, Optional.empty(), executor, RetrievalSettings.defaults());
  }

  /**
   * Which rankings a search fuses: both (the default), or one side alone for evaluation. {@code
   * TEXT} is plain BM25; {@code TEXT_SHARED_TERMS} is BM25 as hybrid fuses it, with the hits that
   * share too few terms with the query left out (see {@link SharedTerms}).
   */
  public enum Mode {
    DENSE,
    TEXT,
    TEXT_SHARED_TERMS,
    HYBRID
  }

  @Override
  public CompletionStage<RetrievalResult> search(String tenantId, String query, int limit) {
    // A tenant without knowledge is answered here: its turn does not wait for the executor's thread.
    if (query == null || query.isBlank() || limit <= 0 || store.holdsNothingFor(tenantId)) {
      return CompletableFuture.completedFuture(RetrievalResult.empty());
    }
    return CompletableFuture.supplyAsync(() -> searchNow(tenantId, query, limit), executor);
  }

  /** The same search, on the calling thread. */
  public RetrievalResult searchNow(String tenantId, String query, int limit) {
    return searchNow(tenantId, query, limit, Mode.HYBRID);
  }

  public RetrievalResult searchNow(String tenantId, String query, int limit, Mode mode) {
    // A tenant with nothing to search costs no query embedding.
    if (query == null || query.isBlank() || limit <= 0 || store.searchableCount(tenantId) == 0) {
      return RetrievalResult.empty();
    }
    Candidates candidates = candidates(tenantId, query, mode);
    if (candidates.byId.isEmpty()) {
      return RetrievalResult.empty();
    }
    List<Ranked> ranked = reranker.flatMap(r -> reranked(r, query, candidates))
        .orElseGet(() -> byDenseRelevance(candidates));
    List<Ranked> top = ranked.subList(0, Math.min(limit, ranked.size()));
    List<Double> relevances = ranked.stream().map(Ranked::relevance).toList();
    double confidence = Confidence.of(relevances, settings.confidenceTopN(), settings.supportThreshold());
    return new RetrievalResult(top.stream().map(HybridKnowledgeBase::passage).toList(), confidence);
  }

  private record Ranked(KnowledgeChunk chunk, double relevance) {}

  private record Candidates(List<String> fusedIds, Map<String, KnowledgeChunk> byId, Map<String, Double> bestCosine, double lowestCosine) {}

  private Candidates candidates(String tenantId, String query, Mode mode) {
    float[] queryVector = queryVectors.vector(tenantId, query, vectors::embedQuery);
    int perList = settings.candidatesPerList();
    List<List<String>> rankings = new ArrayList<>();
    Map<String, KnowledgeChunk> byId = new HashMap<>();
    Map<String, Double> bestCosine = new HashMap<>();
    double lowestCosine = 1.0;
    for (List<ScoredChunk> hits : store.searchDenseEach(tenantId, List.of(VectorName.values()), queryVector, perList).values()) {
      ids(hits, byId);
      for (ScoredChunk hit : hits) {
        bestCosine.merge(hit.chunk().chunkId(), hit.score(), Math::max);
        lowestCosine = Math.min(lowestCosine, hit.score());
      }
    }
    if (mode == Mode.DENSE || mode == Mode.HYBRID) {
      rankings.add(bestCosine.entrySet().stream()
          .sorted(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
          .map(Map.Entry::getKey)
          .limit(perList)
          .toList());
    }
    if (mode == Mode.TEXT) {
      rankings.add(ids(store.searchText(tenantId, query, perList), byId));
    } else if (mode != Mode.DENSE) {
      // Hits left out for too few shared terms leave room, so twice as many are asked for.
      List<ScoredChunk> lexical = sharedTerms.withEvidence(query, lexical(tenantId, query, 2 * perList));
      rankings.add(ids(lexical.subList(0, Math.min(perList, lexical.size())), byId));
    }
    List<String> fused = ReciprocalRankFusion.fuse(rankings, settings.rrfK()).stream()
        .map(ReciprocalRankFusion.Fused::id)
        .toList();
    return new Candidates(fused, byId, bestCosine, bestCosine.isEmpty() ? 0.0 : lowestCosine);
  }

  /**
   * The BM25 side of a hybrid search, or nothing when it fails: the dense hits already found still
   * answer the turn, where a failure here would otherwise lose them too.
   */
  private List<ScoredChunk> lexical(String tenantId, String query, int limit) {
    try {
      return store.searchText(tenantId, query, limit);
    } catch (RuntimeException e) {
      LOG.warn("The BM25 search of tenant {} failed ({}); the dense hits answer alone", tenantId, e.getClass().getName());
      return List.of();
    }
  }

  private List<Ranked> byDenseRelevance(Candidates candidates) {
    return candidates.fusedIds.stream()
        .map(id -> new Ranked(candidates.byId.get(id), Confidence.clamp(candidates.bestCosine.getOrDefault(id, candidates.lowestCosine))))
        .toList();
  }

  /** The candidates in the reranker's order, or empty when it could not score them. */
  private Optional<List<Ranked>> reranked(Reranker reranker, String query, Candidates candidates) {
    List<KnowledgeChunk> chunks = candidates.fusedIds.stream()
        .limit(settings.rerankCandidates())
        .map(candidates.byId::get)
        .toList();
    Optional<List<Double>> rescored = reranker.rerank(query, chunks.stream().map(KnowledgeChunk::text).toList());
    if (rescored.isEmpty()) {
      return Optional.empty();
    }
    List<Double> scores = rescored.get();
    if (scores.size() != chunks.size()) {
      throw new IllegalStateException("the reranker scored " + scores.size() + " of " + chunks.size() + " passages");
    }
    List<Ranked> ranked = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      ranked.add(new Ranked(chunks.get(i), Confidence.clamp(scores.get(i))));
    }
    ranked.sort(Comparator.comparingDouble(Ranked::relevance).reversed());
    return Optional.of(ranked);
  }

  private static List<String> ids(List<ScoredChunk> hits, Map<String, KnowledgeChunk> byId) {
    List<String> ids = new ArrayList<>(hits.size());
    for (ScoredChunk hit : hits) {
      byId.putIfAbsent(hit.chunk().chunkId(), hit.chunk());
      ids.add(hit.chunk().chunkId());
    }
    return ids;
  }

  private static Passage passage(Ranked ranked) {
    KnowledgeChunk chunk = ranked.chunk();
    return new Passage(chunk.documentId(), chunk.fileName(), chunk.sectionHeading(), chunk.chunkIndex(), ranked.relevance(),
        chunk.text(), chunk.chunkId());
  }
}
