package dev.colloquy.http;

import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /metrics}: the Prometheus text exposition of whatever the app registers. Plain
 * {@code text/plain} is what Prometheus reads as its text format 0.0.4.
 */
final class MetricsRoutes extends AllDirectives {

  private final Supplier<String> scrape;

  MetricsRoutes(Supplier<String> scrape) {
    this.scrape = scrape;
  }

  Route route() {
    return path("metrics", () -> get(() -> complete(HttpResponse.create()
        .withStatus(StatusCodes.OK)
        .withEntity(HttpEntities.create(ContentTypes.TEXT_PLAIN_UTF8, scrape.get())))));
  }
}
