package dev.colloquy.http.dialect;

import dev.colloquy.http.SseFraming;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Server-Sent Events as the dialects write them: {@code data:} lines of one-line JSON (no
 * {@code event:} field, so an EventSource's {@code onmessage} gets every one), a keep-alive comment
 * whatever else flows, and the headers every stream of Colloquy has.
 */
final class DialectSse {

  private DialectSse() {}

  /** One event of {@code data} alone. */
  static ByteString data(String data) {
    return ByteString.fromString("data: " + oneLine(data) + "\n\n");
  }

  /** One event with an {@code id:}, which a client resuming sends back as {@code Last-Event-ID}. */
  static ByteString data(long id, String data) {
    return ByteString.fromString("id: " + id + "\ndata: " + oneLine(data) + "\n\n");
  }

  /** An {@code id:} alone: a client's last event id moves on, and no event is dispatched (no data). */
  static ByteString idOnly(long id) {
    return ByteString.fromString("id: " + id + "\n\n");
  }

  static HttpResponse response(Source<ByteString, NotUsed> events, Duration keepAlive, List<HttpHeader> headers) {
    Source<ByteString, NotUsed> bytes = events.merge(Source.tick(keepAlive, keepAlive, SseFraming.KEEP_ALIVE), true);
    return HttpResponse.create()
        .withStatus(StatusCodes.OK)
        .addHeader(RawHeader.create("Cache-Control", "no-cache"))
        .addHeader(RawHeader.create("X-Accel-Buffering", "no"))
        .addHeaders(headers)
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), bytes));
  }

  /** The JSON writer escapes CR and LF inside strings, so this holds for every body it writes. */
  private static String oneLine(String data) {
    if (data.indexOf('\n') >= 0 || data.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("SSE data must be one line");
    }
    return data;
  }
}
