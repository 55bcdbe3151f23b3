package dev.colloquy.engine.model;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Collects what a model streams: its tokens, and how the stream ended. */
final class RecordingListener implements ChatListener {

  final List<String> tokens = new CopyOnWriteArrayList<>();
  final CompletableFuture<TokenUsage> completed = new CompletableFuture<>();
  final CompletableFuture<String> firstToken = new CompletableFuture<>();

  @Override
  public void onToken(String text) {
    tokens.add(text);
    firstToken.complete(text);
  }

  @Override
  public void onComplete(TokenUsage usage) {
    completed.complete(usage);
  }

  @Override
  public void onError(ModelException error) {
    completed.completeExceptionally(error);
  }

  String text() {
    return String.join("", tokens);
  }
}
