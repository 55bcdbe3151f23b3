package dev.colloquy.ingestion.store.qdrant;

import dev.colloquy.ingestion.store.EnglishText;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.analysis.Analyzer;

/**
 * BM25 as sparse vectors, split so Qdrant can do the ranking: a chunk stores, for each analysed term,
 * BM25's term-frequency part (saturated by {@link #K1} and length-normalised by {@link #B}); a query
 * weights each of its terms by the tenant's IDF, so the sparse dot product Qdrant computes is the
 * BM25 score, the same formula as Lucene's {@code BM25Similarity} (which omits the constant
 * {@code k1 + 1}).
 *
 * <p>Two fields, each with its own terms: the chunk text and its section heading, the heading's
 * clauses weighted by {@link Field#boost()} as in the Lucene store. Analysis is Lucene's English
 * analyser, also as in the Lucene store. A term's sparse index is a 32-bit FNV-1a hash of
 * {@code field:term}; distinct terms that collide share a dimension and their weights add up.
 *
 * <p>What differs from Lucene: a stored weight is computed once, at upsert, so the average field
 * length in the length normalisation is a constant of the field ({@link Field#averageLength()})
 * rather than the index's current average.
 */
final class Bm25Terms implements AutoCloseable {

  static final double K1 = 1.2;
  static final double B = 0.75;

  /** The fields scored, with the payload key holding each chunk's distinct terms of that field. */
  enum Field {
    /** Analysed terms per chunk of 400–500 cl100k tokens, once stop words are gone. */
    TEXT("text_terms", 1.0, 250),
    SECTION("section_terms", 0.5, 4);

    private final String payloadKey;
    private final double boost;
    private final double averageLength;

    Field(String payloadKey, double boost, double averageLength) {
      this.payloadKey = payloadKey;
      this.boost = boost;
      this.averageLength = averageLength;
    }

    String payloadKey() {
      return payloadKey;
    }

    double boost() {
      return boost;
    }

    double averageLength() {
      return averageLength;
    }
  }

  /** A sparse vector: distinct dimensions, ascending, with their weights. */
  record Sparse(List<Integer> indices, List<Float> values) {
    boolean isEmpty() {
      return indices.isEmpty();
    }
  }

  private final Analyzer analyzer = EnglishText.analyzer();

  /** The distinct analysed terms of {@code text}, in order of first appearance. */
  List<String> distinctTerms(String text) {
    return analyze(text).stream().distinct().toList();
  }

  /** The terms a query is searched by: its first {@link EnglishText#MAX_QUERY_TERMS} distinct ones. */
  List<String> queryTerms(String query) {
    return EnglishText.queryTerms(analyzer, "text", query);
  }

  /** The stored side of BM25 for one chunk: each term's saturated, length-normalised frequency per field. */
  Sparse document(Map<Field, String> fields) {
    Map<Integer, Float> weights = new TreeMap<>();
    fields.forEach((field, text) -> {
      List<String> terms = analyze(text);
      Map<String, Integer> frequencies = new LinkedHashMap<>();
      terms.forEach(term -> frequencies.merge(term, 1, Integer::sum));
      double lengthNorm = K1 * (1 - B + B * terms.size() / field.averageLength());
      frequencies.forEach((term, frequency) ->
          weights.merge(index(field, term), (float) (frequency / (frequency + lengthNorm)), Float::sum));
    });
    return sparse(weights);
  }

  /**
   * The query side: each term of each field weighted by its IDF among the tenant's {@code searchable}
   * chunks, of which {@code documentFrequency} hold the term in that field; terms no chunk holds are
   * left out.
   */
  Sparse query(Map<Field, Map<String, Long>> documentFrequencies, long searchable) {
    Map<Integer, Float> weights = new TreeMap<>();
    documentFrequencies.forEach((field, frequencies) -> frequencies.forEach((term, frequency) -> {
      if (frequency > 0) {
        double idf = Math.log(1 + (searchable - frequency + 0.5) / (frequency + 0.5));
        weights.merge(index(field, term), (float) (idf * field.boost()), Float::sum);
      }
    }));
    return sparse(weights);
  }

  @Override
  public void close() {
    analyzer.close();
  }

  private static Sparse sparse(Map<Integer, Float> weights) {
    return new Sparse(List.copyOf(weights.keySet()), List.copyOf(weights.values()));
  }

  /** 32-bit FNV-1a over the UTF-8 of {@code field:term}: a fixed function, so stored vectors stay valid across releases. */
  static int index(Field field, String term) {
    int hash = 0x811c9dc5;
    for (byte b : (field.payloadKey() + ":" + term).getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x01000193;
    }
    return hash;
  }

  private List<String> analyze(String text) {
    return EnglishText.terms(analyzer, "text", text);
  }
}
