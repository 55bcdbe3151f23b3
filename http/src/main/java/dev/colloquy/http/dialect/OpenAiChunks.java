package dev.colloquy.http.dialect;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.http.CanonicalEvents.CitationJson;
import dev.colloquy.http.Json;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.util.ByteString;

/**
 * A one-model turn's frames as OpenAI's chat completion: {@code chat.completion.chunk} events for a
 * stream, one {@code chat.completion} object otherwise. What Colloquy adds (the session, turn and
 * trace ids, the provider, retrieval's citations and confidence) rides in the extension field
 * {@value #EXTENSION}, on the first chunk of a stream and on the completion object; clients that do
 * not know it ignore it. One instance translates one stream: it remembers whether an error was sent.
 */
final class OpenAiChunks {

  /** The name of the extension field. */
  static final String EXTENSION = "colloquy";
  static final ByteString DONE = DialectSse.data("[DONE]");

  private final String id;
  private final long created;
  private final String model;
  private final String provider;
  private final boolean includeUsage;
  private boolean errorSent;
  private boolean answered;
  private boolean superseded;

  /** {@code model} and {@code provider} are the ones the request resolved to; {@code created} is in epoch seconds. */
  OpenAiChunks(String turnId, long created, String model, String provider, boolean includeUsage) {
    this.id = "chatcmpl-" + turnId;
    this.created = created;
    this.model = model;
    this.provider = provider;
    this.includeUsage = includeUsage;
  }

  record Delta(@JsonInclude(JsonInclude.Include.NON_NULL) String role,
      @JsonInclude(JsonInclude.Include.NON_NULL) String content) {}

  record ChunkChoice(int index, Delta delta, Object logprobs, String finishReason) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Chunk(String id, String object, long created, String model, List<ChunkChoice> choices, UsageJson usage,
      Extension colloquy) {}

  record UsageJson(long promptTokens, long completionTokens, long totalTokens) {
    static UsageJson of(Usage usage) {
      return new UsageJson(usage.promptTokens(), usage.completionTokens(), usage.totalTokens());
    }
  }

  /** The extension field: where a turn's answer comes from. */
  record Extension(String sessionId, String turnId, String traceId, String provider, List<CitationJson> citations,
      Double confidence) {}

  record Message(String role, String content, Object refusal) {}

  record Choice(int index, Message message, Object logprobs, String finishReason) {}

  record Completion(String id, String object, long created, String model, List<Choice> choices, UsageJson usage,
      Object systemFingerprint, Extension colloquy) {}

  /**
   * The events one frame becomes; most frames become none. A client appends content, so when another
   * node runs the turn again after content was sent, the stream ends with the error
   * {@code TURN_RESTARTED} and carries nothing more (the answer will be in the session's messages).
   */
  List<ByteString> events(TurnFrame frame) {
    if (superseded) {
      return List.of();
    }
    return switch (frame.event()) {
      case StreamEvent.Retrieved retrieved -> List.of(chunk(new Delta("assistant", ""), null, null,
          extension(frame, CitationJson.toApi(retrieved.citations()), retrieved.confidence())));
      case StreamEvent.Token token -> {
        answered = true;
        yield List.of(chunk(new Delta(null, token.text()), null, null, null));
      }
      case StreamEvent.RunCompleted run -> finished(run.run());
      case StreamEvent.RunFailed failed -> error(OpenAiError.of(502, failed.code(), failed.message()));
      case TurnEnding.Completed completed -> List.of(DONE);
      case TurnEnding.Failed failed -> errorSent ? List.of() : error(OpenAiError.of(502, failed.code(), failed.message()));
      case TurnEnding.Cancelled cancelled ->
          error(OpenAiError.of(409, "TURN_CANCELLED", "The turn was cancelled: " + cancelled.reason()));
      case StreamEvent.Started started -> List.of();
      case StreamEvent.GapFound gap -> List.of();
      case StreamEvent.IntentRouted routed -> List.of();
      case StreamEvent.Escalated escalated -> List.of();
      case StreamEvent.Restarted restarted -> {
        superseded = answered;
        yield answered ? error(OpenAiError.of(503, AnsweringRun.RESTARTED, AnsweringRun.RESTARTED_MESSAGE)) : List.of();
      }
      case StreamEvent.ToolEvent tool -> List.of();
    };
  }

  private List<ByteString> finished(RunOutcome run) {
    List<ByteString> events = new ArrayList<>();
    events.add(chunk(new Delta(null, null), "stop", null, null));
    if (includeUsage) {
      events.add(DialectSse.data(Json.write(new Chunk(id, "chat.completion.chunk", created, model, List.of(),
          UsageJson.of(run.usage()), null))));
    }
    return events;
  }

  /** An error after the stream has opened, as OpenAI sends one: a data event holding {@code error}. */
  private List<ByteString> error(OpenAiError error) {
    errorSent = true;
    return List.of(DialectSse.data(Json.write(new OpenAiError.Body(error.detail()))));
  }

  private ByteString chunk(Delta delta, String finishReason, UsageJson usage, Extension extension) {
    return DialectSse.data(Json.write(new Chunk(id, "chat.completion.chunk", created, model,
        List.of(new ChunkChoice(0, delta, null, finishReason)), usage, extension)));
  }

  private Extension extension(TurnFrame frame, List<CitationJson> citations, Double confidence) {
    return new Extension(frame.sessionId(), frame.turnId(), frame.traceId(), provider, citations, confidence);
  }

  /** A completed turn's frames as one {@code chat.completion}; an error when the turn did not complete. */
  Completion completion(List<TurnFrame> frames) {
    TurnFrame last = frames.isEmpty() ? null : frames.getLast();
    RunOutcome completed = null;
    StreamEvent.RunFailed failed = null;
    Extension extension = last == null ? null : extension(last, List.of(), null);
    for (TurnFrame frame : frames) {
      switch (frame.event()) {
        case StreamEvent.Retrieved retrieved ->
            extension = extension(frame, CitationJson.toApi(retrieved.citations()), retrieved.confidence());
        case StreamEvent.RunCompleted run -> completed = run.run();
        case StreamEvent.RunFailed run -> failed = run;
        default -> { }
      }
    }
    if (last != null && last.event() instanceof TurnEnding.Completed answer && completed != null) {
      return new Completion(id, "chat.completion", created, model,
          List.of(new Choice(0, new Message("assistant", answer.text(), null), null, "stop")),
          UsageJson.of(completed.usage()), null, extension);
    }
    throw switch (last == null ? null : last.event()) {
      case TurnEnding.Failed turn -> failed != null ? OpenAiError.of(502, failed.code(), failed.message())
          : OpenAiError.of(502, turn.code(), turn.message());
      case TurnEnding.Cancelled cancelled ->
          OpenAiError.of(409, "TURN_CANCELLED", "The turn was cancelled: " + cancelled.reason());
      case null, default -> OpenAiError.of(503, "STREAM_ENDED", "The turn's stream ended without an outcome");
    };
  }
}
