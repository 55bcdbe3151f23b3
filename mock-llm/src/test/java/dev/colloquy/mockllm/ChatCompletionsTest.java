package dev.colloquy.mockllm;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.CompletionUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChatCompletionsTest {
  private static final MockLlmSettings SETTINGS =
      MockLlmSettings.defaults()
          .withTokens(5)
          .withDelays(Duration.ofMillis(5), Duration.ofMillis(2));

  private static MockLlmServer server;
  private static OpenAIClient client;

  @BeforeAll
  static void start() {
    server = MockLlmServer.start(SETTINGS);
    client = OpenAiClients.to(server, 0);
  }

  @AfterAll
  static void stop() {
    client.close();
    server.close();
  }

  @BeforeEach
  void reset() {
    server.reconfigure(SETTINGS);
  }

  @Test
  void streamsTokensThenFinishThenUsage() {
    long completedBefore = server.stats().streamsCompleted();
    Streamed streamed = stream(params().streamOptions(withUsage()).build());

    assertThat(streamed.text()).isEqualTo("tok0 tok1 tok2 tok3 tok4 ");
    assertThat(streamed.finishReasons()).containsExactly("stop");
    assertThat(streamed.usage())
        .hasValueSatisfying(
            usage -> {
              assertThat(usage.promptTokens()).isEqualTo(7);
              assertThat(usage.completionTokens()).isEqualTo(5);
              assertThat(usage.totalTokens()).isEqualTo(12);
            });
    assertThat(server.stats().whenStreamsCompleted(completedBefore + 1))
        .succeedsWithin(Duration.ofSeconds(1));
  }

  @Test
  void streamsWithoutUsageUnlessAsked() {
    Streamed streamed = stream(params().build());

    assertThat(streamed.text()).isEqualTo(SETTINGS.text(5));
    assertThat(streamed.usage()).isEmpty();
  }

  @Test
  void answersWholeWithoutStreaming() {
    long tokensBefore = server.stats().tokensSent();
    ChatCompletion completion =
        client.chat().completions().create(params().metadata(noDelays()).build());

    assertThat(completion.choices())
        .singleElement()
        .satisfies(
            choice -> {
              assertThat(choice.message().content()).contains(SETTINGS.text(5));
              assertThat(choice.finishReason().asString()).isEqualTo("stop");
            });
    assertThat(completion.usage().map(CompletionUsage::completionTokens)).contains(5L);
    assertThat(server.stats().tokensSent()).isEqualTo(tokensBefore + 5);
  }

  @Test
  void maxTokensCutsTheAnswerShort() {
    Streamed streamed = stream(params().maxCompletionTokens(2).build());

    assertThat(streamed.text()).isEqualTo("tok0 tok1 ");
    assertThat(streamed.finishReasons()).containsExactly("length");
  }

  @Test
  void headersOverrideTheScriptPerRequest() {
    Streamed streamed =
        stream(
            params()
                .putAdditionalHeader("X-Mock-Tokens", "2")
                .putAdditionalHeader("X-Mock-Delay-Ms", "0")
                .build());

    assertThat(streamed.text()).isEqualTo("tok0 tok1 ");
  }

  @Test
  void hostileTokenTextSurvivesTheFraming() {
    String hostile = "a\r\nb\n\ndata: [DONE]\n\n\"{i}\"\u2028";
    server.reconfigure(SETTINGS.withTokenText(hostile));

    assertThat(stream(params().build()).text()).isEqualTo(SETTINGS.withTokenText(hostile).text(5));
  }

  private static ChatCompletionCreateParams.Builder params() {
    return ChatCompletionCreateParams.builder()
        .model("mock-chat")
        .addSystemMessage("Be brief.")
        .addUserMessage("Say hello, to the mock!");
  }

  private static ChatCompletionCreateParams.Metadata noDelays() {
    return ChatCompletionCreateParams.Metadata.builder()
        .putAdditionalProperty("mock_ttft_ms", JsonValue.from("0"))
        .putAdditionalProperty("mock_delay_ms", JsonValue.from("0"))
        .build();
  }

  private static ChatCompletionStreamOptions withUsage() {
    return ChatCompletionStreamOptions.builder().includeUsage(true).build();
  }

  private static Streamed stream(ChatCompletionCreateParams params) {
    try (StreamResponse<ChatCompletionChunk> response =
        client.chat().completions().createStreaming(params)) {
      return Streamed.of(response.stream().toList());
    }
  }

  private record Streamed(
      String text, List<String> finishReasons, Optional<CompletionUsage> usage) {
    static Streamed of(List<ChatCompletionChunk> chunks) {
      StringBuilder text = new StringBuilder();
      List<String> finishReasons = new ArrayList<>();
      Optional<CompletionUsage> usage = Optional.empty();
      for (ChatCompletionChunk chunk : chunks) {
        for (ChatCompletionChunk.Choice choice : chunk.choices()) {
          choice.delta().content().ifPresent(text::append);
          choice.finishReason().ifPresent(reason -> finishReasons.add(reason.asString()));
        }
        if (chunk.usage().isPresent()) {
          usage = chunk.usage();
        }
      }
      return new Streamed(text.toString(), finishReasons, usage);
    }
  }
}
