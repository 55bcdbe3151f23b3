package dev.colloquy.engine.model;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Collects what a model streams: its tokens, how the stream ended, and how many endings it was told
 * of, in order (a token after an ending would show in {@link #tokensAfterEnding}).
 */
class RecordingListener implements ChatListener {

  final List<String> tokens = new CopyOnWriteArrayList<>();
  final CompletableFuture<TokenUsage> completed = new CompletableFuture<>();
  final CompletableFuture<String> firstToken = new CompletableFuture<>();
  final List<Thread> callbackThreads = new CopyOnWriteArrayList<>();
  private final AtomicInteger endings = new AtomicInteger();
  private final AtomicInteger tokensAfterEnding = new AtomicInteger();

  @Override
  public void onToken(String text) {
    callbackThreads.add(Thread.currentThread());
    if (endings.get() > 0) {
      tokensAfterEnding.incrementAndGet();
    }
    tokens.add(text);
    firstToken.complete(text);
  }

  @Override
  public void onComplete(TokenUsage usage) {
    callbackThreads.add(Thread.currentThread());
    endings.incrementAndGet();
    completed.complete(usage);
  }

  @Override
  public void onError(ModelException error) {
    callbackThreads.add(Thread.currentThread());
    endings.incrementAndGet();
    completed.completeExceptionally(error);
  }

  String text() {
    return String.join("", tokens);
  }

  int endings() {
    return endings.get();
  }

  int tokensAfterEnding() {
    return tokensAfterEnding.get();
  }
}
