package dev.colloquy.http.dialect;

import dev.colloquy.http.Json;
import dev.colloquy.http.SseFraming;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Server-Sent Events as the seed dialects write them: an optional {@code event:} name (none means the
 * default "message" event), an optional {@code id:}, and one line of JSON {@code data:}, which the
 * serializer keeps on one line whatever model output it carries. Streams answer with
 * {@code Cache-Control: no-cache} and {@code X-Accel-Buffering: no}, and a comment every keep-alive
 * interval, as the canonical API does.
 */
final class DialectSse {

  private static final List<HttpHeader> STREAM_HEADERS = List.of(
      RawHeader.create("Cache-Control", "no-cache"), RawHeader.create("X-Accel-Buffering", "no"));

  /** One frame of a dialect: {@code event} and {@code id} may be null; {@code data} is written as JSON. */
  record Frame(String event, String id, Object data) {

    ByteString bytes() {
      String json = Json.write(data);
      if (json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0) {
        throw new IllegalArgumentException("SSE data must be one line");
      }
      StringBuilder text = new StringBuilder();
      if (event != null) {
        text.append("event: ").append(event).append('\n');
      }
      if (id != null) {
        text.append("id: ").append(id).append('\n');
      }
      return ByteString.fromString(text.append("data: ").append(json).append("\n\n").toString());
    }
  }

  private DialectSse() {}

  /** A 200 event stream of {@code frames}, kept alive by comments while it is open. */
  static HttpResponse stream(Source<Frame, NotUsed> frames, Duration keepAlive) {
    Source<ByteString, NotUsed> bytes = frames.map(Frame::bytes)
        .merge(Source.tick(keepAlive, keepAlive, SseFraming.KEEP_ALIVE), true);
    return HttpResponse.create()
        .addHeaders(STREAM_HEADERS)
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), bytes));
  }

  /** An event stream of one frame and then the end, with {@code status}: how the Edge dialect refuses a request. */
  static HttpResponse single(StatusCode status, Frame frame) {
    return HttpResponse.create()
        .withStatus(status)
        .addHeaders(STREAM_HEADERS)
        .withEntity(HttpEntities.create(MediaTypes.TEXT_EVENT_STREAM.toContentType(), frame.bytes()));
  }
}
