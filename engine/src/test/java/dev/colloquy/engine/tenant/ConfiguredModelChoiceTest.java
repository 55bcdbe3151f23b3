package dev.colloquy.engine.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelCatalog;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a turn runs when it names no model: its tenant's choice, else the server's. */
class ConfiguredModelChoiceTest {

  private static final ModelCatalog CATALOG = new ModelCatalog(List.of(
      new ModelCatalog.Entry("openai", "gpt-4o-mini", model("openai")),
      new ModelCatalog.Entry("openai", "gpt-4o", model("openai")),
      new ModelCatalog.Entry("gemini", "gemini-2.0-flash", model("gemini")),
      new ModelCatalog.Entry("offline", "offline", model("offline"))), "openai/gpt-4o-mini");

  private static final TenantConfig DEFAULTS =
      TenantConfig.defaults(ColloquySettings.defaults().limits(), 1800, CATALOG.defaultModel());

  private static ChatModel model(String provider) {
    return new ChatModel() {
      @Override
      public String provider() {
        return provider;
      }

      @Override
      public ChatStream stream(ChatRequest request, ChatListener listener) {
        throw new UnsupportedOperationException("never called here");
      }
    };
  }

  private static TenantConfig with(String defaultModel, List<String> fanOut) {
    return DEFAULTS.overlay(new TenantConfig(null, null, null, null, null, null, null, null, null, defaultModel, fanOut,
        null, null, null, null, null, null, null, null, null, null, null, null, null, null));
  }

  @Test
  void aTurnRunsTheTenantsDefaultModelElseTheServers() {
    assertThat(ConfiguredModelChoice.forTurn(with("gemini/gemini-2.0-flash", null), CATALOG))
        .containsExactly("gemini/gemini-2.0-flash");
    assertThat(ConfiguredModelChoice.forTurn(DEFAULTS, CATALOG)).containsExactly("openai/gpt-4o-mini");
    assertThat(ConfiguredModelChoice.forTurn(null, CATALOG)).as("the configuration did not answer")
        .containsExactly("openai/gpt-4o-mini");
  }

  @Test
  void aFanOutRunsTheTenantsSetElseEveryProvidersFirstModel() {
    assertThat(ConfiguredModelChoice.forFanOut(with(null, List.of("openai/gpt-4o", "offline")), CATALOG))
        .containsExactly("openai/gpt-4o", "offline");
    assertThat(ConfiguredModelChoice.forFanOut(DEFAULTS, CATALOG))
        .containsExactly("openai/gpt-4o-mini", "gemini/gemini-2.0-flash");
    assertThat(ConfiguredModelChoice.forFanOut(null, CATALOG))
        .containsExactly("openai/gpt-4o-mini", "gemini/gemini-2.0-flash");
  }
}
