package dev.colloquy.engine.agent.lingua;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.config.LanguageSettings;
import dev.colloquy.engine.agent.LanguageDetection;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lingua restricted to the configured languages: what it tells, what it cannot, and a language it does not know. */
class LinguaLanguageDetectionTest {

  private static final LanguageDetection DETECTION =
      LinguaLanguageDetection.of(new LanguageSettings(List.of("en", "fr", "de", "es", "hi"), false));

  @Test
  void tellsTheConfiguredLanguagesApart() {
    long started = System.nanoTime();
    assertThat(DETECTION.detect("Bonjour, je voudrais annuler ma commande s'il vous plaît.")).contains("fr");
    System.out.printf("First detection (models loaded) took %d ms%n", (System.nanoTime() - started) / 1_000_000);
    assertThat(DETECTION.detect("Where is my parcel? It should have arrived yesterday.")).contains("en");
    assertThat(DETECTION.detect("Wo ist mein Paket? Es hätte gestern ankommen sollen.")).contains("de");
    assertThat(DETECTION.detect("¿Dónde está mi paquete? Debería haber llegado ayer.")).contains("es");
    assertThat(DETECTION.detect("मेरा पार्सल कहाँ है? यह कल आ जाना चाहिए था।")).contains("hi");
  }

  @Test
  void saysNothingOfAMessageWithoutWords() {
    assertThat(DETECTION.detect("  ")).isEmpty();
    assertThat(DETECTION.detect("12345 !!!")).isEmpty();
  }

  @Test
  void noLanguagesMeansNoDetection() {
    assertThat(LinguaLanguageDetection.of(LanguageSettings.OFF).detect("Bonjour tout le monde")).isEmpty();
  }

  @Test
  void aLanguageLinguaDoesNotKnowStopsTheStartNamingIt() {
    assertThatThrownBy(() -> LinguaLanguageDetection.of(new LanguageSettings(List.of("en", "xx"), false)))
        .hasMessageContaining("colloquy.agent.language.detect").hasMessageContaining("'xx'");
  }
}
