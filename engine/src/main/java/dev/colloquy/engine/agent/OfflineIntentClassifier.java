package dev.colloquy.engine.agent;

import dev.colloquy.engine.domain.Intent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Routes a message without a model, deterministically: greetings, thanks, acknowledgements and
 * vague openers are conversational; a blocked topic, or (when the tenant lists its topics) a
 * well-known off-topic subject that names none of them, is out of scope; anything else is a domain
 * query, so that retrieval runs rather than a real question being dropped (seed 004 §8.1's fallback).
 * Its accuracy on the support evaluation set is in bench/RESULTS.md.
 */
public final class OfflineIntentClassifier {

  /** Phrases that carry no question of their own; a message made only of them is conversational. */
  private static final List<String> CONVERSATIONAL_PHRASES = List.of(
      "good morning", "good afternoon", "good evening", "good night", "hello", "hi", "hey", "hiya", "howdy",
      "greetings", "namaste", "yo", "thank you very much", "thank you so much", "thank you", "thanks a lot",
      "thanks", "thx", "ty", "much appreciated", "appreciate it", "cheers", "great", "perfect", "awesome", "cool",
      "nice", "ok", "okay", "okey", "alright", "all right", "got it", "i see", "understood", "sure", "fine", "yes",
      "yeah", "yep", "no", "nope", "bye", "goodbye", "see you", "that's all", "that is all", "that's it",
      "how are you", "how are you doing", "how's it going", "who are you", "what's your name", "what is your name",
      "are you a bot", "are you human", "are you real", "what can you do", "what can you help me with",
      "what can you help with", "what do you do", "can you help me", "can you help", "could you help me",
      "can you assist me", "could you assist me", "i need help", "i need some help", "i need assistance",
      "help me", "help please", "help", "i have an issue", "i have a problem", "i have a question",
      "i have a query", "i've got a question", "quick question", "one question", "one more thing",
      "never mind", "nevermind", "no problem", "sorry", "my bad", "you're welcome", "good", "wow", "hmm", "um",
      "lol", "haha", "please", "talk to a human", "speak to a human", "talk to a person", "speak to a person",
      "talk to an agent", "speak to an agent", "human agent", "real person", "customer care", "representative");

  /** Words left over that ask nothing: a message of phrases and these is still conversational. */
  private static final Set<String> FILLER = Set.of("a", "an", "the", "and", "so", "just", "me", "i", "you", "there",
      "again", "then", "very", "much", "really", "for", "your", "with", "it", "that", "this", "all", "now", "want",
      "to", "would", "like", "can", "could", "please", "some", "oh", "well", "anyway", "too", "also", "dear",
      "team", "support", "bot", "sir", "madam", "friend", "guys", "everyone", "morning", "evening", "today", "ji");

  /** Subjects no support desk of any tenant covers; named without any of the tenant's topics, they are out of scope. */
  private static final Set<String> OFF_TOPIC = Set.of("weather", "forecast", "football", "cricket", "soccer",
      "basketball", "tennis", "sport", "sports", "match", "score", "movie", "movies", "film", "films", "song",
      "songs", "music", "singer", "recipe", "recipes", "cook", "cooking", "joke", "jokes", "poem", "poetry", "story",
      "politics", "political", "election", "elections", "president", "minister", "government", "stock", "stocks",
      "shares", "crypto", "bitcoin", "lottery", "horoscope", "astrology", "celebrity", "celebrities", "actor",
      "actress", "game", "games", "homework", "essay", "capital", "history", "geography", "math", "mathematics",
      "religion", "god", "dating", "girlfriend", "boyfriend", "vacation", "holiday", "travel", "flight", "hotel",
      "restaurant", "news", "meaning", "philosophy", "universe", "planet", "code", "python", "javascript", "program");

  /** Longest first, so that "thank you very much" goes before "thank you" can split it. */
  private static final List<String> LONGEST_FIRST = CONVERSATIONAL_PHRASES.stream()
      .sorted(Comparator.comparingInt(String::length).reversed()).toList();

  private static final Pattern NOT_WORD = Pattern.compile("[^\\p{L}\\p{N}']+");

  private OfflineIntentClassifier() {}

  public static Intent classify(String message, List<String> allowedTopics, List<String> blockedTopics) {
    String text = normalize(message);
    List<String> words = words(text);
    if (mentionsAny(words, blockedTopics)) {
      return Intent.OUT_OF_SCOPE;
    }
    if (onlyConversational(text)) {
      return Intent.CONVERSATIONAL;
    }
    boolean topicsListed = allowedTopics != null && !allowedTopics.isEmpty();
    if (topicsListed && words.stream().anyMatch(OFF_TOPIC::contains) && !mentionsAny(words, allowedTopics)) {
      return Intent.OUT_OF_SCOPE;
    }
    return Intent.DOMAIN_QUERY;
  }

  private static boolean onlyConversational(String text) {
    String rest = " " + text + " ";
    for (String phrase : LONGEST_FIRST) {
      // Twice: replace() does not see a repeat that shares its separating space ("thanks thanks").
      rest = rest.replace(" " + phrase + " ", " ").replace(" " + phrase + " ", " ");
    }
    List<String> left = words(rest);
    if (left.size() == words(text).size()) {
      return false;
    }
    return left.stream().allMatch(FILLER::contains);
  }

  /** Whether any topic's words all appear among the message's words (as the same word or a form of it). */
  private static boolean mentionsAny(List<String> words, List<String> topics) {
    if (topics == null) {
      return false;
    }
    for (String topic : topics) {
      List<String> topicWords = words(normalize(topic.replace('_', ' ').replace('-', ' ')));
      if (!topicWords.isEmpty() && topicWords.stream().allMatch(t -> words.stream().anyMatch(w -> sameWord(w, t)))) {
        return true;
      }
    }
    return false;
  }

  /** One word and a form of it: "refund" and "refunds", "bill" and "billing", "appointment" and "appointments". */
  static boolean sameWord(String a, String b) {
    String sa = stem(a);
    String sb = stem(b);
    if (sa.equals(sb)) {
      return true;
    }
    String shorter = sa.length() <= sb.length() ? sa : sb;
    String longer = sa.length() <= sb.length() ? sb : sa;
    return shorter.length() >= 4 && longer.startsWith(shorter);
  }

  private static String stem(String word) {
    for (String suffix : List.of("ing", "ies", "es", "ed", "s")) {
      if (word.length() > suffix.length() + 3 && word.endsWith(suffix)) {
        return word.substring(0, word.length() - suffix.length());
      }
    }
    return word;
  }

  static String normalize(String text) {
    return NOT_WORD.matcher(text.toLowerCase(Locale.ROOT).replace('’', '\'')).replaceAll(" ").strip();
  }

  private static List<String> words(String normalized) {
    List<String> words = new ArrayList<>();
    for (String word : normalized.split(" ")) {
      if (!word.isBlank()) {
        words.add(word);
      }
    }
    return words;
  }

}
