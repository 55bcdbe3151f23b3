package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionState;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.readside.MessageHistory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A session with one page of its messages. The session answers for the turns it keeps in memory
 * (its newest) and lets the caller in or not; the pages before those come from the read side's
 * messages, which by then have long been projected.
 */
public final class SessionHistory {

  private final SessionGateway sessions;
  private final MessageHistory history;

  /** The most text (UTF-8) {@link #whole} gathers: a session may hold 10,000 turns of 32 KiB messages. */
  public static final long WHOLE_BYTES = 16L * 1024 * 1024;

  public SessionHistory(SessionGateway sessions, MessageHistory history) {
    this.sessions = sessions;
    this.history = history;
  }

  /** At most {@code limit} messages: the newest, or those just before the message {@code before} (null: the newest). */
  CompletionStage<SessionView> page(Principal caller, String sessionId, String before, int limit) {
    return sessions.<ChatSession.SessionAnswer>ask(caller, sessionId,
            replyTo -> new ChatSession.ReadMessages(before, limit, replyTo))
        .thenApply(SessionHistory::session)
        .thenCompose(view -> {
          SessionView.Page page = view.page();
          if (page.anchorNotKept()) {
            return history.positionOf(sessionId, before).thenCompose(position -> position
                .map(at -> readSide(view, List.of(), at, limit))
                .orElseThrow(() -> new ApiException(ErrorCode.INVALID_QUERY,
                    "before names no message of this session")));
          }
          if (page.continuesBeforeTurn() != null) {
            return readSide(view, view.messages(), MessageHistory.Position.startOfTurn(page.continuesBeforeTurn()),
                limit - view.messages().size());
          }
          return CompletableFuture.completedFuture(view);
        });
  }

  /**
   * The session with every message from its first, page by page, or with the newest that fit in
   * {@link #WHOLE_BYTES} (its page then says that earlier messages were left out).
   */
  public CompletionStage<SessionView> whole(Principal caller, String sessionId) {
    return page(caller, sessionId, null, SessionState.MAX_PAGE_MESSAGES)
        .thenCompose(newest -> before(caller, newest, new ArrayList<>(newest.messages()), bytes(newest.messages())));
  }

  private CompletionStage<SessionView> before(Principal caller, SessionView last, List<SessionView.MessageView> gathered,
      long bytes) {
    boolean earlier = last.page() != null && last.page().earlier() && !last.messages().isEmpty();
    if (!earlier || bytes >= WHOLE_BYTES) {
      return CompletableFuture.completedFuture(last.withMessages(gathered, SessionView.Page.complete(earlier)));
    }
    return page(caller, last.sessionId(), last.messages().getFirst().messageId(), SessionState.MAX_PAGE_MESSAGES)
        .thenCompose(older -> {
          List<SessionView.MessageView> all = new ArrayList<>(older.messages());
          all.addAll(gathered);
          return before(caller, older, all, bytes + bytes(older.messages()));
        });
  }

  private static long bytes(List<SessionView.MessageView> messages) {
    return messages.stream().mapToLong(message -> message.content().getBytes(StandardCharsets.UTF_8).length).sum();
  }

  /** {@code kept} preceded by what the read side holds before {@code position}, within the page's limits. */
  private CompletionStage<SessionView> readSide(SessionView view, List<SessionView.MessageView> kept,
      MessageHistory.Position position, int room) {
    long budget = SessionState.PAGE_BYTES - bytes(kept);
    if (room <= 0 || (!kept.isEmpty() && budget <= 0)) {
      return CompletableFuture.completedFuture(view.withMessages(kept, SessionView.Page.complete(true)));
    }
    return history.before(view.sessionId(), position, room, budget)
        .thenApply(older -> {
          List<SessionView.MessageView> messages = new ArrayList<>(older.messages());
          messages.addAll(kept);
          return view.withMessages(messages, SessionView.Page.complete(older.earlier()));
        });
  }

  private static SessionView session(ChatSession.SessionAnswer answer) {
    return switch (answer) {
      case ChatSession.SessionReply reply -> reply.session();
      case ChatSession.Rejected rejected -> throw Errors.refused(rejected);
    };
  }
}
