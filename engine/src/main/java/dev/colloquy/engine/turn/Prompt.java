package dev.colloquy.engine.turn;

import dev.colloquy.engine.agent.MemoryRecall;
import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.ChatMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds the messages a model run receives, keeping three kinds of text apart:
 * <ul>
 *   <li>instructions, in the system message and nowhere else: Colloquy's own and the tenant's
 *       persona and system prompt (its configuration, set by its operator);</li>
 *   <li>untrusted data, in a message of its own just before the question ({@link UntrustedData}):
 *       the rolling summary of the earlier conversation when there is one (context, not instructions),
 *       retrieved passages with their file names and headings, the persona a client chose, what is
 *       remembered about the user and the context the tenant's backend set for them; and a Writing
 *       Room chat's story state, escaped between data tags after the instructions ({@link StoryStateMessage});</li>
 *   <li>the conversation: the history that fits (after what the summary holds), then the question.</li>
 * </ul>
 * Nothing a document or a client sends can change the system message. The history is what fits:
 * the prompt and the answer's {@code max_tokens} stay within the model's context, the oldest
 * messages are left out first, so a long session never overflows it.
 */
final class Prompt {

  private static final String INSTRUCTIONS =
      "Answer the user's message. When passages from the knowledge base are given, ground the answer in "
          + "them and cite them by their number, e.g. [1]. If they do not contain the answer, say so.";

  /** A message costs its role and delimiters besides its text: about four tokens in OpenAI's chat format. */
  static final int MESSAGE_OVERHEAD_TOKENS = 4;

  /**
   * What frames the summary (in the data block): the model reads it as what was said, never as
   * instructions. Its tokens are reserved besides the summary's own.
   */
  static final String SUMMARY_HEADING = UntrustedData.emptyEarlierConversation();

  private Prompt() {}

  /**
   * {@code tenantInstructions} is the tenant's persona and system prompt, or null when it configured
   * none; {@code user} what is known about the session's user.
   */
  static List<ChatMessage> messages(TurnPlan plan, String tenantInstructions, MemoryRecall.Recalled user,
      List<Passage> passages, int maxTokens, int contextTokens) {
    return messages(plan, tenantInstructions, user, passages, maxTokens, contextTokens, null, 0);
  }

  /**
   * The messages with {@code summary} (null: none) in the data block in place of the first
   * {@code summarized} messages of the history.
   */
  static List<ChatMessage> messages(TurnPlan plan, String tenantInstructions, MemoryRecall.Recalled user,
      List<Passage> passages, int maxTokens, int contextTokens, RollingSummary summary, int summarized) {
    return messages(plan, new HistoryTokens(plan.history()), tenantInstructions, user, passages, maxTokens,
        contextTokens, summary, summarized);
  }

  /** The same, with the tokens of {@code plan}'s history as far as its turn has counted them. */
  static List<ChatMessage> messages(TurnPlan plan, HistoryTokens history, String tenantInstructions,
      MemoryRecall.Recalled user, List<Passage> passages, int maxTokens, int contextTokens, RollingSummary summary,
      int summarized) {
    ChatMessage system = ChatMessage.system(system(tenantInstructions));
    UntrustedData data = new UntrustedData().earlierConversation(summary).sessionPersona(plan.persona())
        .aboutUser(user).passages(passages);
    List<ChatMessage> context = data.isEmpty() ? List.of() : List.of(ChatMessage.user(data.render()));
    ChatMessage question = ChatMessage.user(plan.message());
    Optional<ChatMessage> story = StoryStateMessage.of(plan.narrativeState());
    long budget = contextTokens - (long) maxTokens - tokens(system) - tokens(question)
        - context.stream().mapToLong(Prompt::tokens).sum() - story.map(Prompt::tokens).orElse(0L);
    List<ChatMessage> messages = new ArrayList<>();
    messages.add(system);
    story.ifPresent(messages::add);
    messages.addAll(fitting(history, Math.min(summarized, history.size()), budget));
    messages.addAll(context);
    messages.add(question);
    return messages;
  }

  /**
   * The tokens the history (and a summary) may take beside the instructions, the data without a
   * summary, the story state, the question and the answer.
   */
  static long historyBudget(TurnPlan plan, String tenantInstructions, MemoryRecall.Recalled user,
      List<Passage> passages, int maxTokens, int contextTokens) {
    UntrustedData data = new UntrustedData().sessionPersona(plan.persona()).aboutUser(user).passages(passages);
    return contextTokens - (long) maxTokens - tokens(ChatMessage.system(system(tenantInstructions)))
        - (data.isEmpty() ? 0 : tokens(ChatMessage.user(data.render())))
        - tokens(ChatMessage.user(plan.message()))
        - StoryStateMessage.of(plan.narrativeState()).map(Prompt::tokens).orElse(0L);
  }

  /**
   * What a summary costs the prompt at most: its part of the data block, and the block's own
   * introduction and tags in case there was no other data.
   */
  static ChatMessage summaryMessage(RollingSummary summary) {
    return ChatMessage.user(new UntrustedData().earlierConversation(summary).render());
  }

  /**
   * The newest messages of {@code history} from its {@code from}th on within {@code budget} tokens, starting
   * with a user's.
   */
  static List<ChatMessage> fitting(HistoryTokens history, int from, long budget) {
    List<ChatMessage> messages = history.messages();
    int first = messages.size();
    long used = 0;
    while (first > from) {
      long next = history.of(first - 1);
      if (used + next > budget) {
        break;
      }
      used += next;
      first--;
    }
    while (first < messages.size() && messages.get(first).role() != ChatMessage.Role.USER) {
      first++;
    }
    return messages.subList(first, messages.size());
  }

  static long tokens(ChatMessage message) {
    return PromptTokenCounts.of(message.content()) + MESSAGE_OVERHEAD_TOKENS;
  }

  /** The same for every turn of a tenant, whatever its documents say or its clients send. */
  static String system(String tenantInstructions) {
    StringBuilder text = new StringBuilder();
    if (tenantInstructions != null && !tenantInstructions.isBlank()) {
      text.append(tenantInstructions.strip()).append("\n\n");
    }
    return text.append(INSTRUCTIONS).append("\n\n").append(UntrustedData.RULE).toString();
  }
}
