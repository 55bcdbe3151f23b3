package dev.colloquy.persistence.readside;

import dev.colloquy.engine.session.SessionView;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A session's messages as the read side keeps them: the pages of its history before the turns the
 * session keeps in memory. The caller has already been let into the session by the session itself.
 */
public interface MessageHistory {

  /** No read side: pages end where the session's kept turns end. */
  MessageHistory NONE = new MessageHistory() {
    @Override
    public CompletionStage<Optional<Position>> positionOf(String sessionId, String messageId) {
      return CompletableFuture.completedFuture(Optional.empty());
    }

    @Override
    public CompletionStage<Page> before(String sessionId, Position position, int limit, long budgetBytes) {
      return CompletableFuture.completedFuture(new Page(List.of(), false));
    }
  };

  /**
   * A message's place in its session: the number of its turn, its index in the turn (0 the user's
   * message, then the answers), and its id to order what the first two cannot.
   */
  record Position(int turn, int index, String messageId) {

    /** Before every message of turn {@code turn}. */
    public static Position startOfTurn(int turn) {
      return new Position(turn, 0, "");
    }
  }

  /** Messages oldest first, and whether more precede them. */
  record Page(List<SessionView.MessageView> messages, boolean earlier) {}

  /** Where the message stands; empty when the session has no such message. */
  CompletionStage<Optional<Position>> positionOf(String sessionId, String messageId);

  /**
   * The messages just before {@code position}: at most {@code limit}, and at most {@code budgetBytes}
   * of text (UTF-8) beyond the first.
   */
  CompletionStage<Page> before(String sessionId, Position position, int limit, long budgetBytes);
}
