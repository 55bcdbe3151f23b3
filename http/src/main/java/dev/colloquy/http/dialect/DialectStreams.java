package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.http.HttpMetrics;
import dev.colloquy.http.MeteredFrames;
import dev.colloquy.http.SseKeepAlive;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Source;

/**
 * Serves an accepted turn's stream in a dialect: translated, numbered from the turn's first frame,
 * after the number the client last saw. A finished turn whose every frame the client has seen gets
 * 204, which tells an EventSource to stop reconnecting.
 */
final class DialectStreams extends AllDirectives {

  private final DialectSessions sessions;
  private final SseKeepAlive keepAlive;
  private final HttpMetrics metrics;

  DialectStreams(DialectSessions sessions, Duration keepAlive, HttpMetrics metrics) {
    this.sessions = sessions;
    this.keepAlive = SseKeepAlive.of(sessions.system(), keepAlive);
    this.metrics = metrics;
  }

  /**
   * {@code turn}'s stream, which must start at its first frame. {@code around} may add frames before
   * the turn's (a greeting) or watch the stream's end.
   */
  <T> Route serve(ChatSession.TurnReply turn, Supplier<TurnFrames.Translator<T>> translator, long afterNumber,
      Function<TurnFrames.Numbered<T>, DialectSse.Frame> framing, long requestNanos,
      UnaryOperator<Source<DialectSse.Frame, NotUsed>> around) {
    if (turn.nothingFollows()) {
      return complete(StatusCodes.NO_CONTENT);
    }
    Source<TurnFrame, NotUsed> canonical = turn.frames().getSource();
    if (turn.ended()) {
      return onSuccess(sessions.collect(canonical), frames -> {
        List<TurnFrames.Numbered<T>> numbered = TurnFrames.after(frames, translator.get(), afterNumber);
        return numbered.isEmpty() ? complete(StatusCodes.NO_CONTENT)
            : complete(DialectSse.stream(around.apply(Source.from(numbered).map(framing::apply)), keepAlive));
      });
    }
    Source<DialectSse.Frame, NotUsed> live =
        TurnFrames.after(MeteredFrames.meter(canonical, requestNanos, metrics), translator, afterNumber).map(framing::apply);
    return complete(DialectSse.stream(around.apply(live), keepAlive));
  }

  <T> Route serve(ChatSession.TurnReply turn, Supplier<TurnFrames.Translator<T>> translator, long afterNumber,
      Function<TurnFrames.Numbered<T>, DialectSse.Frame> framing, long requestNanos) {
    return serve(turn, translator, afterNumber, framing, requestNanos, UnaryOperator.identity());
  }
}
