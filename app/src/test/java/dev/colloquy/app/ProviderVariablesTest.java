package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.config.ProviderSettings;
import dev.colloquy.config.SettingsException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Providers set by COLLOQUY_PROVIDER_* variables become the same settings as HOCON blocks. */
class ProviderVariablesTest {

  private static LlmSettings llm(Map<String, String> environment) {
    return ColloquySettings.create(ProviderVariables.from(environment)
        .withFallback(ConfigFactory.defaultReference()).resolve()).llm();
  }

  @Test
  void eachProvidersVariablesMakeItsBlock() {
    LlmSettings llm = llm(Map.of(
        "COLLOQUY_PROVIDER_OPENAI_API_KEY", "sk-from-env",
        "COLLOQUY_PROVIDER_OPENAI_MODELS", "gpt-4o-mini, gpt-4o",
        "COLLOQUY_PROVIDER_OPENAI_PRICES", "gpt-4o-mini=0.15/0.6, gpt-4o=2.5/10",
        "COLLOQUY_PROVIDER_MY_VLLM_BASE_URL", "http://gpu:8000/v1",
        "COLLOQUY_PROVIDER_MY_VLLM_MODELS", "meta-llama/Llama-3.1-8B-Instruct",
        "COLLOQUY_PROVIDER_MY_VLLM_FIRST_TOKEN_TIMEOUT", "90s",
        "COLLOQUY_PROVIDER_MY_VLLM_HTTP2_PRIOR_KNOWLEDGE", "true",
        "COLLOQUY_PROVIDER_MY_VLLM_MAX_IDLE_CONNECTIONS", "32",
        "COLLOQUY_PROVIDER_GEMINI_MODELS", "",
        "PATH", "/usr/bin"));

    assertThat(llm.providers()).extracting(ProviderSettings::name).containsExactly("my-vllm", "openai");
    ProviderSettings openai = llm.provider("openai").orElseThrow();
    assertThat(openai.baseUrl()).isEqualTo("https://api.openai.com/v1");
    assertThat(openai.apiKey()).contains("sk-from-env");
    assertThat(openai.models()).containsExactly("gpt-4o-mini", "gpt-4o");
    assertThat(llm.priceOf("openai", "gpt-4o").cost(1_000_000, 1_000_000)).isEqualTo(12.5);
    ProviderSettings vllm = llm.provider("my-vllm").orElseThrow();
    assertThat(vllm.models()).containsExactly("meta-llama/Llama-3.1-8B-Instruct");
    assertThat(vllm.firstTokenTimeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(vllm.http2PriorKnowledge()).isTrue();
    assertThat(vllm.maxIdleConnections()).isEqualTo(32);
    assertThat(openai.http2PriorKnowledge()).isFalse();
    assertThat(llm.defaultModel()).isEqualTo("my-vllm/meta-llama/Llama-3.1-8B-Instruct");
  }

  @Test
  void aMisspeltOrMalformedVariableStopsTheStartNamingIt() {
    assertThatThrownBy(() -> ProviderVariables.from(Map.of("COLLOQUY_PROVIDER_OPENAI_APIKEY", "sk")))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("COLLOQUY_PROVIDER_OPENAI_APIKEY").hasMessageContaining("API_KEY");
    assertThatThrownBy(() -> ProviderVariables.from(Map.of("COLLOQUY_PROVIDER_OPENAI_PRICES", "gpt-4o-mini=0.15")))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("COLLOQUY_PROVIDER_OPENAI_PRICES").hasMessageContaining("model=input/output");
    assertThatThrownBy(() -> llm(Map.of("COLLOQUY_PROVIDER_OPENAI_PRICES", "gpt-4o-mini=cheap/0.6",
        "COLLOQUY_PROVIDER_OPENAI_MODELS", "gpt-4o-mini")))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("(env COLLOQUY_PROVIDER_OPENAI_PRICES)");
    assertThatThrownBy(() -> llm(Map.of("COLLOQUY_PROVIDER_TOGETHER_MODELS", "m")))
        .hasMessageContaining("(env COLLOQUY_PROVIDER_TOGETHER_BASE_URL)");
  }
}
