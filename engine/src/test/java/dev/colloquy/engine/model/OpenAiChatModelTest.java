package dev.colloquy.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The OpenAI-compatible model against the mock server over real HTTP. */
class OpenAiChatModelTest {

  private static final MockLlmSettings BASE = MockLlmSettings.defaults().withTokens(8)
      .withDelays(Duration.ofMillis(10), Duration.ofMillis(5));
  private static MockLlmServer mock;

  @BeforeAll
  static void start() {
    mock = MockLlmServer.start(BASE, "127.0.0.1", 0);
  }

  @AfterAll
  static void stop() {
    mock.close();
  }

  @BeforeEach
  void reset() {
    mock.reconfigure(BASE);
  }

  private static OpenAiChatModel model(int maxRetries) {
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.parseString(
            "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = mock, max-retries = " + maxRetries
                + ", first-token-timeout = 5s }")
        .withFallback(ConfigFactory.defaultReference()).resolve());
    return new OpenAiChatModel(settings.llm(), Executors.newVirtualThreadPerTaskExecutor());
  }

  private static ChatRequest request(String model) {
    return new ChatRequest(model, List.of(ChatMessage.system("Be brief."), ChatMessage.user("Say hello")), List.of());
  }

  @Test
  void streamsTheTokensAndTheReportedUsage() throws Exception {
    RecordingListener listener = new RecordingListener();
    model(0).stream(request("mock"), listener);
    TokenUsage usage = listener.completed.get(10, TimeUnit.SECONDS);
    assertThat(listener.text()).isEqualTo(BASE.text(8));
    assertThat(usage.completionTokens()).isEqualTo(8);
    assertThat(usage.promptTokens()).isEqualTo(4);
  }

  @Test
  void aRateLimitBeforeTheFirstTokenIsRetried() throws Exception {
    mock.reconfigure(BASE.withFailFirstRequests(1));
    long before = mock.stats().requests();
    RecordingListener listener = new RecordingListener();
    model(2).stream(request("mock"), listener);
    listener.completed.get(10, TimeUnit.SECONDS);
    assertThat(listener.text()).isEqualTo(BASE.text(8));
    assertThat(mock.stats().requests() - before).isEqualTo(2);
  }

  @Test
  void aServerErrorFailsTheRunWithModelUnavailable() {
    mock.reconfigure(BASE.failing(FailureMode.HTTP_500, "mock"));
    RecordingListener listener = new RecordingListener();
    model(0).stream(request("mock"), listener);
    assertThatThrownBy(() -> listener.completed.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(ModelException.class)
        .extracting(e -> ((ModelException) e).code()).isEqualTo(ModelException.UNAVAILABLE);
  }

  @Test
  void aStreamThatBreaksOffMidwayIsNotRetried() {
    mock.reconfigure(BASE.failing(FailureMode.MID_STREAM_DISCONNECT, "mock").withFailAfterTokens(3));
    long before = mock.stats().requests();
    RecordingListener listener = new RecordingListener();
    model(2).stream(request("mock"), listener);
    assertThatThrownBy(() -> listener.completed.get(10, TimeUnit.SECONDS))
        .cause().isInstanceOf(ModelException.class)
        .extracting(e -> ((ModelException) e).code()).isEqualTo(ModelException.STREAM_BROKEN);
    assertThat(listener.tokens).hasSize(3);
    assertThat(mock.stats().requests() - before).isEqualTo(1);
  }

  @Test
  void cancellingClosesTheUpstreamConnectionWithinASecond() throws Exception {
    mock.reconfigure(BASE.withTokens(1000).withInterTokenDelay(Duration.ofMillis(50)));
    long cancelledBefore = mock.stats().streamsCancelled();
    RecordingListener listener = new RecordingListener();
    ChatStream stream = model(0).stream(request("mock"), listener);
    listener.firstToken.get(10, TimeUnit.SECONDS);
    stream.cancel();
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(1, TimeUnit.SECONDS);
    assertThat(listener.completed).isNotDone();
  }

  @Test
  void cancellingBeforeTheResponseArrivesStopsTheCall() throws Exception {
    mock.reconfigure(BASE.withTimeToFirstToken(Duration.ofSeconds(5)));
    long completedBefore = mock.stats().streamsCompleted();
    RecordingListener listener = new RecordingListener();
    long requestsBefore = mock.stats().requests();
    ChatStream stream = model(0).stream(request("mock"), listener);
    mock.stats().whenRequests(requestsBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    stream.cancel();
    assertThat(listener.firstToken.completeOnTimeout("none", 1, TimeUnit.SECONDS).get()).isEqualTo("none");
    assertThat(mock.stats().streamsCompleted()).isEqualTo(completedBefore);
  }
}
