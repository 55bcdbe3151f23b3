package dev.colloquy.mockllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.InternalServerException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FailureModesTest {
  private static final String BROKEN = "broken-model";
  private static final MockLlmSettings SETTINGS =
      MockLlmSettings.defaults()
          .withTokens(6)
          .withDelays(Duration.ofMillis(5), Duration.ofMillis(2))
          .withFailAfterTokens(3);

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
  void failingModelAnswers500BeforeAnyToken() {
    server.reconfigure(SETTINGS.failing(FailureMode.HTTP_500, BROKEN));

    assertThatThrownBy(() -> client.chat().completions().create(params(BROKEN)))
        .isInstanceOfSatisfying(
            InternalServerException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(500);
              assertThat(e.code()).contains("mock_failure");
            });
    assertThat(client.chat().completions().create(params("healthy-model")).choices()).hasSize(1);
  }

  @Test
  void failingModelAnswers429BeforeAnyToken() {
    server.reconfigure(SETTINGS.failing(FailureMode.HTTP_429, BROKEN));

    assertThatThrownBy(() -> drain(params(BROKEN))).isInstanceOf(RateLimitException.class);
  }

  @Test
  void firstRequestsAreRateLimitedAndTheClientRetries() {
    server.reconfigure(SETTINGS.withFailFirstRequests(2));
    long requestsBefore = server.stats().requests();

    OpenAIClient retrying = OpenAiClients.to(server, 2);
    try {
      assertThat(retrying.chat().completions().create(params("mock-chat")).choices()).hasSize(1);
    } finally {
      retrying.close();
    }
    assertThat(server.stats().requests()).isEqualTo(requestsBefore + 3);
  }

  @Test
  void midStreamFailureSurfacesAsSseExceptionAfterTheTokens() {
    server.reconfigure(SETTINGS.failing(FailureMode.MID_STREAM, BROKEN));
    List<String> received = new ArrayList<>();

    assertThatThrownBy(() -> drain(params(BROKEN), received))
        .isInstanceOfSatisfying(
            SseException.class, e -> assertThat(e.code()).contains("mock_failure"));
    assertThat(received).containsExactly("tok0 ", "tok1 ", "tok2 ");
  }

  @Test
  void midStreamDisconnectSurfacesAsIoExceptionAfterTheTokens() {
    server.reconfigure(SETTINGS.failing(FailureMode.MID_STREAM_DISCONNECT, BROKEN));
    List<String> received = new ArrayList<>();

    assertThatThrownBy(() -> drain(params(BROKEN), received)).isInstanceOf(OpenAIIoException.class);
    assertThat(received).containsExactly("tok0 ", "tok1 ", "tok2 ");
  }

  @Test
  void clientClosingTheStreamIsSeenAsCancelledWithinASecond() {
    long cancelledBefore = server.stats().streamsCancelled();
    long completedBefore = server.stats().streamsCompleted();
    ChatCompletionCreateParams endless =
        params("mock-chat").toBuilder()
            .putAdditionalHeader("X-Mock-Tokens", "100000")
            .putAdditionalHeader("X-Mock-Delay-Ms", "20")
            .build();

    try (StreamResponse<ChatCompletionChunk> response =
        client.chat().completions().createStreaming(endless)) {
      Iterator<ChatCompletionChunk> chunks = response.stream().iterator();
      chunks.next();
      chunks.next();
    }

    assertThat(server.stats().whenStreamsCancelled(cancelledBefore + 1))
        .succeedsWithin(Duration.ofSeconds(1));
    assertThat(server.stats().streamsCompleted()).isEqualTo(completedBefore);
  }

  private static ChatCompletionCreateParams params(String model) {
    return ChatCompletionCreateParams.builder().model(model).addUserMessage("Hello").build();
  }

  private static void drain(ChatCompletionCreateParams params) {
    drain(params, new ArrayList<>());
  }

  private static void drain(ChatCompletionCreateParams params, List<String> received) {
    try (StreamResponse<ChatCompletionChunk> response =
        client.chat().completions().createStreaming(params)) {
      response.stream()
          .flatMap(chunk -> chunk.choices().stream())
          .forEach(choice -> choice.delta().content().ifPresent(received::add));
    }
  }
}
