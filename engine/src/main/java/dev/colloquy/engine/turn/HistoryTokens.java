package dev.colloquy.engine.turn;

import dev.colloquy.engine.model.ChatMessage;
import java.util.List;

/**
 * The tokens of each message of a turn's history, counted the first time the turn asks and kept for the
 * rest of it. A turn fits its history into the prompt two or three times (whether it needs a summary,
 * how much the summary takes, then the prompt itself), and with a full history window counting it was
 * about 4 % of a node's CPU at 100 streams (bench/RESULTS.md); across turns {@link PromptTokenCounts} keeps
 * them. Used by one turn's supervisor at a time.
 */
final class HistoryTokens {

  private final List<ChatMessage> history;
  /** Each message's count once known; 0 before, as a counted message costs at least its overhead. */
  private final long[] counts;

  HistoryTokens(List<ChatMessage> history) {
    this.history = history;
    this.counts = new long[history.size()];
  }

  List<ChatMessage> messages() {
    return history;
  }

  int size() {
    return history.size();
  }

  /** {@link Prompt#tokens} of the message at {@code index}. */
  long of(int index) {
    long count = counts[index];
    if (count == 0) {
      count = Prompt.tokens(history.get(index));
      counts[index] = count;
    }
    return count;
  }
}
