package dev.colloquy.ingestion.chunk;

import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A deterministic enricher for when no chat model is configured. The summary is the chunk's leading
 * sentences (up to about 40 words, Markdown marks removed); the questions are built from the section
 * heading and the chunk's most frequent content words. Named {@value #NAME} in the payload.
 */
public final class OfflineEnricher implements ChunkEnricher {

  public static final String NAME = "offline-extractive-v1";

  private static final int SUMMARY_WORDS = 40;
  private static final Set<String> STOP_WORDS = Set.of(
      "about", "above", "after", "again", "also", "been", "before", "being", "below", "between", "both", "cannot",
      "could", "does", "doing", "down", "during", "each", "from", "further", "have", "having", "here", "into", "itself",
      "just", "more", "most", "must", "only", "other", "over", "same", "should", "some", "such", "than", "that", "their",
      "them", "then", "there", "these", "they", "this", "those", "through", "under", "until", "very", "were", "what",
      "when", "where", "which", "while", "will", "with", "within", "would", "your", "yours");

  @Override
  public Enrichment enrich(String sectionHeading, String text) {
    String plain = plainText(text, sectionHeading);
    return new Enrichment(summary(plain), questions(sectionHeading, plain), NAME);
  }

  private static String plainText(String markdown, String heading) {
    String withoutHeadings = markdown.replaceAll("(?m)^#{1,6} .*$", " ");
    String withoutMarks = withoutHeadings.replaceAll("(?m)^\\|?-{3}[-|]*$", " ").replace("```", " ").replace("|", " ")
        .replaceAll("(?m)^\\s*(?:[-*]|\\d+\\.)\\s+", " ");
    String plain = withoutMarks.replaceAll("\\s+", " ").strip();
    return plain.isEmpty() ? heading : plain;
  }

  private static String summary(String plain) {
    BreakIterator sentences = BreakIterator.getSentenceInstance(Locale.ROOT);
    sentences.setText(plain);
    StringBuilder summary = new StringBuilder();
    int words = 0;
    for (int start = sentences.first(), end = sentences.next(); end != BreakIterator.DONE; start = end, end = sentences.next()) {
      String sentence = plain.substring(start, end).strip();
      int sentenceWords = sentence.split("\\s+").length;
      if (words > 0 && words + sentenceWords > SUMMARY_WORDS) {
        break;
      }
      summary.append(summary.isEmpty() ? "" : " ").append(sentence);
      words += sentenceWords;
      if (words >= SUMMARY_WORDS) {
        break;
      }
    }
    String[] all = summary.toString().split("\\s+");
    return all.length <= SUMMARY_WORDS * 2 ? summary.toString() : String.join(" ", List.of(all).subList(0, SUMMARY_WORDS)) + " …";
  }

  private static List<String> questions(String heading, String plain) {
    List<String> terms = topTerms(plain, 4);
    String topic = heading.isBlank() ? (terms.isEmpty() ? "this topic" : terms.getFirst()) : heading;
    String first = terms.isEmpty() ? topic : terms.getFirst();
    String second = terms.size() > 1 ? terms.get(1) : topic;
    String third = terms.size() > 2 ? terms.get(2) : second;
    List<String> questions = new ArrayList<>();
    questions.add("What should I know about " + topic + "?");
    questions.add("How does " + first + " work with " + second + "?");
    questions.add("What are the rules for " + third + "?");
    return questions;
  }

  private static List<String> topTerms(String plain, int count) {
    Map<String, Integer> frequency = new LinkedHashMap<>();
    for (String word : plain.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (word.length() > 3 && !STOP_WORDS.contains(word) && !word.chars().allMatch(Character::isDigit)) {
        frequency.merge(word, 1, Integer::sum);
      }
    }
    return frequency.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
        .limit(count)
        .map(Map.Entry::getKey)
        .toList();
  }
}
