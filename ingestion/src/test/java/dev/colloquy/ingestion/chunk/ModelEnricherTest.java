package dev.colloquy.ingestion.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.config.ProviderSettings;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Against the mock model server over real HTTP, through the engine's OpenAI-compatible chat model. */
class ModelEnricherTest {

  private static final String HEADING = "Gift cards";
  private static final String CHUNK = "Gift cards never expire and cannot be exchanged for cash. Lost cards are replaced once.";
  private static final String ANSWER = """
      {"summary": "Gift cards do not expire and are not exchangeable for cash.", \
      "questions": ["Do gift cards expire?", "Can I swap a gift card for cash?", "What if I lose my gift card?"]}""";

  private static MockLlmServer mock;
  private static ExecutorService executor;
  private static OpenAiChatModel chat;

  @BeforeAll
  static void start() {
    mock = MockLlmServer.start(fast());
    executor = Executors.newVirtualThreadPerTaskExecutor();
    chat = new OpenAiChatModel(new ProviderSettings("mock", mock.baseUrl(), Optional.empty(), List.of("enricher"),
        Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(10), 0, Map.of(), false, 16), executor);
  }

  @AfterAll
  static void stop() {
    mock.close();
    executor.shutdownNow();
  }

  @Test
  void theModelsJsonBecomesTheSummaryAndQuestionsNamedForTheModel() {
    mock.reconfigure(fast().withTokens(1).withTokenText(ANSWER));

    Enrichment enrichment = enricher(Duration.ofSeconds(10)).enrich(HEADING, CHUNK);

    assertThat(enrichment.summary()).isEqualTo("Gift cards do not expire and are not exchangeable for cash.");
    assertThat(enrichment.questions())
        .containsExactly("Do gift cards expire?", "Can I swap a gift card for cash?", "What if I lose my gift card?");
    assertThat(enrichment.generator()).isEqualTo("model:enricher");
  }

  @Test
  void anAnswerFencedAsACodeBlockStillParses() {
    mock.reconfigure(fast().withTokens(1).withTokenText("```json\n" + ANSWER + "\n```\n"));

    Enrichment enrichment = enricher(Duration.ofSeconds(10)).enrich(HEADING, CHUNK);

    assertThat(enrichment.generator()).isEqualTo("model:enricher");
    assertThat(enrichment.questions()).hasSize(3).first().isEqualTo("Do gift cards expire?");
  }

  @Test
  void unparsableOutputFallsBackToTheOfflineEnrichment() {
    Enrichment offline = new OfflineEnricher().enrich(HEADING, CHUNK);

    mock.reconfigure(fast().withTokens(12));
    assertThat(enricher(Duration.ofSeconds(10)).enrich(HEADING, CHUNK)).isEqualTo(offline);

    mock.reconfigure(fast().withTokens(1).withTokenText("{\"summary\": \"Gift cards.\", \"questions\": [\"Do they expire?\"]}"));
    assertThat(enricher(Duration.ofSeconds(10)).enrich(HEADING, CHUNK)).isEqualTo(offline);

    mock.reconfigure(fast().withTokens(1).withTokenText("[\"Do gift cards expire?\", \"Can I get cash?\", \"Lost card?\"]"));
    assertThat(enricher(Duration.ofSeconds(10)).enrich(HEADING, CHUNK)).isEqualTo(offline);

    mock.reconfigure(fast().withTokens(1).withTokenText(ANSWER + " Hope this helps!"));
    assertThat(enricher(Duration.ofSeconds(10)).enrich(HEADING, CHUNK)).isEqualTo(offline);
    assertThat(offline.generator()).isEqualTo(OfflineEnricher.NAME);
  }

  @Test
  void aFailingOrSlowModelFallsBackToTheOfflineEnrichment() {
    Enrichment offline = new OfflineEnricher().enrich(HEADING, CHUNK);

    mock.reconfigure(fast().failing(FailureMode.HTTP_500, "enricher"));
    assertThat(enricher(Duration.ofSeconds(10)).enrich(HEADING, CHUNK)).isEqualTo(offline);

    mock.reconfigure(fast().withTokens(1).withTokenText(ANSWER).withTimeToFirstToken(Duration.ofSeconds(3)));
    long started = System.nanoTime();
    assertThat(enricher(Duration.ofMillis(300)).enrich(HEADING, CHUNK)).isEqualTo(offline);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(2_500));
  }

  @Test
  void thePromptAsksForTheStrictFormatAndCarriesTheChunk() {
    String prompt = ModelEnricher.PROMPT.formatted(HEADING, CHUNK);

    assertThat(prompt).contains("exactly 3 questions").contains("{\"summary\": \"...\", \"questions\": [")
        .contains("Section: Gift cards").endsWith(CHUNK);
  }

  private static ModelEnricher enricher(Duration timeout) {
    return new ModelEnricher(chat, "enricher", timeout);
  }

  private static MockLlmSettings fast() {
    return MockLlmSettings.defaults().withDelays(Duration.ZERO, Duration.ZERO);
  }
}
