package dev.colloquy.http;

import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.domain.ErrorCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;

/**
 * Reads a request's body whole, within a deadline, before the routes see it. The server's own
 * request timeout starts only once a body has ended, and its idle timeout restarts with every byte,
 * so without this a client sending a byte at a time holds its connection as long as it likes. A
 * body that has not arrived in time is answered 408 {@code REQUEST_TIMEOUT} and its connection
 * closed; one over the server's size limit (max-content-length) 413 {@code REQUEST_TOO_LARGE}.
 * Either way the body is drained, not cancelled, so the answer reaches the client
 * ({@link DrainingBody}). Multipart uploads are left alone: the upload route streams them to disk
 * under a deadline and a limit of its own, since they are large.
 */
final class StrictBodies extends AllDirectives {

  private final Duration timeout;

  StrictBodies(Duration timeout) {
    this.timeout = timeout;
  }

  Route read(Supplier<Route> inner) {
    return extractRequest(request -> request.entity().isStrict() || isMultipart(request)
        ? inner.get()
        : extractParserSettings(parser -> extractMaterializer(materializer ->
            onSuccess(strict(request.entity(), parser.getMaxContentLength(), materializer),
                body -> mapRequest(unread -> unread.withEntity(body), inner)))));
  }

  private CompletionStage<HttpEntity.Strict> strict(RequestEntity entity, long maxBytes, Materializer materializer) {
    CompletionStage<ByteString> bytes;
    try {
      bytes = DrainingBody.limited(entity, maxBytes).getDataBytes()
          .completionTimeout(timeout)
          .runWith(Sink.fold(ByteString.emptyByteString(), ByteString::concat), materializer);
    } catch (EntityStreamSizeException tooLarge) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    return bytes.<HttpEntity.Strict>thenApply(body -> HttpEntities.create(entity.getContentType(), body))
        .exceptionally(failure -> {
          Throwable cause = StageFailures.cause(failure);
          if (cause instanceof TimeoutException) {
            throw new ApiException(ErrorCode.REQUEST_TIMEOUT, "The request body did not arrive within "
                + timeout.toSeconds() + " s; send it without pausing");
          }
          throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
  }

  private static boolean isMultipart(HttpRequest request) {
    return request.entity().getContentType().mediaType().mainType().equalsIgnoreCase(MediaTypes.MULTIPART_FORM_DATA.mainType());
  }
}
