package dev.colloquy.engine.turn;

import dev.colloquy.engine.agent.MemoryRecall;
import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.ChatMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A turn whose history no longer fits its prompt beside the session's summary: the messages a new
 * rolling summary must take in ({@code toSummarize}: those before the history window that no summary
 * holds yet, then the oldest of the history: at least its older turns' half, and what the newest half of
 * the budget cannot hold), how many of the history those are ({@code skip}), and how long the summary may
 * be ({@code summaryTokens}, reserved in the prompt's budget).
 */
record HistoryTrim(List<ChatMessage> toSummarize, int skip, int summaryTokens) {

  static final int MIN_SUMMARY_TOKENS = 32;
  static final int MAX_SUMMARY_TOKENS = 256;

  HistoryTrim {
    toSummarize = List.copyOf(toSummarize);
  }

  /** The trim {@code plan}'s prompt needs, or none when its history fits beside the summary it has. */
  static Optional<HistoryTrim> of(TurnPlan plan, List<Passage> passages, int maxTokens, int contextTokens) {
    return of(plan, null, null, passages, maxTokens, contextTokens);
  }

  /** The same for a prompt with the tenant's instructions and what is known of the user. */
  static Optional<HistoryTrim> of(TurnPlan plan, String tenantInstructions, MemoryRecall.Recalled user,
      List<Passage> passages, int maxTokens, int contextTokens) {
    return of(plan, new HistoryTokens(plan.history()), tenantInstructions, user, passages, maxTokens, contextTokens);
  }

  /** The same, with the tokens of {@code plan}'s history as far as its turn has counted them. */
  static Optional<HistoryTrim> of(TurnPlan plan, HistoryTokens counted, String tenantInstructions,
      MemoryRecall.Recalled user, List<Passage> passages, int maxTokens, int contextTokens) {
    long budget = Prompt.historyBudget(plan, tenantInstructions, user, passages, maxTokens, contextTokens);
    RollingSummary current = plan.earlier().summary();
    long besideCurrent = budget - (current == null ? 0 : Prompt.tokens(Prompt.summaryMessage(current)));
    List<ChatMessage> history = plan.history();
    if (plan.earlier().unsummarized().isEmpty() && Prompt.fitting(counted, 0, besideCurrent).size() == history.size()) {
      return Optional.empty();
    }
    int summaryTokens = Math.clamp(budget / 4, MIN_SUMMARY_TOKENS, MAX_SUMMARY_TOKENS);
    long reserve = summaryTokens + Prompt.tokens(ChatMessage.user(Prompt.SUMMARY_HEADING));
    // Summarizing only what overflows would make every later turn overflow again by its own two messages,
    // and so cost a summary call per turn. Summarizing the older half of the window as well (by tokens and by
    // count) leaves room for the next turns: the session pays for a summary every few turns instead.
    int olderHalf = history.size() / 2 & ~1;
    int skip = Math.max(history.size() - Prompt.fitting(counted, 0, (budget - reserve) / 2).size(), olderHalf);
    List<ChatMessage> toSummarize = new ArrayList<>(plan.earlier().unsummarized());
    toSummarize.addAll(history.subList(0, skip));
    return toSummarize.isEmpty() ? Optional.empty() : Optional.of(new HistoryTrim(toSummarize, skip, summaryTokens));
  }

  /**
   * The trim the next turn would need because its history window ({@code window} messages) is full by
   * count: this turn's history fits and nothing before it waits for a summary, but the next turn's two
   * messages would push the oldest out of the window. Summarizing the older half now, beside this turn's
   * answer, spares the next turn a summary call before its first token; what it covers is what that
   * turn's own trim would have taken first (its older half).
   */
  static Optional<HistoryTrim> ahead(TurnPlan plan, int window, String tenantInstructions,
      MemoryRecall.Recalled user, List<Passage> passages, int maxTokens, int contextTokens) {
    List<ChatMessage> history = plan.history();
    int olderHalf = history.size() / 2 & ~1;
    if (!plan.earlier().unsummarized().isEmpty() || history.size() + 2 <= window || olderHalf == 0) {
      return Optional.empty();
    }
    long budget = Prompt.historyBudget(plan, tenantInstructions, user, passages, maxTokens, contextTokens);
    int summaryTokens = Math.clamp(budget / 4, MIN_SUMMARY_TOKENS, MAX_SUMMARY_TOKENS);
    return Optional.of(new HistoryTrim(history.subList(0, olderHalf), olderHalf, summaryTokens));
  }
}
