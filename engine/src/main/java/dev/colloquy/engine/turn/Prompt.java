package dev.colloquy.engine.turn;

import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.TokenCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds the messages a model run receives: instructions with the retrieved passages, a Writing Room
 * chat's story state, history, question. The history is what fits: the prompt and the answer's {@code max_tokens} stay within
 * the model's context, the oldest messages are left out first, so a long session never overflows it.
 */
final class Prompt {

  private static final String INSTRUCTIONS =
      "Answer the user's message. When passages from the knowledge base are given, ground the answer in "
          + "them and cite them by their number, e.g. [1]. If they do not contain the answer, say so.";

  /** A message costs its role and delimiters besides its text: about four tokens in OpenAI's chat format. */
  static final int MESSAGE_OVERHEAD_TOKENS = 4;

  private Prompt() {}

  static List<ChatMessage> messages(TurnPlan plan, List<Passage> passages, int maxTokens, int contextTokens) {
    ChatMessage system = ChatMessage.system(system(plan.persona(), passages));
    ChatMessage question = ChatMessage.user(plan.message());
    Optional<ChatMessage> story = StoryStateMessage.of(plan.narrativeState());
    long budget = contextTokens - (long) maxTokens - tokens(system) - tokens(question)
        - story.map(Prompt::tokens).orElse(0L);
    List<ChatMessage> messages = new ArrayList<>();
    messages.add(system);
    story.ifPresent(messages::add);
    messages.addAll(fitting(plan.history(), budget));
    messages.add(question);
    return messages;
  }

  /** The newest messages of {@code history} within {@code budget} tokens, starting with a user's. */
  static List<ChatMessage> fitting(List<ChatMessage> history, long budget) {
    int first = history.size();
    long used = 0;
    while (first > 0 && used + tokens(history.get(first - 1)) <= budget) {
      used += tokens(history.get(--first));
    }
    while (first < history.size() && history.get(first).role() != ChatMessage.Role.USER) {
      first++;
    }
    return history.subList(first, history.size());
  }

  private static long tokens(ChatMessage message) {
    return TokenCounter.count(message.content()) + MESSAGE_OVERHEAD_TOKENS;
  }

  private static String system(String persona, List<Passage> passages) {
    StringBuilder text = new StringBuilder();
    if (persona != null && !persona.isBlank()) {
      text.append(persona.strip()).append("\n\n");
    }
    text.append(INSTRUCTIONS);
    for (int i = 0; i < passages.size(); i++) {
      Passage passage = passages.get(i);
      text.append("\n\n[").append(i + 1).append("] ").append(passage.source());
      if (passage.section() != null && !passage.section().isBlank()) {
        text.append(" — ").append(passage.section());
      }
      text.append("\n").append(passage.text());
    }
    return text.toString();
  }
}
