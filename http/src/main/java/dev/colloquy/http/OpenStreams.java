package dev.colloquy.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.ResponseEntity;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The streamed responses (SSE turn streams) this node is still writing. Stopping the HTTP server
 * closes connections whose response is still streaming, so a node that shuts down first waits here
 * until the last events of its turns have been written.
 */
public final class OpenStreams extends AllDirectives {

  private int open;
  private final List<CompletableFuture<Void>> noneOpen = new ArrayList<>();

  /** Counts every chunked response of {@code inner} from the moment it is produced until its body ends. */
  public Route track(Route inner) {
    return mapResponse(this::watched, () -> inner);
  }

  private HttpResponse watched(HttpResponse response) {
    ResponseEntity entity = response.entity();
    if (!entity.isChunked()) {
      return response;
    }
    opened();
    return response.withEntity(HttpEntities.createChunked(entity.getContentType(),
        entity.getDataBytes().watchTermination((mat, done) -> {
          done.whenComplete((ok, error) -> closed());
          return mat;
        })));
  }

  public synchronized int count() {
    return open;
  }

  /** Completes when no stream is open any more, or after {@code timeout} whatever is still open. */
  public synchronized CompletionStage<Void> whenNoneOpen(Duration timeout) {
    if (open == 0) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> waiter = new CompletableFuture<>();
    noneOpen.add(waiter);
    return waiter.completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private synchronized void opened() {
    open++;
  }

  private synchronized void closed() {
    open--;
    if (open == 0) {
      List<CompletableFuture<Void>> waiters = List.copyOf(noneOpen);
      noneOpen.clear();
      waiters.forEach(waiter -> waiter.complete(null));
    }
  }
}
