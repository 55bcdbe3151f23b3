package dev.colloquy.engine.turn;

import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.ChatMessage;
import java.util.ArrayList;
import java.util.List;

/** Builds the messages a model run receives: instructions with the retrieved passages, history, question. */
final class Prompt {

  private static final String INSTRUCTIONS =
      "Answer the user's message. When passages from the knowledge base are given, ground the answer in "
          + "them and cite them by their number, e.g. [1]. If they do not contain the answer, say so.";

  private Prompt() {}

  static List<ChatMessage> messages(TurnPlan plan, List<Passage> passages) {
    List<ChatMessage> messages = new ArrayList<>();
    messages.add(ChatMessage.system(system(plan.persona(), passages)));
    messages.addAll(plan.history());
    messages.add(ChatMessage.user(plan.message()));
    return messages;
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
