package dev.colloquy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ColloquySettingsTest {

  private static ColloquySettings load(String overrides) {
    return ColloquySettings.create(
        ConfigFactory.parseString(overrides).withFallback(ConfigFactory.defaultReference()).resolve());
  }

  @Test
  void theDefaultsAreTheDocumentedOnes() {
    ColloquySettings settings = load("");
    assertThat(settings.http().port()).isEqualTo(8080);
    assertThat(settings.http().maxMessageBytes()).isEqualTo(32 * 1024);
    assertThat(settings.http().keepAlive()).isEqualTo(Duration.ofSeconds(15));
    assertThat(settings.storage().dataDir().getFileName()).hasToString("data");
    assertThat(settings.storage().externalDb()).isEmpty();
    assertThat(settings.llm().configured()).isFalse();
    assertThat(settings.llm().providers()).isEmpty();
    assertThat(settings.llm().defaultModel()).isEqualTo("offline");
    assertThat(settings.session().idleTimeout()).isEqualTo(Duration.ofMinutes(30));
    assertThat(settings.session().passivationTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(settings.session().disconnectGrace()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.session().busyPolicy()).isEqualTo(BusyPolicy.REJECT);
    assertThat(settings.env()).isEqualTo(Environment.DEVELOPMENT);
    assertThat(settings.shutdown().drainTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void turnsStartingAdaptBetweenTheirBoundsAndAMaximumBelowTheFloorIsAFixedBound() {
    AdmissionSettings defaults = load("").admission();
    assertThat(defaults.minStarting()).isEqualTo(256);
    assertThat(defaults.maxStarting()).isEqualTo(4096);
    assertThat(load("colloquy.session.checkpoint.max-writing = 8").session().checkpoint().maxWriting()).isEqualTo(8);

    AdmissionSettings fixed = load("colloquy.admission.max-starting = 10").admission();

    assertThat(fixed.minStarting()).isEqualTo(10);
    assertThat(fixed.maxStarting()).isEqualTo(10);
    assertThatThrownBy(() -> load("colloquy.admission.min-starting = 0"))
        .isInstanceOf(SettingsException.class).hasMessageContaining("colloquy.admission.min-starting");
    assertThatThrownBy(() -> load("colloquy.session.checkpoint.max-writing = 0"))
        .isInstanceOf(SettingsException.class).hasMessageContaining("colloquy.session.checkpoint.max-writing");
  }

  @Test
  void webSearchIsOffUntilAUrlIsSetAndItsKeyIsNeverPrinted() {
    assertThat(load("").agent().tools().webSearch().enabled()).isFalse();
    assertThat(load("").agent().tools().dataLookup().timeout()).isEqualTo(Duration.ofSeconds(5));

    AgentSettings agent = load("""
        colloquy.agent.tools.web-search.url = "https://api.tavily.com/search"
        colloquy.agent.tools.web-search.api-key = "tvly-secret-123"
        """).agent();
    AgentSettings.WebSearch search = agent.tools().webSearch();
    assertThat(search.enabled()).isTrue();
    assertThat(search.apiKey()).isEqualTo("tvly-secret-123");
    assertThat(search.toString()).doesNotContain("tvly-secret-123");
    assertThat(agent.toString()).as("the settings as a start-up log would print them").doesNotContain("tvly-secret-123");

    assertThatThrownBy(() -> load("colloquy.agent.tools.web-search.url = \"api.tavily.com/search\""))
        .hasMessageContaining("colloquy.agent.tools.web-search.url (env COLLOQUY_WEB_SEARCH_URL)");
    assertThatThrownBy(() -> load("colloquy.agent.tools.data-lookup.max-response-size = 1GiB"))
        .hasMessageContaining("must be at most 16 MiB");
  }

  @Test
  void theEndpointOfTheLlmVariablesIsTheFirstProvider() {
    ColloquySettings settings = load("""
        colloquy.llm { base-url = "http://localhost:11434/v1", model = llama3, extra-models = [qwen] }
        colloquy.llm.prices { llama3 { input-per-million = 1.0, output-per-million = 2.0 } }
        colloquy.session.busy-policy = ENQUEUE
        colloquy.storage.db { url = "jdbc:postgresql://db:5432/colloquy", user = u, password = s3cret }
        """);
    ProviderSettings endpoint = settings.llm().providers().getFirst();
    assertThat(settings.llm().providers()).hasSize(1);
    assertThat(endpoint.name()).isEqualTo("openai-compatible");
    assertThat(endpoint.models()).containsExactly("llama3", "qwen");
    assertThat(settings.llm().defaultModel()).isEqualTo("llama3");
    assertThat(settings.llm().priceOf("openai-compatible", "llama3").cost(1_000_000, 500_000)).isEqualTo(2.0);
    assertThat(settings.llm().priceOf("openai-compatible", "qwen").cost(1_000_000, 1_000_000)).isZero();
    assertThat(settings.llm().priceOf("offline", "offline").cost(1_000_000, 1_000_000)).isZero();
    assertThat(settings.session().busyPolicy()).isEqualTo(BusyPolicy.ENQUEUE);
    assertThat(settings.storage().externalDb()).isPresent();
    assertThat(settings.storage().externalDb().get().toString()).doesNotContain("s3cret");
  }

  @Test
  void clusterTlsIsOffByDefaultAndWhenOnNeedsAKeyStoreAndItsPassword() {
    assertThat(load("").cluster().tls().enabled()).isFalse();
    assertThatThrownBy(() -> load("colloquy.cluster.tls.enabled = true"))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.tls.key-store").hasMessageContaining("must name a key store file");
    assertThatThrownBy(() -> load("colloquy.cluster.tls { enabled = true, key-store = /nonexistent/node.p12 }"))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.tls.key-store").hasMessageContaining("cannot read the file");
  }

  @Test
  void managementTlsIsOffByDefaultAndTakesEveryStoreItLeavesEmptyFromTheClusterTls() {
    assertThat(load("").cluster().management().tls().enabled()).isFalse();
    assertThatThrownBy(() -> load("colloquy.cluster.management.tls.enabled = true"))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.management.tls.key-store")
        .hasMessageContaining("COLLOQUY_MANAGEMENT_TLS_KEY_STORE").hasMessageContaining("must name a key store file");
    assertThatThrownBy(() -> load("""
        colloquy.cluster.tls.key-store = /nonexistent/node.p12
        colloquy.cluster.management.tls.enabled = true
        """))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.tls.key-store").hasMessageContaining("cannot read the file /nonexistent/node.p12");
    assertThatThrownBy(() -> load("""
        colloquy.cluster.tls.key-store = /nonexistent/node.p12
        colloquy.cluster.management.tls { enabled = true, key-store = /nonexistent/management.p12 }
        """))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.management.tls.key-store")
        .hasMessageContaining("cannot read the file /nonexistent/management.p12");
  }

  @Test
  void extraModelsComeAsAListOrAsTheCommaSeparatedStringOfTheirVariable() {
    ColloquySettings settings = load("""
        colloquy.llm { base-url = "http://localhost:11434/v1", model = llama3, extra-models = "qwen, mistral,,", provider = ollama }
        """);
    assertThat(settings.llm().providers().getFirst().name()).isEqualTo("ollama");
    assertThat(settings.llm().providers().getFirst().models()).containsExactly("llama3", "qwen", "mistral");
  }

  @Test
  void namedProvidersFollowTheEndpointInTheOrderOfTheirNamesEachWithItsOwnPricesAndTimeouts() {
    ColloquySettings settings = load("""
        colloquy.llm { base-url = "http://127.0.0.1:9001/v1", model = mock, first-token-timeout = 20s }
        colloquy.llm.providers {
          vllm { base-url = "http://gpu:8000/v1", models = ["meta-llama/Llama-3.1-8B-Instruct"], first-token-timeout = 90s }
          gemini { api-key = g-secret, models = "gemini-2.0-flash,gemini-2.5-pro",
                   prices { "gemini-2.0-flash" { input-per-million = 0.1, output-per-million = 0.4 } } }
          openai { api-key = sk-secret, models = [gpt-4o-mini] }
        }
        """);
    LlmSettings llm = settings.llm();
    assertThat(llm.providers()).extracting(ProviderSettings::name)
        .containsExactly("openai-compatible", "gemini", "openai", "vllm");
    ProviderSettings gemini = llm.provider("gemini").orElseThrow();
    assertThat(gemini.baseUrl()).isEqualTo("https://generativelanguage.googleapis.com/v1beta/openai/");
    assertThat(gemini.models()).containsExactly("gemini-2.0-flash", "gemini-2.5-pro");
    assertThat(llm.provider("openai").orElseThrow().baseUrl()).isEqualTo("https://api.openai.com/v1");
    assertThat(llm.priceOf("gemini", "gemini-2.0-flash").cost(1_000_000, 1_000_000)).isEqualTo(0.5);
    assertThat(llm.priceOf("openai-compatible", "gemini-2.0-flash").cost(1_000_000, 1_000_000)).isZero();
    assertThat(llm.firstTokenTimeout("vllm")).isEqualTo(Duration.ofSeconds(90));
    assertThat(llm.firstTokenTimeout("gemini")).isEqualTo(Duration.ofSeconds(20));
    assertThat(llm.firstTokenTimeout("offline")).isEqualTo(Duration.ofSeconds(20));
    assertThat(llm.defaultModel()).isEqualTo("mock");
    assertThat(llm.toString()).doesNotContain("g-secret", "sk-secret");
  }

  @Test
  void eachProviderConnectsItsOwnWayElseAsTheLlmBlockSays() {
    LlmSettings llm = load("""
        colloquy.llm { base-url = "http://127.0.0.1:9001/v1", model = mock, http2-prior-knowledge = true,
                       max-idle-connections = 64 }
        colloquy.llm.providers {
          local { base-url = "http://127.0.0.1:9002/v1", models = [m] }
          openai { models = [gpt-4o-mini], http2-prior-knowledge = false, max-idle-connections = 8 }
        }
        """).llm();
    ProviderSettings endpoint = llm.provider("openai-compatible").orElseThrow();
    assertThat(endpoint.http2PriorKnowledge()).isTrue();
    assertThat(endpoint.maxIdleConnections()).isEqualTo(64);
    ProviderSettings local = llm.provider("local").orElseThrow();
    assertThat(local.http2PriorKnowledge()).isTrue();
    assertThat(local.maxIdleConnections()).isEqualTo(64);
    ProviderSettings openai = llm.provider("openai").orElseThrow();
    assertThat(openai.http2PriorKnowledge()).isFalse();
    assertThat(openai.maxIdleConnections()).isEqualTo(8);
    ProviderSettings byDefault = load("colloquy.llm.providers.ollama.models = [llama3]").llm().providers().getFirst();
    assertThat(byDefault.http2PriorKnowledge()).isFalse();
    assertThat(byDefault.maxIdleConnections()).isEqualTo(256);
  }

  @Test
  void http2WithPriorKnowledgeIsRefusedForAnHttpsProviderNamingTheKeyThatAskedForIt() {
    assertThatThrownBy(() -> load("colloquy.llm.providers.openai { models = [m], http2-prior-knowledge = true }"))
        .hasMessageContaining("colloquy.llm.providers.openai.http2-prior-knowledge")
        .hasMessageContaining("COLLOQUY_PROVIDER_OPENAI_HTTP2_PRIOR_KNOWLEDGE")
        .hasMessageContaining("provider 'openai' is at https://api.openai.com/v1");
    assertThatThrownBy(() -> load("""
        colloquy.llm { base-url = "http://127.0.0.1:9001/v1", model = mock, http2-prior-knowledge = true }
        colloquy.llm.providers.openai.models = [m]
        """))
        .hasMessageContaining("colloquy.llm.http2-prior-knowledge (env COLLOQUY_LLM_HTTP2_PRIOR_KNOWLEDGE)")
        .hasMessageContaining("provider 'openai'");
    assertThatThrownBy(() -> load("colloquy.llm.providers.ollama { models = [m], max-idle-connections = -1 }"))
        .hasMessageContaining("colloquy.llm.providers.ollama.max-idle-connections");
  }

  @Test
  void withoutTheEndpointTheDefaultModelIsTheFirstProvidersFirstUnlessOneIsNamed() {
    assertThat(load("colloquy.llm.providers.openai.models = [gpt-4o-mini, gpt-4o]").llm().defaultModel())
        .isEqualTo("openai/gpt-4o-mini");
    assertThat(load("""
        colloquy.llm.providers.openai.models = [gpt-4o-mini, gpt-4o]
        colloquy.llm.default-model = "openai/gpt-4o"
        """).llm().defaultModel()).isEqualTo("openai/gpt-4o");
  }

  @Test
  void aBadProviderIsNamedWithItsVariable() {
    assertThatThrownBy(() -> load("colloquy.llm.providers.together.models = [m]"))
        .hasMessage("Invalid setting colloquy.llm.providers.together.base-url (env COLLOQUY_PROVIDER_TOGETHER_BASE_URL):"
            + " is required for a provider other than [gemini, ollama, openai, vllm]");
    assertThatThrownBy(() -> load("colloquy.llm.providers.my-vllm.base-url = \"http://gpu:8000/v1\""))
        .hasMessageStartingWith("Invalid setting colloquy.llm.providers.my-vllm.models (env COLLOQUY_PROVIDER_MY_VLLM_MODELS)");
    assertThatThrownBy(() -> load("colloquy.llm.providers.ollama { models = [m], base-url = \"localhost\" }"))
        .hasMessageContaining("COLLOQUY_PROVIDER_OLLAMA_BASE_URL").hasMessageContaining("http://");
    assertThatThrownBy(() -> load("colloquy.llm.providers.offline.models = [m]"))
        .hasMessageContaining("not 'offline'");
    assertThatThrownBy(() -> load("colloquy.llm.providers.Big_Name.models = [m]"))
        .hasMessageContaining("lower-case letters");
    assertThatThrownBy(() -> load("""
        colloquy.llm { base-url = "http://127.0.0.1:9001/v1", model = mock, provider = ollama }
        colloquy.llm.providers.ollama.models = [llama3]
        """)).hasMessageContaining("colloquy.llm.provider (env COLLOQUY_LLM_PROVIDER)");
    assertThatThrownBy(() -> load("colloquy.llm.providers.openai { models = [m], prices.m.input-per-million = -1, prices.m.output-per-million = 1 }"))
        .hasMessageContaining("COLLOQUY_PROVIDER_OPENAI_PRICES").hasMessageContaining("must not be negative");
  }

  @Test
  void secretsNeverAppearInToString() {
    ColloquySettings settings = load("""
        colloquy.llm { base-url = "https://api.example.com/v1", model = m, api-key = sk-very-secret }
        colloquy.admin.token = admin-secret
        """);
    assertThat(settings.toString()).doesNotContain("sk-very-secret").doesNotContain("admin-secret");
  }

  @Test
  void aBadValueNamesItsKeyAndEnvironmentVariable() {
    assertThatThrownBy(() -> load("colloquy.http.port = abc"))
        .isInstanceOf(SettingsException.class)
        .hasMessageStartingWith("Invalid setting colloquy.http.port (env COLLOQUY_HTTP_PORT): ");
    assertThatThrownBy(() -> load("colloquy.http.port = 70000"))
        .hasMessage("Invalid setting colloquy.http.port (env COLLOQUY_HTTP_PORT): must be between 0 and 65535, was 70000");
    assertThatThrownBy(() -> load("colloquy.session.idle-timeout = 0s"))
        .hasMessageContaining("colloquy.session.idle-timeout (env COLLOQUY_IDLE_TIMEOUT)");
    assertThatThrownBy(() -> load("colloquy.session.busy-policy = drop"))
        .hasMessageContaining("COLLOQUY_BUSY_POLICY").hasMessageContaining("[reject, enqueue]");
    assertThatThrownBy(() -> load("colloquy.env = staging"))
        .hasMessageContaining("colloquy.env (env COLLOQUY_ENV)");
    assertThatThrownBy(() -> load("colloquy.shutdown.drain-timeout = -1s"))
        .hasMessageContaining("colloquy.shutdown.drain-timeout (env COLLOQUY_DRAIN_TIMEOUT)");
  }

  @Test
  void anEndpointWithoutAModelOrWithABadUrlIsRefused() {
    assertThatThrownBy(() -> load("colloquy.llm.base-url = \"http://localhost:8090/v1\""))
        .hasMessage("Invalid setting colloquy.llm.model (env COLLOQUY_LLM_MODEL): is required when colloquy.llm.base-url is set");
    assertThatThrownBy(() -> load("colloquy.llm { base-url = \"localhost:8090\", model = m }"))
        .hasMessageContaining("COLLOQUY_LLM_BASE_URL").hasMessageContaining("http://");
    assertThatThrownBy(() -> load("colloquy.storage.db.url = \"mysql://x\""))
        .hasMessageContaining("COLLOQUY_DB_URL");
  }

  /**
   * SettingsReader names each key's variable in its error messages; reference.conf is what reads the
   * variables. Every {@code ${?COLLOQUY_…}} in reference.conf, set, must reach exactly the key the
   * map names for it, and the map must name no other.
   */
  @Test
  void theVariablesInErrorMessagesAreExactlyThoseReferenceConfReads() throws IOException {
    String text;
    try (InputStream in = ColloquySettings.class.getResourceAsStream("/reference.conf")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Map<String, Object> environment = new HashMap<>();
    Pattern.compile("\\$\\{\\?((?:COLLOQUY|APP)_[A-Z0-9_]+)}").matcher(text).results()
        .forEach(match -> environment.put(match.group(1), "from " + match.group(1)));
    Config resolved = ConfigFactory.parseMap(environment)
        .withFallback(ConfigFactory.parseString(text)).resolve();

    Map<String, String> read = new HashMap<>();
    resolved.withOnlyPath("colloquy").entrySet().forEach(entry -> {
      if (entry.getValue().unwrapped() instanceof String value && value.startsWith("from ")) {
        read.put(entry.getKey(), value.substring("from ".length()));
      }
    });

    assertThat(read).hasSize(environment.size());
    assertThat(SettingsReader.ENV_VARS).isEqualTo(read);
  }

  @Test
  void browserOriginsComeFromBothVariablesAndMayNameEverySubdomainOfAHost() {
    CorsSettings cors = load("""
        colloquy.cors.origins = "https://app.example.com"
        colloquy.cors.app-origins = "https://*.vercel.app, https://writing-room.example.org"
        """).cors();

    assertThat(cors.origins()).containsExactly("https://app.example.com", "https://*.vercel.app",
        "https://writing-room.example.org");
    assertThat(CorsSettings.allows("https://*.vercel.app", "https://my-branch-123.vercel.app")).isTrue();
    assertThat(CorsSettings.allows("https://*.vercel.app", "https://a.b.vercel.app")).isTrue();
    assertThat(CorsSettings.allows("https://*.vercel.app", "https://vercel.app")).isFalse();
    assertThat(CorsSettings.allows("https://*.vercel.app", "http://x.vercel.app")).isFalse();
    assertThat(CorsSettings.allows("https://*.vercel.app", "https://x.vercel.app.evil.com")).isFalse();
    assertThat(CorsSettings.allows("https://*.vercel.app", "https://evilvercel.app")).isFalse();
    assertThat(CorsSettings.allows("https://*.vercel.app", "https://x.vercel.app:8443")).isFalse();
    assertThat(CorsSettings.allows("https://app.example.com", "https://APP.example.com")).isTrue();
    assertThatThrownBy(() -> load("colloquy.cors.app-origins = \"*\""))
        .hasMessageContaining("colloquy.cors.app-origins (env APP_CORS_ORIGINS)");
    assertThatThrownBy(() -> load("colloquy.cors.origins = \"https://*\""))
        .hasMessageContaining("COLLOQUY_CORS_ORIGINS");
    assertThatThrownBy(() -> load("colloquy.cors.origins = \"https://a.*.example.com\""))
        .hasMessageContaining("COLLOQUY_CORS_ORIGINS");
  }

  @Test
  void theEdgeDialectsLimitsAreRead() {
    assertThat(load("").edge()).isEqualTo(new EdgeSettings(30, 256));
    assertThatThrownBy(() -> load("colloquy.edge.session-requests-per-minute = 0"))
        .hasMessageContaining("COLLOQUY_EDGE_SESSION_RATE_LIMIT");
  }

  @Test
  void theIngestionLimitsAndARerankerAreCheckedAtStartUp() {
    KnowledgeSettings.Ingestion limits = ColloquySettings.defaults().knowledge().ingestion();
    assertThat(limits).isEqualTo(new KnowledgeSettings.Ingestion(25L * 1024 * 1024, Duration.ofSeconds(60), 5_000,
        256L * 1024 * 1024, 20_000_000, 2, 256L * 1024 * 1024, 32, 4, Duration.ofMinutes(5)));
    assertThatThrownBy(() -> load("colloquy.knowledge.rerank.base-url = \"rerank.example.com\""))
        .hasMessageContaining("COLLOQUY_RERANK_BASE_URL").hasMessageContaining("http://");
  }
}
