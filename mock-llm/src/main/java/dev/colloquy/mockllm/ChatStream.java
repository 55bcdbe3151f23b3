package dev.colloquy.mockllm;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.ThrottleMode;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * A chat completion as server-sent events, {@code data: {json}\n\n} each, paced with Pekko Streams
 * timers and ending in {@code data: [DONE]}. Records in the stats how the stream ended.
 */
final class ChatStream {
  /**
   * How long a disconnect waits after the last token: the cut is a TCP reset, which makes the
   * client's kernel drop data the client has not read yet, and the test expects those tokens.
   */
  static final Duration DISCONNECT_GRACE = Duration.ofMillis(100);

  private enum Outcome {
    COMPLETED,
    FAILED,
    CANCELLED
  }

  /** One event, and how the stream has ended if it stops right after it. */
  private record Event(String data, Outcome outcome) {
    static Event midway(String data) {
      return new Event(data, Outcome.CANCELLED);
    }
  }

  private ChatStream() {}

  static Source<ByteString, NotUsed> of(ChatScript script, MockLlmStats stats) {
    AtomicReference<Outcome> outcome = new AtomicReference<>(Outcome.CANCELLED);
    Source<Event, NotUsed> events = tokens(script, stats).concatLazy(ending(script));
    return delayed(events, script.settings().timeToFirstToken())
        .map(event -> send(event, outcome))
        .watchTermination((notUsed, termination) -> watch(termination, outcome, stats));
  }

  private static Source<Event, NotUsed> tokens(ChatScript script, MockLlmStats stats) {
    Source<Integer, NotUsed> indexes =
        Source.fromIterator(() -> IntStream.range(0, script.tokensToSend()).iterator());
    return paced(indexes, script.settings().interTokenDelay())
        .map(index -> tokenEvent(script, index, stats));
  }

  private static Event tokenEvent(ChatScript script, int index, MockLlmStats stats) {
    stats.tokensSent(1);
    return Event.midway(ChatCompletionWire.tokenChunk(script, index));
  }

  private static Source<Event, NotUsed> ending(ChatScript script) {
    return script.failure().map(mode -> failure(mode, script)).orElseGet(() -> finish(script));
  }

  private static Source<Event, NotUsed> finish(ChatScript script) {
    List<Event> events = new ArrayList<>();
    ChatCompletionWire.toolCallChunks(script).forEach(chunk -> events.add(Event.midway(chunk)));
    events.add(Event.midway(ChatCompletionWire.finishChunk(script)));
    if (script.request().includeUsage()) {
      events.add(Event.midway(ChatCompletionWire.usageChunk(script)));
    }
    events.add(new Event(ChatCompletionWire.DONE, Outcome.COMPLETED));
    return Source.from(events);
  }

  /**
   * MID_STREAM ends the HTTP response cleanly after the error event, so the client reliably reads
   * the event; MID_STREAM_DISCONNECT fails the stream, which makes pekko-http abort the connection.
   */
  private static Source<Event, NotUsed> failure(FailureMode mode, ChatScript script) {
    if (mode == FailureMode.MID_STREAM) {
      return Source.single(new Event(OpenAiErrors.midStreamEvent(script.model()), Outcome.FAILED));
    }
    // Lazy, so the failure waits for its turn and then for the grace instead of failing at once.
    Source<Event, NotUsed> cut =
        Source.lazySource(() -> Source.<Event>failed(new MidStreamFailure(mode, script.model())))
            .mapMaterializedValue(ignored -> NotUsed.getInstance());
    return cut.initialDelay(DISCONNECT_GRACE);
  }

  /** One token per interval; a burst of one keeps a pause from releasing tokens in a rush. */
  private static <T> Source<T, NotUsed> paced(Source<T, NotUsed> source, Duration interval) {
    return interval.isZero() ? source : source.throttle(1, interval, 1, ThrottleMode.shaping());
  }

  private static <T> Source<T, NotUsed> delayed(Source<T, NotUsed> source, Duration delay) {
    return delay.isZero() ? source : source.initialDelay(delay);
  }

  private static ByteString send(Event event, AtomicReference<Outcome> outcome) {
    outcome.set(event.outcome());
    return ByteString.fromString("data: " + event.data() + "\n\n", StandardCharsets.UTF_8);
  }

  /**
   * Only the injected cut fails the stream from upstream, so any other stop before the last event
   * means the client went away, whatever cause pekko-http gives the cancellation.
   */
  private static NotUsed watch(
      CompletionStage<Done> termination, AtomicReference<Outcome> outcome, MockLlmStats stats) {
    stats.streamOpened();
    termination.whenComplete((done, error) -> record(error, outcome.get(), stats));
    return NotUsed.getInstance();
  }

  private static void record(Throwable error, Outcome lastSent, MockLlmStats stats) {
    switch (error instanceof MidStreamFailure ? Outcome.FAILED : lastSent) {
      case COMPLETED -> stats.streamCompleted();
      case FAILED -> stats.streamFailed();
      case CANCELLED -> stats.streamCancelled();
    }
  }
}
