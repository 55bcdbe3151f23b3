package dev.colloquy.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a turn's model names reach a provider's model. */
class ModelCatalogTest {

  private static final ChatModel FIRST = named("openai-compatible");
  private static final ChatModel OPENAI = named("openai");
  private static final ChatModel VLLM = named("vllm");
  private static final ChatModel OFFLINE = named("offline");

  private static final ModelCatalog CATALOG = new ModelCatalog(List.of(
      new ModelCatalog.Entry("openai-compatible", "mock", FIRST),
      new ModelCatalog.Entry("openai", "gpt-4o-mini", OPENAI),
      new ModelCatalog.Entry("openai", "mock", OPENAI),
      new ModelCatalog.Entry("vllm", "meta-llama/Llama-3.1-8B-Instruct", VLLM),
      new ModelCatalog.Entry("vllm", "openai/gpt-oss-20b", VLLM),
      new ModelCatalog.Entry("offline", "offline", OFFLINE)), "mock");

  private static ChatModel named(String provider) {
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

  @Test
  void providerSlashModelNamesThatProvidersModel() {
    assertThat(CATALOG.resolve("openai/mock").orElseThrow().chat()).isSameAs(OPENAI);
    assertThat(CATALOG.resolve("openai-compatible/mock").orElseThrow().chat()).isSameAs(FIRST);
    assertThat(CATALOG.resolve("vllm/meta-llama/Llama-3.1-8B-Instruct").orElseThrow().model())
        .isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
  }

  @Test
  void aPlainNameIsTheFirstProvidersThatServesIt() {
    assertThat(CATALOG.resolve("mock").orElseThrow().provider()).isEqualTo("openai-compatible");
    assertThat(CATALOG.resolve("gpt-4o-mini").orElseThrow().provider()).isEqualTo("openai");
    assertThat(CATALOG.resolve("meta-llama/Llama-3.1-8B-Instruct").orElseThrow().provider()).isEqualTo("vllm");
  }

  @Test
  void aModelWhoseOwnNameBeginsWithAProvidersNameIsStillFoundByIt() {
    ModelCatalog.Entry entry = CATALOG.resolve("openai/gpt-oss-20b").orElseThrow();
    assertThat(entry.provider()).isEqualTo("vllm");
    assertThat(entry.model()).isEqualTo("openai/gpt-oss-20b");
  }

  @Test
  void unknownModelsAndProvidersResolveToNothing() {
    assertThat(CATALOG.resolve("gpt-5")).isEmpty();
    assertThat(CATALOG.resolve("gemini/mock")).isEmpty();
    assertThat(CATALOG.resolve("openai/llama")).isEmpty();
    assertThat(CATALOG.resolve("")).isEmpty();
    assertThat(CATALOG.resolve(null)).isEmpty();
    assertThatThrownBy(() -> new ModelCatalog(CATALOG.entries(), "gpt-5"))
        .hasMessageContaining("gpt-5").hasMessageContaining("openai/gpt-4o-mini");
  }

  @Test
  void aRunJournaledWithoutItsProviderFindsItsModelByThePlainName() {
    assertThat(CATALOG.find(null, "mock").orElseThrow().provider()).isEqualTo("openai-compatible");
    assertThat(CATALOG.find("openai", "mock").orElseThrow().chat()).isSameAs(OPENAI);
  }

  @Test
  void aFanOutWithoutATenantsChoiceTakesEveryProvidersFirstModelButNotTheOfflineResponder() {
    assertThat(CATALOG.oneModelPerProvider("offline"))
        .containsExactly("openai-compatible/mock", "openai/gpt-4o-mini", "vllm/meta-llama/Llama-3.1-8B-Instruct");
    ModelCatalog offlineOnly = new ModelCatalog(List.of(new ModelCatalog.Entry("offline", "offline", OFFLINE)), "offline");
    assertThat(offlineOnly.oneModelPerProvider("offline")).containsExactly("offline");
  }

  @Test
  void everyNameThatResolvesIsListed() {
    assertThat(CATALOG.names()).contains("mock", "openai/mock", "openai-compatible/mock", "gpt-4o-mini", "offline")
        .allMatch(CATALOG::contains);
  }
}
