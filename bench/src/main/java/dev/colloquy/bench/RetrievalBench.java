package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.parse.Fixtures;
import dev.colloquy.ingestion.embed.MiniLmEmbeddingModel;
import dev.colloquy.ingestion.embed.Vectors;
import dev.colloquy.ingestion.search.HybridKnowledgeBase;
import dev.colloquy.ingestion.search.RetrievalSettings;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import dev.colloquy.ingestion.store.ScoredChunk;
import dev.colloquy.ingestion.store.VectorName;
import dev.colloquy.ingestion.store.VectorStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.GregorianCalendar;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.HdrHistogram.Histogram;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDFont;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.poi.xwpf.usermodel.XWPFDocument;
import org.apache.poi.xwpf.usermodel.XWPFParagraph;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Retrieval quality and speed with the real in-process MiniLM model and the Lucene store.
 *
 * <p><b>Quality.</b> Ingests the evaluation set ({@code questions.json} and the documents it lists)
 * through the ingestion pipeline (offline summaries and questions) into a temporary store, then
 * asks every question four ways: dense over the text vector alone, dense over the three vectors
 * fused by reciprocal rank fusion, BM25 alone, and hybrid ({@link HybridKnowledgeBase}: the three
 * vectors and BM25 fused, no reranker). A retrieved chunk is relevant when it comes from the
 * expected file and section (any chunk of the file for a file without headings). Prints recall@5
 * and MRR@10 per mode, overall and for the exact-term and paraphrased questions apart.
 *
 * <p><b>Speed</b> ({@code --scale}). Ingestion throughput: the evaluation set run through the whole
 * pipeline (parse, chunk, enrich, embed) {@code --rounds} times, as chunks/s, and the embedding
 * model's own embeddings/s. Query latency: for each N, a fresh store holding the evaluation set
 * padded with synthetic chunks to N (text drawn from the set's vocabulary, vectors mixed from the
 * set's real vectors plus noise), then {@code --queries} questions timed with HdrHistogram: the four
 * index searches alone, and the whole hybrid search including the query's embedding. Model, store
 * and clients share this JVM and the machine's cores.
 */
@Command(name = "retrieval", mixinStandardHelpOptions = true,
    description = "Recall@5 and MRR of dense, BM25 and hybrid retrieval on the evaluation set; with --scale, "
        + "ingestion throughput and query latency at N chunks. Prints Markdown.")
final class RetrievalBench implements Callable<Integer> {

  static final String TENANT = "bench";
  static final int RECALL_AT = 5;
  static final int MRR_AT = 10;
  private static final RetrievalSettings SETTINGS = RetrievalSettings.defaults();
  private static final KnowledgeSettings.Ingestion LIMITS = ColloquySettings.defaults().knowledge().ingestion();
  private static final int CANDIDATES_PER_LIST = SETTINGS.candidatesPerList();
  private static final int PAD_BATCH = 1_000;
  private static final int WARM_UP_QUERIES = 30;
  private static final Instant INGESTED_AT = Instant.parse("2026-01-01T00:00:00Z");

  @Option(names = "--eval-dir", defaultValue = "bench/eval", description = "The evaluation set (default ${DEFAULT-VALUE})")
  Path evalDir;

  @Option(names = "--scale", split = ",", paramLabel = "N",
      description = "Also measure ingestion throughput, and query latency with the store padded to N chunks (e.g. 10000,100000)")
  List<Integer> scales = List.of();

  @Option(names = "--queries", defaultValue = "500", description = "Timed queries per scale (default ${DEFAULT-VALUE})")
  int queries;

  @Option(names = "--rounds", defaultValue = "3", description = "Passes over the evaluation set to time ingestion (default ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--per-question", description = "Also print the rank of the first relevant chunk per question and mode")
  boolean perQuestion;

  @Option(names = "--write-fixtures", hidden = true,
      description = "Regenerate the DOCX and PDF documents of the evaluation set from sources/*.docx.md and sources/*.pdf.md, then exit")
  boolean writeFixtures;

  @Override
  public Integer call() throws Exception {
    if (writeFixtures) {
      EvalFixtures.writeAll(evalDir);
      return 0;
    }
    EvalSet set = EvalSet.read(evalDir);
    MiniLmEmbeddingModel model = new MiniLmEmbeddingModel();
    Quality quality = evaluate(set, model);
    System.out.println(quality.markdown(set));
    if (perQuestion) {
      System.out.println(quality.perQuestionMarkdown(set));
    }
    if (!scales.isEmpty()) {
      System.out.println(ingestionThroughput(set, model, rounds).markdown());
      System.out.println(LatencyRow.header());
      for (int scale : scales) {
        latency(set, model, scale, queries).forEach(row -> System.out.println(row.markdown()));
      }
    }
    return 0;
  }


  /** One question and where its answer sits. {@code section} "" means anywhere in a file without headings. */
  record EvalQuestion(String question, String document, String section, String kind) {

    boolean answeredBy(Hit hit) {
      return hit.file().equals(document) && (section.isEmpty() || hit.section().equals(section));
    }
  }

  record EvalSet(Path directory, List<String> documents, List<EvalQuestion> questions) {

    static EvalSet read(Path directory) throws IOException {
      JsonNode root = new ObjectMapper().readTree(directory.resolve("questions.json").toFile());
      List<String> documents = new ArrayList<>();
      root.path("documents").forEach(document -> documents.add(document.asText()));
      List<EvalQuestion> questions = new ArrayList<>();
      for (JsonNode question : root.path("questions")) {
        questions.add(new EvalQuestion(question.path("question").asText(), question.path("document").asText(),
            question.path("section").asText(), question.path("kind").asText("exact")));
      }
      for (EvalQuestion question : questions) {
        if (!documents.contains(question.document())) {
          throw new IllegalArgumentException("question '" + question.question() + "' names an unlisted document " + question.document());
        }
      }
      if (documents.isEmpty() || questions.isEmpty()) {
        throw new IllegalArgumentException(directory.resolve("questions.json") + " lists no documents or no questions");
      }
      return new EvalSet(directory, List.copyOf(documents), List.copyOf(questions));
    }

    byte[] content(String document) throws IOException {
      return Files.readAllBytes(directory.resolve(document));
    }
  }


  /** A retrieved chunk, as far as relevance is concerned. */
  record Hit(String file, String section) {

    static Hit of(KnowledgeChunk chunk) {
      return new Hit(chunk.fileName(), chunk.sectionHeading());
    }
  }

  enum Mode {
    DENSE_TEXT("dense, text vector only (diagnostic)"),
    DENSE("dense, 3 vectors (best cosine)"),
    BM25("BM25 only"),
    BM25_SHARED_TERMS("BM25, hits sharing 2+ query terms (hybrid's lexical side, diagnostic)"),
    HYBRID("hybrid: 3 vectors + BM25 (RRF)");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  /** Recall@5 and MRR@10 of one mode, overall and per question kind. */
  record Score(double recallAt5, double mrr, Map<String, Double> recallAt5ByKind, List<Integer> ranks) {}

  /** Scores per mode, the chunks indexed and the (file, section) pairs they cover. */
  record Quality(Map<Mode, Score> scores, int chunks, Set<Hit> sections) {

    /** Per question, the rank of the first relevant chunk in each mode ("-" when not in the first 10). */
    String perQuestionMarkdown(EvalSet set) {
      StringBuilder out = new StringBuilder("| question | kind |");
      scores.keySet().forEach(mode -> out.append(' ').append(mode.label).append(" |"));
      out.append("\n|---|---|").append("---|".repeat(scores.size())).append('\n');
      for (int i = 0; i < set.questions().size(); i++) {
        EvalQuestion question = set.questions().get(i);
        out.append("| ").append(question.question()).append(" | ").append(question.kind()).append(" |");
        for (Score score : scores.values()) {
          int rank = score.ranks().get(i);
          out.append(' ').append(rank == 0 ? "-" : Integer.toString(rank)).append(" |");
        }
        out.append('\n');
      }
      return out.toString();
    }

    String markdown(EvalSet set) {
      Map<String, Long> kinds = new LinkedHashMap<>();
      set.questions().forEach(question -> kinds.merge(question.kind(), 1L, Long::sum));
      StringBuilder out = new StringBuilder();
      out.append("Retrieval quality: ").append(set.documents().size()).append(" documents, ").append(chunks)
          .append(" chunks, ").append(set.questions().size()).append(" questions (")
          .append(String.join(", ", kinds.entrySet().stream().map(kind -> kind.getValue() + " " + kind.getKey()).toList()))
          .append("), all-MiniLM-L6-v2, offline enrichment, no reranker\n\n");
      out.append("| mode | recall@5 | MRR@10 |");
      kinds.keySet().forEach(kind -> out.append(" recall@5 (").append(kind).append(") |"));
      out.append("\n|---|---|---|").append("---|".repeat(kinds.size())).append('\n');
      scores.forEach((mode, score) -> {
        out.append(String.format(Locale.ROOT, "| %s | %.3f | %.3f |", mode.label, score.recallAt5(), score.mrr()));
        kinds.keySet().forEach(kind -> out.append(String.format(Locale.ROOT, " %.3f |", score.recallAt5ByKind().getOrDefault(kind, 0.0))));
        out.append('\n');
      });
      return out.toString();
    }
  }

  static Quality evaluate(EvalSet set, EmbeddingModel model) throws IOException {
    Path directory = Files.createTempDirectory("colloquy-retrieval-bench");
    try (LuceneVectorStore store = new LuceneVectorStore(directory, model.dimensions())) {
      List<EmbeddedChunk> chunks = ingest(set, store, IngestionPipeline.create(LIMITS, model));
      Searches searches = new Searches(store, model);
      Map<Mode, Score> scores = new EnumMap<>(Mode.class);
      for (Mode mode : Mode.values()) {
        scores.put(mode, score(set.questions(), question -> searches.ranked(mode, question.question())));
      }
      Set<Hit> sections = new LinkedHashSet<>();
      chunks.forEach(chunk -> sections.add(Hit.of(chunk.chunk())));
      return new Quality(scores, chunks.size(), sections);
    } finally {
      deleteRecursively(directory);
    }
  }

  private interface Ranker {
    List<Hit> ranked(EvalQuestion question);
  }

  private static Score score(List<EvalQuestion> questions, Ranker ranker) {
    double reciprocalRanks = 0;
    Map<String, int[]> foundByKind = new LinkedHashMap<>();
    int found = 0;
    List<Integer> ranks = new ArrayList<>();
    for (EvalQuestion question : questions) {
      List<Hit> hits = ranker.ranked(question);
      int rank = firstRelevantRank(question, hits);
      ranks.add(rank);
      boolean inTop = rank > 0 && rank <= RECALL_AT;
      found += inTop ? 1 : 0;
      reciprocalRanks += rank > 0 && rank <= MRR_AT ? 1.0 / rank : 0;
      int[] counts = foundByKind.computeIfAbsent(question.kind(), kind -> new int[2]);
      counts[0] += inTop ? 1 : 0;
      counts[1]++;
    }
    Map<String, Double> byKind = new LinkedHashMap<>();
    foundByKind.forEach((kind, counts) -> byKind.put(kind, counts[0] / (double) counts[1]));
    return new Score(found / (double) questions.size(), reciprocalRanks / questions.size(), byKind, List.copyOf(ranks));
  }

  /** The 1-based rank of the first relevant hit, 0 when there is none. */
  private static int firstRelevantRank(EvalQuestion question, List<Hit> hits) {
    for (int i = 0; i < hits.size(); i++) {
      if (question.answeredBy(hits.get(i))) {
        return i + 1;
      }
    }
    return 0;
  }

  /** The four ways of searching, each returning the first {@value #MRR_AT} chunks. */
  private static final class Searches {
    private final VectorStore store;
    private final EmbeddingModel model;
    private final HybridKnowledgeBase hybrid;

    Searches(VectorStore store, EmbeddingModel model) {
      this.store = store;
      this.model = model;
      this.hybrid = new HybridKnowledgeBase(store, model, Runnable::run);
    }

    List<Hit> ranked(Mode mode, String question) {
      return switch (mode) {
        case HYBRID -> searched(question, HybridKnowledgeBase.Mode.HYBRID);
        case BM25 -> searched(question, HybridKnowledgeBase.Mode.TEXT);
        case BM25_SHARED_TERMS -> searched(question, HybridKnowledgeBase.Mode.TEXT_SHARED_TERMS);
        case DENSE_TEXT -> hits(store.searchDense(TENANT, VectorName.TEXT, embed(question), MRR_AT));
        case DENSE -> searched(question, HybridKnowledgeBase.Mode.DENSE);
      };
    }

    private List<Hit> searched(String question, HybridKnowledgeBase.Mode mode) {
      return hybrid.searchNow(TENANT, question, MRR_AT, mode).passages().stream().map(Searches::hit).toList();
    }

    private float[] embed(String question) {
      return model.embed(List.of(question)).getFirst();
    }

    private static List<Hit> hits(List<ScoredChunk> scored) {
      return scored.stream().map(hit -> Hit.of(hit.chunk())).toList();
    }

    private static Hit hit(Passage passage) {
      return new Hit(passage.source(), passage.section());
    }
  }

  static List<EmbeddedChunk> ingest(EvalSet set, VectorStore store, IngestionPipeline pipeline) throws IOException {
    List<EmbeddedChunk> all = new ArrayList<>();
    for (String document : set.documents()) {
      String documentId = "eval-" + document;
      List<EmbeddedChunk> chunks = pipeline.prepare(
          new IngestionPipeline.Origin(TENANT, documentId, document, 1, INGESTED_AT), set.content(document));
      store.upsert(TENANT, chunks);
      store.publish(TENANT, documentId, List.of());
      all.addAll(chunks);
    }
    return all;
  }


  /** An embedding model that counts the texts it embeds and the time it spends. */
  private static final class TimedEmbeddingModel implements EmbeddingModel {
    private final EmbeddingModel model;
    private final AtomicLong texts = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();

    TimedEmbeddingModel(EmbeddingModel model) {
      this.model = model;
    }

    @Override
    public String name() {
      return model.name();
    }

    @Override
    public int dimensions() {
      return model.dimensions();
    }

    @Override
    public List<float[]> embed(List<String> batch) {
      long started = System.nanoTime();
      List<float[]> vectors = model.embed(batch);
      nanos.addAndGet(System.nanoTime() - started);
      texts.addAndGet(batch.size());
      return vectors;
    }

    void reset() {
      texts.set(0);
      nanos.set(0);
    }
  }

  record Throughput(int rounds, long chunks, double seconds, long embeddings, double embeddingSeconds, int cores) {

    String markdown() {
      return String.format(Locale.ROOT, """
          Ingestion throughput: the evaluation set %d times through parse, chunk, offline enrichment and \
          embedding (3 texts per chunk), %d cores available

          | chunks | chunks/s | chunks/s per core | embeddings | embeddings/s (model only) | embeddings/s per core |
          |---|---|---|---|---|---|
          | %d | %.1f | %.1f | %d | %.1f | %.1f |
          """, rounds, cores, chunks, chunks / seconds, chunks / seconds / cores, embeddings,
          embeddings / embeddingSeconds, embeddings / embeddingSeconds / cores);
    }
  }

  static Throughput ingestionThroughput(EvalSet set, EmbeddingModel model, int rounds) throws IOException {
    TimedEmbeddingModel timed = new TimedEmbeddingModel(model);
    IngestionPipeline pipeline = IngestionPipeline.create(LIMITS, timed);
    prepareAll(set, pipeline);
    timed.reset();
    long chunks = 0;
    long started = System.nanoTime();
    for (int round = 0; round < rounds; round++) {
      chunks += prepareAll(set, pipeline);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    return new Throughput(rounds, chunks, seconds, timed.texts.get(), timed.nanos.get() / 1e9,
        Runtime.getRuntime().availableProcessors());
  }

  private static int prepareAll(EvalSet set, IngestionPipeline pipeline) throws IOException {
    int chunks = 0;
    for (String document : set.documents()) {
      chunks += pipeline.prepare(new IngestionPipeline.Origin(TENANT, UUID.randomUUID().toString(), document, 1, INGESTED_AT),
          set.content(document)).size();
    }
    return chunks;
  }


  record LatencyRow(int chunks, String index, double paddingPerSecond, Histogram storeMicros, Histogram hybridMicros,
      Histogram embedMicros, Histogram repeatedMicros) {

    static String header() {
      return """
          Query latency (ms), store padded with synthetic chunks; "index searches" = 3 HNSW searches + 1 BM25 search \
          with the query already embedded, "hybrid" = the whole search including embedding the query and fusion \
          (no cached query vectors), "hybrid, repeated question" = the same with the question's vector cached; \
          index "merging" = timed as soon as the padding is written, its merges still running, "settled" = the \
          same store closed (which waits for its merges) and opened again, as a tenant's index a while after ingestion

          | chunks | index | padding written (chunks/s) | index searches p50 | p99 | hybrid p50 | p99 | query embedding p50 | p99 \
          | hybrid, repeated question p50 | p99 |
          |---|---|---|---|---|---|---|---|---|---|---|""";
    }

    String markdown() {
      return String.format(Locale.ROOT, "| %,d | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |", chunks,
          index, paddingPerSecond, ms(storeMicros, 50), ms(storeMicros, 99), ms(hybridMicros, 50), ms(hybridMicros, 99),
          ms(embedMicros, 50), ms(embedMicros, 99), ms(repeatedMicros, 50), ms(repeatedMicros, 99));
    }

    private static double ms(Histogram micros, double percentile) {
      return micros.getValueAtPercentile(percentile) / 1000.0;
    }
  }

  static List<LatencyRow> latency(EvalSet set, EmbeddingModel model, int scale, int queries) throws IOException {
    Path directory = Files.createTempDirectory("colloquy-retrieval-bench-" + scale);
    try {
      List<LatencyRow> rows = new ArrayList<>();
      int chunks;
      double paddingPerSecond;
      try (LuceneVectorStore store = new LuceneVectorStore(directory, model.dimensions())) {
        List<EmbeddedChunk> real = ingest(set, store, IngestionPipeline.create(LIMITS, model));
        int padding = Math.max(0, scale - real.size());
        long started = System.nanoTime();
        new Padding(real, new Random(42)).fill(store, padding);
        paddingPerSecond = padding / ((System.nanoTime() - started) / 1e9);
        chunks = real.size() + padding;
        rows.add(timed(set, model, store, queries, chunks, "merging", paddingPerSecond));
      }
      // Closing the store closes its index writers, which wait for their merges.
      try (LuceneVectorStore store = new LuceneVectorStore(directory, model.dimensions())) {
        rows.add(timed(set, model, store, queries, chunks, "settled", paddingPerSecond));
      }
      return rows;
    } finally {
      deleteRecursively(directory);
    }
  }

  private static LatencyRow timed(EvalSet set, EmbeddingModel model, VectorStore store, int queries, int chunks, String index,
      double paddingPerSecond) {
    // Every question embedded anew, as if never asked before; and through the cache of query vectors.
    HybridKnowledgeBase hybrid = new HybridKnowledgeBase(store, model, Optional.empty(), Runnable::run, SETTINGS, 0);
    HybridKnowledgeBase cached = new HybridKnowledgeBase(store, model, Runnable::run);
    List<String> questions = set.questions().stream().map(EvalQuestion::question).toList();
    Histogram storeMicros = new Histogram(3);
    Histogram hybridMicros = new Histogram(3);
    Histogram embedMicros = new Histogram(3);
    Histogram repeatedMicros = new Histogram(3);
    questions.forEach(question -> cached.searchNow(TENANT, question, RECALL_AT));
    for (int i = 0; i < WARM_UP_QUERIES + queries; i++) {
      boolean timed = i >= WARM_UP_QUERIES;
      String question = questions.get(i % questions.size());
      long t0 = System.nanoTime();
      float[] vector = model.embed(List.of(question)).getFirst();
      long t1 = System.nanoTime();
      store.searchDenseEach(TENANT, List.of(VectorName.values()), vector, CANDIDATES_PER_LIST);
      store.searchText(TENANT, question, CANDIDATES_PER_LIST);
      long t2 = System.nanoTime();
      hybrid.searchNow(TENANT, question, RECALL_AT);
      long t3 = System.nanoTime();
      cached.searchNow(TENANT, question, RECALL_AT);
      long t4 = System.nanoTime();
      if (timed) {
        embedMicros.recordValue((t1 - t0) / 1_000);
        storeMicros.recordValue((t2 - t1) / 1_000);
        hybridMicros.recordValue((t3 - t2) / 1_000);
        repeatedMicros.recordValue((t4 - t3) / 1_000);
      }
    }
    return new LatencyRow(chunks, index, paddingPerSecond, storeMicros, hybridMicros, embedMicros, repeatedMicros);
  }

  /**
   * Synthetic chunks to pad a store: 60–140 words drawn from the real chunks' vocabulary, and each
   * vector a random mix of two real vectors of the same kind plus Gaussian noise, normalized, so the
   * padding lies around the real embeddings rather than uniformly on the sphere.
   */
  private static final class Padding {
    private final List<EmbeddedChunk> real;
    private final List<String> vocabulary;
    private final Random random;

    Padding(List<EmbeddedChunk> real, Random random) {
      this.real = real;
      this.random = random;
      Set<String> words = new LinkedHashSet<>();
      for (EmbeddedChunk chunk : real) {
        for (String word : chunk.chunk().text().toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
          if (word.length() > 1) {
            words.add(word);
          }
        }
      }
      this.vocabulary = List.copyOf(words);
    }

    void fill(VectorStore store, int count) {
      for (int done = 0, batch = 0; done < count; batch++) {
        int size = Math.min(PAD_BATCH, count - done);
        String documentId = "padding-" + batch;
        List<EmbeddedChunk> chunks = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
          chunks.add(chunk(documentId, i));
        }
        store.upsert(TENANT, chunks);
        store.publish(TENANT, documentId, List.of());
        done += size;
      }
    }

    private EmbeddedChunk chunk(String documentId, int index) {
      int words = 60 + random.nextInt(81);
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < words; i++) {
        text.append(i == 0 ? "" : " ").append(vocabulary.get(random.nextInt(vocabulary.size())));
      }
      String section = "Synthetic section " + random.nextInt(1_000);
      KnowledgeChunk chunk = new KnowledgeChunk(UUID.randomUUID().toString(), documentId, TENANT, documentId + ".txt", 1, false,
          section, "paragraph", index, text.toString(), text.length(), words, text.substring(0, Math.min(200, text.length())),
          List.of("What is " + section + "?"), "synthetic", INGESTED_AT);
      Map<VectorName, float[]> vectors = new EnumMap<>(VectorName.class);
      for (VectorName name : VectorName.values()) {
        vectors.put(name, mixed(name));
      }
      return new EmbeddedChunk(chunk, vectors);
    }

    private float[] mixed(VectorName name) {
      float[] a = real.get(random.nextInt(real.size())).vector(name);
      float[] b = real.get(random.nextInt(real.size())).vector(name);
      float weight = random.nextFloat();
      float[] vector = new float[a.length];
      for (int i = 0; i < vector.length; i++) {
        vector[i] = weight * a[i] + (1 - weight) * b[i] + (float) (random.nextGaussian() * 0.04);
      }
      return Vectors.normalized(vector);
    }
  }

  static void deleteRecursively(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }


  /**
   * Writes the evaluation set's DOCX and PDF files from small Markdown sources ({@code # } and {@code
   * ## } headings, paragraphs separated by blank lines, {@code - } list items), with POI and PDFBox,
   * the libraries Tika itself reads them with. Dates are fixed so a regeneration changes nothing
   * but what the sources changed.
   */
  static final class EvalFixtures {

    private static final float MARGIN = 72;
    private static final float BODY_SIZE = 11;
    private static final float LEADING = 14;
    // Tika's PDF reader knows no headings or paragraphs: it infers paragraphs from a gap well above the
    // line spacing, and the parser reads a short paragraph without punctuation as a heading.

    private EvalFixtures() {}

    sealed interface Block {
      record Heading(int level, String text) implements Block {}

      record Paragraph(String text) implements Block {}

      record Item(String text) implements Block {}
    }

    static void writeAll(Path evalDir) throws IOException {
      try (Stream<Path> sources = Files.list(evalDir.resolve("sources"))) {
        for (Path source : sources.sorted().toList()) {
          String name = source.getFileName().toString();
          if (!name.endsWith(".md")) {
            continue;
          }
          String target = name.substring(0, name.length() - ".md".length());
          List<Block> blocks = blocks(Files.readString(source));
          if (target.endsWith(".docx")) {
            Files.write(evalDir.resolve(target), docx(blocks));
          } else if (target.endsWith(".pdf")) {
            Files.write(evalDir.resolve(target), pdf(blocks));
          }
        }
      }
    }

    static List<Block> blocks(String markdown) {
      List<Block> blocks = new ArrayList<>();
      StringBuilder paragraph = new StringBuilder();
      for (String line : markdown.split("\n", -1)) {
        String trimmed = line.strip();
        boolean special = trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("- ");
        if (special && !paragraph.isEmpty()) {
          blocks.add(new Block.Paragraph(paragraph.toString()));
          paragraph.setLength(0);
        }
        if (trimmed.startsWith("## ")) {
          blocks.add(new Block.Heading(2, trimmed.substring(3)));
        } else if (trimmed.startsWith("# ")) {
          blocks.add(new Block.Heading(1, trimmed.substring(2)));
        } else if (trimmed.startsWith("- ")) {
          blocks.add(new Block.Item(trimmed.substring(2)));
        } else if (!trimmed.isEmpty()) {
          paragraph.append(paragraph.isEmpty() ? "" : " ").append(trimmed);
        }
      }
      if (!paragraph.isEmpty()) {
        blocks.add(new Block.Paragraph(paragraph.toString()));
      }
      return blocks;
    }

    static byte[] docx(List<Block> blocks) throws IOException {
      try (XWPFDocument doc = new XWPFDocument()) {
        Calendar fixed = new GregorianCalendar(TimeZone.getTimeZone("UTC"), Locale.ROOT);
        fixed.setTimeInMillis(INGESTED_AT.toEpochMilli());
        doc.getProperties().getCoreProperties().setCreated(Optional.of(fixed.getTime()));
        doc.getProperties().getCoreProperties().setCreator("colloquy bench");
        Fixtures.addStyles(doc, 2);
        BigInteger bullets = Fixtures.addBulletNumbering(doc);
        for (Block block : blocks) {
          XWPFParagraph paragraph = doc.createParagraph();
          switch (block) {
            case Block.Heading heading -> {
              paragraph.setStyle("Heading" + heading.level());
              paragraph.createRun().setText(heading.text());
            }
            case Block.Paragraph text -> paragraph.createRun().setText(text.text());
            case Block.Item item -> {
              paragraph.setStyle("ListParagraph");
              paragraph.setNumID(bullets);
              paragraph.createRun().setText(item.text());
            }
          }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        doc.write(out);
        return withFixedEntryTimes(out.toByteArray());
      }
    }

    /** The same archive with every entry dated {@link #INGESTED_AT}: the archiver dates them now. */
    private static byte[] withFixedEntryTimes(byte[] zip) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip)); ZipOutputStream out = new ZipOutputStream(bytes)) {
        for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
          ZipEntry fixed = new ZipEntry(entry.getName());
          fixed.setTime(INGESTED_AT.toEpochMilli());
          out.putNextEntry(fixed);
          out.write(in.readAllBytes());
          out.closeEntry();
        }
      }
      return bytes.toByteArray();
    }

    static byte[] pdf(List<Block> blocks) throws IOException {
      try (PDDocument doc = new PDDocument()) {
        Calendar fixed = new GregorianCalendar(TimeZone.getTimeZone("UTC"), Locale.ROOT);
        fixed.setTimeInMillis(INGESTED_AT.toEpochMilli());
        doc.getDocumentInformation().setCreationDate(fixed);
        doc.getDocumentInformation().setProducer("colloquy bench");
        doc.setDocumentId(INGESTED_AT.toEpochMilli());
        PdfWriter writer = new PdfWriter(doc);
        for (Block block : blocks) {
          switch (block) {
            case Block.Heading heading -> writer.heading(heading.text(), heading.level() == 1 ? 18 : 14);
            case Block.Paragraph text -> writer.paragraph(text.text(), "");
            case Block.Item item -> writer.paragraph(item.text(), "\u2022 ");
          }
        }
        writer.close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        doc.save(out);
        return out.toByteArray();
      }
    }

    /** Lays out lines top to bottom, wrapping paragraphs to the page width and starting pages as needed. */
    private static final class PdfWriter {
      private final PDDocument doc;
      private final PDFont bold = new PDType1Font(Standard14Fonts.FontName.HELVETICA_BOLD);
      private final PDFont regular = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
      private final float width = PDRectangle.LETTER.getWidth() - 2 * MARGIN;
      private PDPageContentStream content;
      private float y;

      PdfWriter(PDDocument doc) {
        this.doc = doc;
      }

      void heading(String text, float size) throws IOException {
        space(size + 3 * LEADING);
        y -= LEADING;
        line(bold, size, text);
        y -= 2 * LEADING + size;
      }

      void paragraph(String text, String marker) throws IOException {
        List<String> lines = wrap(marker + text);
        for (String line : lines) {
          space(LEADING);
          line(regular, BODY_SIZE, line);
          y -= LEADING;
        }
        y -= 2 * LEADING;
      }

      private List<String> wrap(String text) throws IOException {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
          String candidate = line.isEmpty() ? word : line + " " + word;
          if (!line.isEmpty() && regular.getStringWidth(candidate) / 1000 * BODY_SIZE > width) {
            lines.add(line.toString());
            line.setLength(0);
            line.append(word);
          } else {
            line.setLength(0);
            line.append(candidate);
          }
        }
        if (!line.isEmpty()) {
          lines.add(line.toString());
        }
        return lines;
      }

      private void space(float needed) throws IOException {
        if (content == null || y - needed < MARGIN) {
          close();
          PDPage page = new PDPage(PDRectangle.LETTER);
          doc.addPage(page);
          content = new PDPageContentStream(doc, page);
          y = PDRectangle.LETTER.getHeight() - MARGIN;
        }
      }

      private void line(PDFont font, float size, String text) throws IOException {
        content.beginText();
        content.setFont(font, size);
        content.newLineAtOffset(MARGIN, y);
        content.showText(text);
        content.endText();
      }

      void close() throws IOException {
        if (content != null) {
          content.close();
          content = null;
        }
      }
    }
  }
}
