package dev.colloquy.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Live counters of what the mock server saw. A stream ends exactly one way: completed (sent {@code
 * [DONE]}), failed (an injected mid-stream failure) or cancelled (the client closed the connection
 * before the end).
 */
public final class MockLlmStats {
  private final AwaitableCounter requests = new AwaitableCounter();
  private final AwaitableCounter http2Requests = new AwaitableCounter();
  private final AwaitableCounter streamsOpened = new AwaitableCounter();
  private final AwaitableCounter streamsCompleted = new AwaitableCounter();
  private final AwaitableCounter streamsCancelled = new AwaitableCounter();
  private final AwaitableCounter streamsFailed = new AwaitableCounter();
  private final AwaitableCounter tokensSent = new AwaitableCounter();
  /** Benchmarks send millions of requests; tests look at the last few. */
  private static final int KEPT_CHAT_REQUESTS = 1_000;

  private final Deque<JsonNode> chatRequests = new ArrayDeque<>();
  private volatile String lastAuthorization = "";

  MockLlmStats() {}

  /** Chat completion and embedding requests received, whatever their outcome. */
  public long requests() {
    return requests.get();
  }

  /** Requests that came over HTTP/2 (with prior knowledge: the mock serves no TLS). */
  public long http2Requests() {
    return http2Requests.get();
  }

  public long streamsOpened() {
    return streamsOpened.get();
  }

  public long streamsCompleted() {
    return streamsCompleted.get();
  }

  /** Streams whose client went away before the end. */
  public long streamsCancelled() {
    return streamsCancelled.get();
  }

  /** Streams cut by an injected mid-stream failure. */
  public long streamsFailed() {
    return streamsFailed.get();
  }

  /** Completion tokens sent, streamed or not. */
  public long tokensSent() {
    return tokensSent.get();
  }

  /** The bodies of the last thousand well-formed chat completion requests, oldest first: what the model was asked. */
  public synchronized List<JsonNode> chatRequests() {
    return List.copyOf(chatRequests);
  }

  /** The {@code Authorization} header of the last well-formed chat completion request, empty if it had none. */
  public String lastAuthorization() {
    return lastAuthorization;
  }

  /** Completes once {@link #requests()} reaches {@code atLeast}. */
  public CompletionStage<Long> whenRequests(long atLeast) {
    return requests.whenAtLeast(atLeast);
  }

  /** Completes once {@link #streamsCompleted()} reaches {@code atLeast}. */
  public CompletionStage<Long> whenStreamsCompleted(long atLeast) {
    return streamsCompleted.whenAtLeast(atLeast);
  }

  /**
   * Completes once {@link #streamsCancelled()} reaches {@code atLeast}: a test that cancels a
   * stream awaits this with a timeout to prove the server saw the connection close.
   */
  public CompletionStage<Long> whenStreamsCancelled(long atLeast) {
    return streamsCancelled.whenAtLeast(atLeast);
  }

  void requestReceived() {
    requests.add(1);
  }

  void http2RequestReceived() {
    http2Requests.add(1);
  }

  synchronized void chatRequestAccepted(JsonNode body, String authorization) {
    lastAuthorization = authorization;
    chatRequests.addLast(body);
    if (chatRequests.size() > KEPT_CHAT_REQUESTS) {
      chatRequests.removeFirst();
    }
  }

  void streamOpened() {
    streamsOpened.add(1);
  }

  void streamCompleted() {
    streamsCompleted.add(1);
  }

  void streamCancelled() {
    streamsCancelled.add(1);
  }

  void streamFailed() {
    streamsFailed.add(1);
  }

  void tokensSent(int count) {
    tokensSent.add(count);
  }

  @Override
  public String toString() {
    return "MockLlmStats[requests="
        + requests()
        + ", streamsOpened="
        + streamsOpened()
        + ", streamsCompleted="
        + streamsCompleted()
        + ", streamsCancelled="
        + streamsCancelled()
        + ", streamsFailed="
        + streamsFailed()
        + ", tokensSent="
        + tokensSent()
        + "]";
  }
}
