package dev.colloquy.http.dialect;

import dev.colloquy.http.Json;
import dev.colloquy.http.SseKeepAlive;
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
 * Server-Sent Events as the dialects write them: an optional {@code event:} name (none means the
 * default "message" event, which an EventSource's {@code onmessage} gets), an optional {@code id:},
 * and one line of {@code data:}, which holds JSON (kept on one line whatever model output it carries)
 * or a literal such as OpenAI's {@code [DONE]}. Streams answer with {@code Cache-Control: no-cache}
 * and {@code X-Accel-Buffering: no}, and a comment every keep-alive interval, as the canonical API does
 * (from the node's one keep-alive timer, {@link SseKeepAlive}).
 */
final class DialectSse {

  private static final List<HttpHeader> STREAM_HEADERS = List.of(
      RawHeader.create("Cache-Control", "no-cache"), RawHeader.create("X-Accel-Buffering", "no"));

  /** One frame of a dialect: {@code event} and {@code id} may be null; {@code data} is written as snake_case JSON. */
  record Frame(String event, String id, Object data) {

    ByteString bytes() {
      return encode(event, id, Json.write(data));
    }
  }

  private DialectSse() {}

  /** One event of {@code data} alone: JSON its dialect has written, or a literal. */
  static ByteString data(String data) {
    return encode(null, null, data);
  }

  /** The same with an {@code id:}, which a client resuming sends back as {@code Last-Event-ID}. */
  static ByteString data(long id, String data) {
    return encode(null, Long.toString(id), data);
  }

  /** An {@code id:} alone: a client's last event id moves on, and no event is dispatched (no data). */
  static ByteString idOnly(long id) {
    return ByteString.fromString("id: " + id + "\n\n");
  }

  /** A 200 event stream of {@code frames}, kept alive by comments while it is open. */
  static HttpResponse stream(Source<Frame, NotUsed> frames, SseKeepAlive keepAlive) {
    return streamOfBytes(frames.map(Frame::bytes), keepAlive, List.of());
  }

  /**
   * A 200 event stream of events already encoded (by {@link #data}), for dialects that make several
   * events of one canonical frame; {@code headers} are added to the stream's own.
   */
  static HttpResponse streamOfBytes(Source<ByteString, NotUsed> events, SseKeepAlive keepAlive,
      List<HttpHeader> headers) {
    Source<ByteString, NotUsed> bytes = keepAlive.around(events);
    return HttpResponse.create()
        .addHeaders(STREAM_HEADERS)
        .addHeaders(headers)
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), bytes));
  }

  /** An event stream of one frame and then the end, with {@code status}: how the Edge dialect refuses a request. */
  static HttpResponse single(StatusCode status, Frame frame) {
    return HttpResponse.create()
        .withStatus(status)
        .addHeaders(STREAM_HEADERS)
        .withEntity(HttpEntities.create(MediaTypes.TEXT_EVENT_STREAM.toContentType(), frame.bytes()));
  }

  /** The JSON writers escape CR and LF inside strings, so this holds for every body they write. */
  private static ByteString encode(String event, String id, String data) {
    if (data.indexOf('\n') >= 0 || data.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("SSE data must be one line");
    }
    StringBuilder text = new StringBuilder();
    if (event != null) {
      text.append("event: ").append(event).append('\n');
    }
    if (id != null) {
      text.append("id: ").append(id).append('\n');
    }
    return ByteString.fromString(text.append("data: ").append(data).append("\n\n").toString());
  }
}
