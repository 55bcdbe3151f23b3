package dev.colloquy.ingestion.store;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.WordlistLoader;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * How text is analysed for BM25, by every store alike: Lucene's English analyser (possessives,
 * lower case, Porter stemming) with the Snowball English stop list. Lucene's own short default list
 * keeps "what", "how", "do", "my" and the like, which match nearly every chunk of a question's worth
 * of text and drown the words that matter.
 */
public final class EnglishText {

  private static final CharArraySet STOP_WORDS = snowballStopWords();

  /**
   * Most distinct terms a BM25 query is made of: its first ones, as the dense side embeds a long text's
   * beginning. A pasted page of text holds thousands, which would exceed Lucene's clause limit (1024)
   * and cost Qdrant one count per term; 64 already make a question specific.
   */
  public static final int MAX_QUERY_TERMS = 64;

  private EnglishText() {}

  /** The distinct terms of a query, in order of first appearance, at most {@link #MAX_QUERY_TERMS}. */
  public static List<String> queryTerms(Analyzer analyzer, String field, String query) {
    return terms(analyzer, field, query).stream().distinct().limit(MAX_QUERY_TERMS).toList();
  }

  public static Analyzer analyzer() {
    return new EnglishAnalyzer(STOP_WORDS);
  }

  /** The terms {@code analyzer} makes of {@code text}, in order, repeats kept. */
  public static List<String> terms(Analyzer analyzer, String field, String text) {
    List<String> terms = new ArrayList<>();
    forEachTerm(analyzer, field, text, term -> {
      terms.add(term.toString());
      return true;
    });
    return terms;
  }

  /**
   * How many distinct terms of {@code wanted} the analysis of {@code text} holds, counted up to
   * {@code enough}: the analysis stops there, and compares each term in place rather than as a string.
   */
  public static int sharedTerms(Analyzer analyzer, String field, String text, CharArraySet wanted, int enough) {
    if (enough <= 0) {
      return 0;
    }
    Set<String> found = new HashSet<>();
    forEachTerm(analyzer, field, text, term -> {
      if (wanted.contains(term.buffer(), 0, term.length())) {
        found.add(term.toString());
      }
      return found.size() < enough;
    });
    return found.size();
  }

  /** Runs the analysis of {@code text}, handing each term to {@code more} until it answers false. */
  private static void forEachTerm(Analyzer analyzer, String field, String text, Predicate<CharTermAttribute> more) {
    try (TokenStream tokens = analyzer.tokenStream(field, text)) {
      CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
      tokens.reset();
      while (tokens.incrementToken() && more.test(term)) {
        // the predicate did the work
      }
      tokens.end();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot analyse text", e);
    }
  }

  private static CharArraySet snowballStopWords() {
    try (Reader list = new InputStreamReader(
        SnowballFilter.class.getResourceAsStream("english_stop.txt"), StandardCharsets.UTF_8)) {
      return CharArraySet.unmodifiableSet(WordlistLoader.getSnowballWordSet(list));
    } catch (IOException e) {
      throw new UncheckedIOException("Lucene's Snowball English stop list is missing", e);
    }
  }
}
