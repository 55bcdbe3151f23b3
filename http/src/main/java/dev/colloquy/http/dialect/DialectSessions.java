package dev.colloquy.http.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.http.Admission;
import dev.colloquy.http.SessionGateway;
import dev.colloquy.http.auth.Principal;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The engine commands the seed dialects send, each for its caller (another tenant's or user's session
 * answers as a missing one), with the answer unwrapped or turned into a {@link DialectRefusal}.
 */
final class DialectSessions {

  private final SessionGateway gateway;
  private final Admission admission;

  DialectSessions(SessionGateway gateway, Admission admission) {
    this.gateway = gateway;
    this.admission = admission;
  }

  /** Opens {@code sessionId} for the caller's tenant and {@code userId} (null: the whole tenant). */
  CompletionStage<SessionView> open(Principal caller, String sessionId, String userId, String persona, JsonNode metadata,
      String characterId) {
    return gateway.<ChatSession.SessionAnswer>ask(sessionId, replyTo -> new ChatSession.Open(caller.tenantId(), userId,
        persona, metadata, characterId, List.of(), replyTo)).thenApply(DialectSessions::session);
  }

  CompletionStage<SessionView> get(Principal caller, String sessionId) {
    return gateway.<ChatSession.SessionAnswer>ask(caller, sessionId, ChatSession.Get::new).thenApply(DialectSessions::session);
  }

  CompletionStage<SessionView> rename(Principal caller, String sessionId, String title) {
    return gateway.<ChatSession.SessionAnswer>ask(caller, sessionId, replyTo -> new ChatSession.Rename(title, replyTo))
        .thenApply(DialectSessions::session);
  }

  /** An explicit close, recorded with the reason every API's close has. */
  CompletionStage<SessionView> close(Principal caller, String sessionId) {
    return gateway.<ChatSession.SessionAnswer>ask(caller, sessionId, replyTo -> new ChatSession.Close("closed", replyTo))
        .thenApply(DialectSessions::session);
  }

  CompletionStage<ChatSession.Done> delete(Principal caller, String sessionId) {
    return gateway.<ChatSession.DeleteAnswer>ask(caller, sessionId, ChatSession.Delete::new).thenApply(answer -> switch (answer) {
      case ChatSession.Done done -> done;
      case ChatSession.Rejected rejected -> throw DialectRefusal.of(rejected);
    });
  }

  /**
   * A new turn, once the node's admission has a place for it (else refused with 503 OVERLOADED, which
   * each dialect words in its shape, before the session hears of it); the place is held until its first token.
   */
  CompletionStage<ChatSession.TurnReply> start(Principal caller, String sessionId, String message, String turnId,
      String idempotencyKey, List<String> models, String traceId) {
    return start(caller, sessionId, message, turnId, idempotencyKey, models, traceId, false);
  }

  /**
   * A new turn of a chat whose contract never closes it (the Writing Room's): a chat the engine closed
   * for idleness, to bill it, opens again for it rather than refusing it as closed.
   */
  CompletionStage<ChatSession.TurnReply> startInChat(Principal caller, String chatId, String message,
      String traceId) {
    return start(caller, chatId, message, null, null, List.of(), traceId, true);
  }

  private CompletionStage<ChatSession.TurnReply> start(Principal caller, String sessionId, String message,
      String turnId, String idempotencyKey, List<String> models, String traceId, boolean reopenIfIdle) {
    return admission.admit(place -> gateway.<ChatSession.TurnAnswer>ask(caller, sessionId, replyTo ->
            new ChatSession.StartTurn(message, turnId, idempotencyKey, models, traceId, reopenIfIdle, replyTo))
        .thenApply(DialectSessions::turn).thenApply(place::held));
  }

  CompletionStage<ChatSession.TurnReply> join(Principal caller, String sessionId, String turnId, long afterId) {
    return gateway.<ChatSession.TurnAnswer>ask(caller, sessionId, replyTo -> new ChatSession.JoinTurn(turnId, afterId, replyTo))
        .thenApply(DialectSessions::turn);
  }

  /** Asks for the turn to stop now; whether it had already ended does not matter to the caller. */
  void cancel(Principal caller, String sessionId, String turnId) {
    gateway.<ChatSession.TurnAnswer>ask(caller, sessionId, replyTo -> new ChatSession.CancelTurn(turnId, replyTo));
  }

  /** Every frame of a stream that ends (a finished turn's replay, or a turn asked for as one JSON answer). */
  CompletionStage<List<TurnFrame>> collect(Source<TurnFrame, NotUsed> frames) {
    return frames.runWith(Sink.seq(), gateway.system());
  }

  private static SessionView session(ChatSession.SessionAnswer answer) {
    return switch (answer) {
      case ChatSession.SessionReply reply -> reply.session();
      case ChatSession.Rejected rejected -> throw DialectRefusal.of(rejected);
    };
  }

  private static ChatSession.TurnReply turn(ChatSession.TurnAnswer answer) {
    return switch (answer) {
      case ChatSession.TurnReply reply -> reply;
      case ChatSession.Rejected rejected -> throw DialectRefusal.of(rejected);
    };
  }
}
