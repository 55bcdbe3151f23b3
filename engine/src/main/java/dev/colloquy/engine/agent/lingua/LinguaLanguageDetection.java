package dev.colloquy.engine.agent.lingua;

import com.github.pemistahl.lingua.api.IsoCode639_1;
import com.github.pemistahl.lingua.api.Language;
import com.github.pemistahl.lingua.api.LanguageDetector;
import com.github.pemistahl.lingua.api.LanguageDetectorBuilder;
import dev.colloquy.config.LanguageSettings;
import dev.colloquy.engine.agent.LanguageDetection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@link LanguageDetection} by Lingua, restricted to the configured languages. The detector is built
 * on the first message, not at start-up, and Lingua loads a language's models only when a message
 * needs them: a node that never sees a message never holds them.
 */
public final class LinguaLanguageDetection implements LanguageDetection {

  private final IsoCode639_1[] languages;
  private final boolean highAccuracy;
  private volatile LanguageDetector detector;

  private LinguaLanguageDetection(IsoCode639_1[] languages, boolean highAccuracy) {
    this.languages = languages;
    this.highAccuracy = highAccuracy;
  }

  /**
   * The detection {@code settings} ask for, or none when they list no language. Fails at once, naming
   * the code, when Lingua does not know one of the languages.
   */
  public static LanguageDetection of(LanguageSettings settings) {
    if (!settings.enabled()) {
      return LanguageDetection.none();
    }
    List<IsoCode639_1> codes = settings.detect().stream().map(LinguaLanguageDetection::code).toList();
    return new LinguaLanguageDetection(codes.toArray(IsoCode639_1[]::new), settings.highAccuracy());
  }

  private static IsoCode639_1 code(String code) {
    try {
      return IsoCode639_1.valueOf(code.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("colloquy.agent.language.detect: Lingua cannot detect '" + code + "'", e);
    }
  }

  @Override
  public Optional<String> detect(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    Language language = detector().detectLanguageOf(text);
    return language == Language.UNKNOWN ? Optional.empty()
        : Optional.of(language.getIsoCode639_1().name().toLowerCase(Locale.ROOT));
  }

  private LanguageDetector detector() {
    LanguageDetector built = detector;
    if (built == null) {
      synchronized (this) {
        built = detector;
        if (built == null) {
          LanguageDetectorBuilder builder = LanguageDetectorBuilder.fromIsoCodes639_1(languages);
          detector = built = (highAccuracy ? builder : builder.withLowAccuracyMode()).build();
        }
      }
    }
    return built;
  }
}
