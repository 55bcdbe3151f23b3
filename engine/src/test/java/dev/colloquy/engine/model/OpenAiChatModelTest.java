package dev.colloquy.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.model.openai.ChatCompletionBodyTest;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.model.openai.OpenAiParams;
import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenAI-compatible model against the mock server over real HTTP: the contract, then how each
 * failure of the endpoint reaches the listener as one {@link ModelException} with a stable code.
 */
class OpenAiChatModelTest extends ChatModelContract {

  /**
   * Tokens far enough apart that a stream cancelled at its first token still has more left than
   * OkHttp drains on close (100 ms) to keep a connection: the mock then sees the connection go.
   */
  private static final MockLlmSettings BASE = MockLlmSettings.defaults().withTokens(8)
      .withDelays(Duration.ofMillis(10), Duration.ofMillis(30));
  private static MockLlmServer mock;

  private long cancelledBefore;

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
    cancelledBefore = mock.stats().streamsCancelled();
  }

  @Override
  protected ChatModel model(Executor executor) {
    return model(executor, 0, "5s");
  }

  @Override
  protected String expectedAnswer() {
    return BASE.text(8);
  }

  @Override
  protected void upstreamSawTheCancel() throws Exception {
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private static OpenAiChatModel model(Executor executor, int maxRetries, String firstTokenTimeout) {
    return model(executor, maxRetries, firstTokenTimeout, false);
  }

  private static OpenAiChatModel model(Executor executor, int maxRetries, String firstTokenTimeout, boolean http2) {
    return model(mock, executor, maxRetries, firstTokenTimeout, http2);
  }

  private static OpenAiChatModel model(MockLlmServer mock, Executor executor, int maxRetries, String firstTokenTimeout,
      boolean http2) {
    return model(mock, executor, maxRetries, firstTokenTimeout, http2, "");
  }

  private static OpenAiChatModel model(MockLlmServer mock, Executor executor, int maxRetries, String firstTokenTimeout,
      boolean http2, String more) {
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.parseString(
            "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = mock, max-retries = " + maxRetries
                + ", first-token-timeout = " + firstTokenTimeout + ", http2-prior-knowledge = " + http2 + more + " }")
        .withFallback(ConfigFactory.defaultReference()).resolve());
    return new OpenAiChatModel(settings.llm(), executor);
  }

  private static ChatRequest request(String model) {
    return new ChatRequest(model, List.of(ChatMessage.system("Be brief."), ChatMessage.user("Say hello")), List.of(), 256);
  }

  /** Streams one request and returns the single error it ended with. */
  private ModelException failure(OpenAiChatModel model) throws Exception {
    RecordingListener listener = streamToTheEnd(model, request("mock"));
    assertThat(listener.endings()).isEqualTo(1);
    assertThat(listener.completed).isCompletedExceptionally();
    return listener.completed.handle((usage, error) -> (ModelException) error).get();
  }

  @Test
  void theUsageIsWhatTheEndpointReported() throws Exception {
    TokenUsage usage = streamToTheEnd(model(threads), request("mock")).completed.get();

    assertThat(usage.completionTokens()).isEqualTo(8);
    assertThat(usage.promptTokens()).isEqualTo(4);
  }

  /**
   * What no UTF-8 text can hold becomes U+FFFD, as a UTF-8 decoder gives it, and nothing else changes:
   * before, a byte that is not UTF-8 failed the whole run (Jackson refuses it), and a lone surrogate
   * went on into frames, journal and read tables, where UTF-8 has no way to hold it.
   */
  @Test
  void textNoUtf8CanHoldArrivesAsReplacementCharacters() throws Exception {
    String cue = "Say hello";
    mock.scriptRaw(cue, List.of(
        new byte[] {'a', (byte) 0xC3, '(', 'b', (byte) 0xE2, (byte) 0x82, 'c', (byte) 0xFF},
        "x\\ud800y\\udc00z".getBytes(StandardCharsets.US_ASCII),
        "\\ud83d\\ude00 \\r\\n\\u0000data: \\\"q\\\"".getBytes(StandardCharsets.US_ASCII),
        "caf\u00e9 \u4e2d".getBytes(StandardCharsets.UTF_8)));
    try {
      RecordingListener listener = streamToTheEnd(model(threads), request("mock"));

      assertThat(listener.completed).isCompleted();
      assertThat(listener.tokens).containsExactly(
          "a\uFFFD(b\uFFFDc\uFFFD", "x\uFFFDy\uFFFDz", "\ud83d\ude00 \r\n\u0000data: \"q\"", "caf\u00e9 \u4e2d");
    } finally {
      mock.forgetRaw(cue);
    }
  }

  /**
   * What reaches the endpoint, field by field, is what openai-java's chat service sent for the same
   * request (tools, earlier rounds, a structured answer, stream options), with the provider's key as
   * the bearer token.
   */
  @Test
  void theEndpointReceivesTheBodyOpenAiJavaSentAndTheKey() throws Exception {
    ChatRequest request = ChatCompletionBodyTest.everything();
    int before = mock.stats().chatRequests().size();

    RecordingListener listener = streamToTheEnd(model(mock, threads, 0, "5s", false, ", api-key = sk-test-123"), request);

    assertThat(listener.endings()).isEqualTo(1);
    List<JsonNode> received = mock.stats().chatRequests();
    assertThat(received).hasSizeGreaterThan(before);
    ChatCompletionBodyTest.assertSameFields("", received.getLast(),
        new ObjectMapper().readTree(OpenAiParams.streamedBody(request)));
    assertThat(mock.stats().lastAuthorization()).isEqualTo("Bearer sk-test-123");
  }

  /** Before, openai-java refused such a request itself; now the endpoint judges it, and its 400 is a rejection. */
  @Test
  void aRequestTheEndpointRefusesFailsTheRunWithModelRejected() throws Exception {
    long before = mock.stats().requests();
    RecordingListener listener = streamToTheEnd(model(threads, 2, "5s"), new ChatRequest("mock", List.of(), List.of(), 16));

    assertThat(listener.endings()).isEqualTo(1);
    assertThat(listener.completed.handle((usage, error) -> ((ModelException) error).code()).get())
        .isEqualTo(ModelException.REJECTED);
    assertThat(mock.stats().requests() - before).as("a 400 is not retried").isEqualTo(1);
  }

  @Test
  void aRateLimitBeforeTheFirstTokenIsRetried() throws Exception {
    mock.reconfigure(BASE.withFailFirstRequests(1));
    long before = mock.stats().requests();

    RecordingListener listener = streamToTheEnd(model(threads, 2, "5s"), request("mock"));

    assertThat(listener.text()).isEqualTo(BASE.text(8));
    assertThat(mock.stats().requests() - before).isEqualTo(2);
  }

  @Test
  void aServerErrorFailsTheRunWithModelUnavailable() throws Exception {
    mock.reconfigure(BASE.failing(FailureMode.HTTP_500, "mock"));

    assertThat(failure(model(threads, 0, "5s")).code()).isEqualTo(ModelException.UNAVAILABLE);
  }

  @Test
  void aRateLimitThatOutlastsTheRetriesFailsTheRunWithModelRateLimited() throws Exception {
    mock.reconfigure(BASE.failing(FailureMode.HTTP_429, "mock"));

    assertThat(failure(model(threads, 1, "5s")).code()).isEqualTo(ModelException.RATE_LIMITED);
  }

  @Test
  void anErrorEventInTheStreamFailsTheRunWithStreamBroken() throws Exception {
    mock.reconfigure(BASE.failing(FailureMode.MID_STREAM, "mock").withFailAfterTokens(3));

    assertThat(failure(model(threads, 0, "5s")).code()).isEqualTo(ModelException.STREAM_BROKEN);
  }

  @Test
  void noFirstTokenInTimeFailsTheRunWithModelTimeout() throws Exception {
    mock.reconfigure(BASE.withTimeToFirstToken(Duration.ofSeconds(5)));

    assertThat(failure(model(threads, 0, "300ms")).code()).isEqualTo(ModelException.TIMEOUT);
  }

  @Test
  void anEndpointThatFallsSilentMidStreamFailsTheRunWithModelTimeoutAndLosesItsConnection() throws Exception {
    // The mock finds the connection gone when it writes its next token, two seconds on.
    mock.reconfigure(BASE.withInterTokenDelay(Duration.ofSeconds(2)));

    RecordingListener listener = streamToTheEnd(model(threads, 0, "300ms"), request("mock"));

    assertThat(listener.completed.handle((usage, error) -> ((ModelException) error).code()).get())
        .isEqualTo(ModelException.TIMEOUT);
    assertThat(listener.tokens).hasSize(1);
    upstreamSawTheCancel();
  }

  @Test
  void overHttp2AnEndpointThatFallsSilentMidStreamFailsTheRunWithModelTimeout() throws Exception {
    try (MockLlmServer http2 = MockLlmServer.start(BASE.withInterTokenDelay(Duration.ofSeconds(2)), "127.0.0.1", 0,
        true)) {
      RecordingListener listener = streamToTheEnd(model(http2, threads, 0, "300ms", true), request("mock"));

      assertThat(listener.completed.handle((usage, error) -> ((ModelException) error).code()).get())
          .isEqualTo(ModelException.TIMEOUT);
      assertThat(listener.tokens).hasSize(1);
      assertThat(http2.stats().http2Requests()).isEqualTo(1);
      http2.stats().whenStreamsCancelled(1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aStreamThatKeepsSendingOutlastsItsReadTimeout() throws Exception {
    mock.reconfigure(BASE.withTokens(20).withDelays(Duration.ofMillis(10), Duration.ofMillis(50)));

    RecordingListener listener = streamToTheEnd(model(threads, 0, "300ms"), request("mock"));

    listener.completed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(listener.text()).isEqualTo(BASE.text(20));
  }

  @Test
  void aStreamThatWouldOutlastItsTotalTimeoutIsCutOffAFewSecondsAfterIt() throws Exception {
    // 100 tokens 100 ms apart: never silent for the 1 s read timeout, but 10 s long. The call's limit
    // is the total timeout and 5 s, past the run's own timer, which cancels first in the engine.
    mock.reconfigure(BASE.withTokens(100).withDelays(Duration.ofMillis(10), Duration.ofMillis(100)));
    long started = System.nanoTime();

    RecordingListener listener = streamToTheEnd(model(mock, threads, 0, "1s", false, ", total-timeout = 1s"),
        request("mock"));

    assertThat(listener.completed.handle((usage, error) -> ((ModelException) error).code()).get())
        .isEqualTo(ModelException.TIMEOUT);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofSeconds(6));
    assertThat(listener.tokens).hasSizeBetween(20, 99);
    upstreamSawTheCancel();
  }

  @Test
  void anAnswerPastItsSizeLimitIsCutOffAndItsCallClosed() throws Exception {
    String chunk = "y".repeat(256 * 1024);
    mock.reconfigure(BASE.withTokens(12).withTokenText(chunk + "{i}").withDelays(Duration.ZERO, Duration.ZERO));

    RecordingListener listener = streamToTheEnd(model(threads), request("mock"));

    ModelException error = listener.completed.handle((usage, failure) -> (ModelException) failure).get();
    assertThat(error.code()).isEqualTo(ModelException.ANSWER_TOO_LARGE);
    assertThat(listener.text().length()).isLessThanOrEqualTo((int) OpenAiChatModel.MAX_ANSWER_BYTES)
        .isGreaterThan((int) OpenAiChatModel.MAX_ANSWER_BYTES / 2);
    assertThat(listener.endings()).isEqualTo(1);
  }

  @Test
  void aStreamThatBreaksOffMidwayIsNotRetried() throws Exception {
    mock.reconfigure(BASE.failing(FailureMode.MID_STREAM_DISCONNECT, "mock").withFailAfterTokens(3));
    long before = mock.stats().requests();
    RecordingListener listener = streamToTheEnd(model(threads, 2, "5s"), request("mock"));

    assertThat(listener.endings()).isEqualTo(1);
    assertThat(listener.completed.handle((usage, error) -> ((ModelException) error).code()).get())
        .isEqualTo(ModelException.STREAM_BROKEN);
    assertThat(listener.tokens).hasSize(3);
    assertThat(mock.stats().requests() - before).isEqualTo(1);
  }

  @Test
  void cancellingFromAnotherThreadClosesTheUpstreamConnectionWithinASecond() throws Exception {
    mock.reconfigure(BASE.withTokens(1000).withInterTokenDelay(Duration.ofMillis(50)));
    RecordingListener listener = new RecordingListener();
    ChatStream stream = model(threads).stream(request("mock"), listener);
    listener.firstToken.get(10, TimeUnit.SECONDS);

    stream.cancel();

    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(1, TimeUnit.SECONDS);
    threads.awaitIdle(PATIENCE);
    assertThat(listener.endings()).isZero();
  }

  @Test
  void cancellingBeforeTheResponseArrivesStopsTheCall() throws Exception {
    mock.reconfigure(BASE.withTimeToFirstToken(Duration.ofSeconds(5)));
    long completedBefore = mock.stats().streamsCompleted();
    long requestsBefore = mock.stats().requests();
    RecordingListener listener = new RecordingListener();
    ChatStream stream = model(threads).stream(request("mock"), listener);
    mock.stats().whenRequests(requestsBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);

    stream.cancel();

    threads.awaitIdle(Duration.ofSeconds(2));
    assertThat(listener.tokens).isEmpty();
    assertThat(listener.endings()).isZero();
    assertThat(mock.stats().streamsCompleted()).isEqualTo(completedBefore);
  }

  @Test
  void withPriorKnowledgeConcurrentStreamsGoOverHttp2AndStillMakeUpTheirAnswers() throws Exception {
    try (MockLlmServer http2 = MockLlmServer.start(BASE, "127.0.0.1", 0, true)) {
      OpenAiChatModel model = model(http2, threads, 0, "5s", true);
      List<RecordingListener> listeners = new java.util.ArrayList<>();
      for (int i = 0; i < 20; i++) {
        RecordingListener listener = new RecordingListener();
        model.stream(request("mock"), listener);
        listeners.add(listener);
      }

      for (RecordingListener listener : listeners) {
        listener.completed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(listener.text()).isEqualTo(BASE.text(8));
      }
      assertThat(http2.stats().http2Requests()).isEqualTo(20);
      threads.awaitIdle(PATIENCE);
    }
  }

  @Test
  void priorKnowledgeIsRefusedForAnHttpsEndpoint() {
    assertThatThrownBy(() -> ColloquySettings.create(ConfigFactory.parseString(
            "colloquy.llm { base-url = \"https://api.example.com/v1\", model = m, http2-prior-knowledge = true }")
        .withFallback(ConfigFactory.defaultReference()).resolve()))
        .hasMessageContaining("colloquy.llm.http2-prior-knowledge").hasMessageContaining("http://");
  }
}
