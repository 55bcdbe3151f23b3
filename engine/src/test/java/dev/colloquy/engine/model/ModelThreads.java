package dev.colloquy.engine.model;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The executor a model under test runs its calls on: a virtual thread per call, as in production,
 * and a way to wait until every call has returned, so a test can check that nothing more arrives
 * without sleeping.
 */
final class ModelThreads implements Executor, AutoCloseable {

  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final List<CompletableFuture<Void>> calls = new CopyOnWriteArrayList<>();

  @Override
  public void execute(Runnable call) {
    calls.add(CompletableFuture.runAsync(call, threads));
  }

  /** Waits until every call started so far has returned. */
  void awaitIdle(Duration timeout) throws Exception {
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
