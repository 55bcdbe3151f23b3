package dev.colloquy.http;

import dev.colloquy.engine.InFlight;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.ResponseEntity;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Counts the streamed responses (SSE turn streams) this node is still writing as work in flight.
 * Stopping the HTTP server closes connections whose response is still streaming, so a node that
 * shuts down first waits on {@code streams} until the last events of its turns have been written.
 */
public final class OpenStreams extends AllDirectives {

  private final InFlight streams;

  public OpenStreams(InFlight streams) {
    this.streams = streams;
  }

  /** Counts every chunked response of {@code inner} from the moment it is produced until its body ends. */
  public Route track(Route inner) {
    return mapResponse(this::watched, () -> inner);
  }

  private HttpResponse watched(HttpResponse response) {
    ResponseEntity entity = response.entity();
    if (!entity.isChunked()) {
      return response;
    }
    Object stream = new Object();
    streams.started(stream);
    return response.withEntity(HttpEntities.createChunked(entity.getContentType(),
        entity.getDataBytes().watchTermination((mat, done) -> {
          done.whenComplete((ok, error) -> streams.ended(stream));
          return mat;
        })));
  }
}
