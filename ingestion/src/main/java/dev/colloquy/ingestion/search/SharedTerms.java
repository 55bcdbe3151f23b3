package dev.colloquy.ingestion.search;

import dev.colloquy.ingestion.store.EnglishText;
import dev.colloquy.ingestion.store.ScoredChunk;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;

/**
 * Which BM25 hits carry lexical evidence worth fusing. BM25 ranks any chunk that shares one term
 * with the query; for a query of three or more terms, a chunk sharing just one of them (usually a
 * common word of the domain: "machine", "work") is noise, and in reciprocal rank fusion that noise
 * outvotes a dense hit that BM25 never saw. So in fusion a lexical hit must share at least two
 * distinct terms with such a query, the rule of a {@code minimum_should_match} of 2. Shorter queries
 * keep every hit. Terms are the stores' own BM25 analysis ({@link EnglishText}) of the chunk's
 * section heading and text, the two fields they index.
 */
final class SharedTerms {

  private static final String FIELD = "text";

  private final Analyzer analyzer = EnglishText.analyzer();

  /** The distinct terms a chunk needs to share with a query of {@code queryTerms} terms. */
  static int required(int queryTerms) {
    return queryTerms >= 3 ? 2 : 1;
  }

  List<ScoredChunk> withEvidence(String query, List<ScoredChunk> hits) {
    Set<String> queryTerms = terms(query);
    int required = required(queryTerms.size());
    if (required <= 1) {
      return hits;
    }
    CharArraySet wanted = new CharArraySet(queryTerms, false);
    return hits.stream().filter(hit -> shared(wanted, hit, required) >= required).toList();
  }

  /** The query's terms in the chunk, counted only until there are enough (most hits have them early). */
  private int shared(CharArraySet queryTerms, ScoredChunk hit, int enough) {
    String text = hit.chunk().sectionHeading() + "\n" + hit.chunk().text();
    return EnglishText.sharedTerms(analyzer, FIELD, text, queryTerms, enough);
  }

  private Set<String> terms(String text) {
    return new HashSet<>(EnglishText.terms(analyzer, FIELD, text == null ? "" : text));
  }
}
