package dev.colloquy.config;

import java.util.List;
import java.util.Locale;

/**
 * The language middleware (seed 004 §9): which languages a user's message may be detected in, and how
 * closely. Only these languages' models are ever loaded, and only when the first message is detected,
 * which bounds the memory the detector takes; an empty list turns detection off.
 *
 * @param detect ISO 639-1 codes of the languages a message may be in (at least two, or none)
 * @param highAccuracy whether the detector uses every n-gram model of a language (better on a few
 *     words, several times the memory) or trigrams only
 */
public record LanguageSettings(List<String> detect, boolean highAccuracy) {

  public LanguageSettings {
    detect = List.copyOf(detect);
  }

  /** No detection: every message passes through as it is. */
  public static final LanguageSettings OFF = new LanguageSettings(List.of(), false);

  static LanguageSettings create(SettingsReader reader) {
    String key = "colloquy.agent.language.detect";
    List<String> codes = reader.stringList(key).stream().map(code -> code.strip().toLowerCase(Locale.ROOT)).toList();
    if (codes.size() == 1) {
      throw reader.invalid(key, "must name at least two languages to tell apart, or none to turn detection off");
    }
    for (String code : codes) {
      if (!code.matches("[a-z]{2}")) {
        throw reader.invalid(key, "must be ISO 639-1 codes such as en or fr, was '" + code + "'");
      }
    }
    if (codes.stream().distinct().count() != codes.size()) {
      throw reader.invalid(key, "names a language twice");
    }
    String accuracy = reader.string("colloquy.agent.language.accuracy");
    if (!accuracy.equals("low") && !accuracy.equals("high")) {
      throw reader.invalid("colloquy.agent.language.accuracy", "must be low or high, was '" + accuracy + "'");
    }
    return new LanguageSettings(codes, accuracy.equals("high"));
  }

  public boolean enabled() {
    return !detect.isEmpty();
  }
}
