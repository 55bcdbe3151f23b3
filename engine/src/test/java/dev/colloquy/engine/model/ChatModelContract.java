package dev.colloquy.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.colloquy.engine.knowledge.Passage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ChatModel} must do, as the turn's actors rely on it: tokens in order that make
 * up the answer, usage with the completion, exactly one ending, and a cancel that stops the stream.
 * Failures are not part of it: the offline responder cannot fail, so each way a remote model fails
 * is checked by that model's own test.
 */
abstract class ChatModelContract {

  protected static final Duration PATIENCE = Duration.ofSeconds(10);
  protected static final ChatRequest REQUEST = new ChatRequest("mock",
      List.of(ChatMessage.system("Be brief."), ChatMessage.user("What is the refund window?")),
      List.of(new Passage("d1", "policy.md", "Refunds", 0, 0.9, "Refunds are accepted within 30 days.")), 256);

  protected final ModelThreads threads = new ModelThreads();

  /** The model under test, running its calls on {@code executor}. */
  protected abstract ChatModel model(Executor executor);

  /** The whole answer the model gives to {@link #REQUEST}. */
  protected abstract String expectedAnswer();

  /** Called once a stream was cancelled and its call returned: what the upstream saw of it, if it can tell. */
  protected void upstreamSawTheCancel() throws Exception {}

  @AfterEach
  void stopThreads() {
    threads.close();
  }

  /** Streams {@code request} to its end and waits until the model's call has returned. */
  protected RecordingListener streamToTheEnd(ChatModel model, ChatRequest request) throws Exception {
    RecordingListener listener = new RecordingListener();
    model.stream(request, listener);
    listener.completed.handle((usage, error) -> null).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    threads.awaitIdle(PATIENCE);
    return listener;
  }

  @Test
  void tokensArriveInOrderAndMakeUpTheAnswer() throws Exception {
    RecordingListener listener = streamToTheEnd(model(threads), REQUEST);

    assertThat(listener.completed).isCompleted();
    assertThat(listener.tokens).hasSizeGreaterThan(1).noneMatch(String::isEmpty);
    assertThat(listener.text()).isEqualTo(expectedAnswer());
  }

  @Test
  void theCompletionReportsTheUsageOfPromptAndAnswer() throws Exception {
    TokenUsage usage = streamToTheEnd(model(threads), REQUEST).completed.get();

    assertThat(usage.promptTokens()).isPositive();
    assertThat(usage.completionTokens()).isPositive();
  }

  @Test
  void aStreamEndsExactlyOnceAndNothingFollowsItsEnd() throws Exception {
    RecordingListener listener = streamToTheEnd(model(threads), REQUEST);

    assertThat(listener.endings()).isEqualTo(1);
    assertThat(listener.tokensAfterEnding()).isZero();
  }

  @Test
  void streamReturnsAtOnceAndTheListenerIsCalledOnTheModelsThread() throws Exception {
    RecordingListener listener = streamToTheEnd(model(threads), REQUEST);

    assertThat(listener.callbackThreads).isNotEmpty().doesNotContain(Thread.currentThread());
  }

  @Test
  void cancellingStopsTheStreamWithoutAnEnding() throws Exception {
    CompletableFuture<ChatStream> handle = new CompletableFuture<>();
    RecordingListener listener = new RecordingListener() {
      @Override
      public void onToken(String text) {
        super.onToken(text);
        // Waiting for the handle also proves that stream() returned before the first token.
        handle.orTimeout(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).join().cancel();
      }
    };

    handle.complete(model(threads).stream(REQUEST, listener));
    threads.awaitIdle(PATIENCE);

    assertThat(listener.tokens).hasSize(1);
    assertThat(listener.endings()).isZero();
    upstreamSawTheCancel();
  }

  @Test
  void cancellingIsIdempotentAndHarmlessOnceTheStreamEnded() throws Exception {
    RecordingListener listener = new RecordingListener();
    ChatStream stream = model(threads).stream(REQUEST, listener);
    listener.completed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    threads.awaitIdle(PATIENCE);

    assertThatCode(() -> {
      stream.cancel();
      stream.cancel();
    }).doesNotThrowAnyException();
    assertThat(listener.endings()).isEqualTo(1);
  }

  @Test
  void concurrentStreamsOfOneModelDoNotMix() throws Exception {
    ChatModel model = model(threads);
    RecordingListener first = new RecordingListener();
    RecordingListener second = new RecordingListener();

    model.stream(REQUEST, first);
    model.stream(REQUEST, second);
    CompletableFuture.allOf(first.completed, second.completed).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);

    assertThat(first.text()).isEqualTo(expectedAnswer());
    assertThat(second.text()).isEqualTo(expectedAnswer());
  }
}
