package dev.colloquy.engine.agent;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Facts about the user in their own message, found by rules when no model extracts them: what they
 * said their name, email, location, work, preferences and possessions are, and anything they asked
 * to be remembered. At most {@link #MAX_FACTS}; each in the third person, one sentence.
 */
public final class OfflineFactExtractor {

  public static final int MAX_FACTS = 5;

  private record Rule(Pattern pattern, String template) {}

  /** Each rule's first group is the fact's object, up to the end of its clause. */
  private static final List<Rule> RULES = List.of(
      rule("\\bremember (?:that )?(.+)", "The user asked to remember: %s"),
      rule("\\bmy name is ([\\p{L} .'-]{2,40})", "The user's name is %s"),
      rule("\\bcall me ([\\p{L} .'-]{2,40})", "The user wants to be called %s"),
      rule("\\bmy (?:e-?mail|email address) is (\\S+@\\S+)", "The user's email is %s"),
      rule("\\bmy (?:phone|phone number|mobile) is ([+0-9 ()-]{6,20})", "The user's phone number is %s"),
      rule("\\bi (?:live|am based|'m based) in ([\\p{L} .'-]{2,40})", "The user lives in %s"),
      rule("\\bi (?:work|am working|'m working) (?:at|for) ([\\p{L}0-9 .&'-]{2,40})", "The user works at %s"),
      rule("\\bi (?:prefer|would rather) (.+)", "The user prefers %s"),
      rule("\\bi (?:really )?(?:like|love|enjoy) (.+)", "The user likes %s"),
      rule("\\bi (?:don't|do not|never) (?:like|want) (.+)", "The user does not like %s"),
      rule("\\bi(?:'m| am) allergic to (.+)", "The user is allergic to %s"),
      rule("\\bi (?:have|own|use|bought) (?:a |an |the )?(.+)", "The user has %s"),
      rule("\\bmy (order|account|policy|booking|appointment) (?:number |id |no\\.? )?is ([A-Z0-9-]{3,30})",
          "The user's %s number is %s"));

  /** A sentence's end: a dot inside an address is not one. */
  private static final Pattern SENTENCE_END = Pattern.compile("[.!?;](?=\\s|$)|\\n");

  /** A new clause about the user. */
  private static final Pattern CLAUSE_END = Pattern.compile(
      ",\\s*(?:and|but|so)\\b|\\s+but\\s+|\\s+and\\s+(?:i|i'm|my)\\b",
      Pattern.CASE_INSENSITIVE);
  private static final int MAX_OBJECT = 80;

  private OfflineFactExtractor() {}

  private static Rule rule(String regex, String template) {
    return new Rule(Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE), template);
  }

  public static List<String> extract(String message) {
    Set<String> facts = new LinkedHashSet<>();
    for (String sentence : SENTENCE_END.split(message)) {
      for (Rule rule : RULES) {
        note(rule, sentence, facts);
      }
    }
    return List.copyOf(facts).subList(0, Math.min(MAX_FACTS, facts.size()));
  }

  private static void note(Rule rule, String sentence, Set<String> facts) {
    Matcher matcher = rule.pattern().matcher(sentence);
    while (matcher.find() && facts.size() < MAX_FACTS) {
      List<String> parts = new ArrayList<>();
      for (int group = 1; group <= matcher.groupCount(); group++) {
        parts.add(clause(matcher.group(group)));
      }
      if (parts.stream().noneMatch(String::isEmpty)) {
        facts.add(String.format(Locale.ROOT, rule.template(), parts.toArray()));
      }
    }
  }

  private static String clause(String text) {
    Matcher end = CLAUSE_END.matcher(text);
    String clause = (end.find() ? text.substring(0, end.start()) : text).strip();
    return clause.length() > MAX_OBJECT ? clause.substring(0, MAX_OBJECT).strip() : clause;
  }
}
