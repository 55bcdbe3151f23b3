package dev.colloquy.engine.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.Timeouts;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.domain.AgentCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The last step of an answered turn in a user's session (seed 002): notes 0 to 5 facts about the
 * user from the message and the answer, with the model (a JSON array of strings) or, when it does not
 * give one, the {@link OfflineFactExtractor}; stores those the user does not have yet; reports them.
 */
public final class MemoryExtraction {

  /**
   * The facts stored by this turn (empty when there were none, or they could not be stored);
   * {@code call} is the model's extraction call with its tokens (its cost is left to the turn to
   * price), null when no call answered.
   */
  public record Noted(List<String> facts, AgentCall call) {}

  public sealed interface Command {}

  private record Extracted(Facts facts, Throwable failure) implements Command {}

  private record Stored(List<Memory> stored, AgentCall call, Throwable failure) implements Command {}

  /** The facts found, and the model call that found them (null when the rules did). */
  private record Facts(List<String> facts, AgentCall call) {}

  static final int MAX_TOKENS = 200;
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String INSTRUCTIONS = "Extract facts about the user that are worth remembering in future "
      + "conversations: their preferences, decisions, constraints and personal details they shared. Only facts the "
      + "user stated, each one short sentence in the third person (\"The user ...\"). At most "
      + OfflineFactExtractor.MAX_FACTS + ", often none. Reply with a JSON array of strings only, [] when there is nothing.";

  private MemoryExtraction() {}

  /** {@code model} extracts when present; empty means the rules do. */
  public static Behavior<Command> create(String tenantId, String userId, String sessionId, String message,
      String answer, Optional<ChatModel> model, String modelName, AgentServices agent, ActorRef<Noted> replyTo) {
    return Behaviors.setup(context -> {
      context.pipeToSelf(facts(message, answer, model, modelName, agent), Extracted::new);
      return Behaviors.receive(Command.class)
          .onMessage(Extracted.class, extracted -> {
            List<String> facts = extracted.failure() == null ? extracted.facts().facts()
                : OfflineFactExtractor.extract(message);
            AgentCall call = extracted.failure() == null ? extracted.facts().call() : null;
            if (facts.isEmpty()) {
              replyTo.tell(new Noted(List.of(), call));
              return Behaviors.stopped();
            }
            context.pipeToSelf(Timeouts.within(CompletableFuture.supplyAsync(
                () -> agent.memories().remember(tenantId, userId, facts, "extraction", sessionId), agent.blocking()),
                agent.settings().stepTimeout()),
                (stored, failure) -> new Stored(stored, call, failure));
            return Behaviors.same();
          })
          .onMessage(Stored.class, stored -> report(context, stored, replyTo))
          .build();
    });
  }

  private static Behavior<Command> report(ActorContext<Command> context, Stored stored, ActorRef<Noted> replyTo) {
    if (stored.failure() != null) {
      context.getLog().warn("The facts noted about the user could not be stored ({})",
          stored.failure().getClass().getName());
      replyTo.tell(new Noted(List.of(), stored.call()));
    } else {
      replyTo.tell(new Noted(stored.stored().stream().map(Memory::content).toList(), stored.call()));
    }
    return Behaviors.stopped();
  }

  private static CompletionStage<Facts> facts(String message, String answer, Optional<ChatModel> model,
      String modelName, AgentServices agent) {
    if (model.isEmpty() || agent.settings().memory().extraction() != AgentSettings.Extraction.MODEL) {
      return CompletableFuture.completedFuture(new Facts(OfflineFactExtractor.extract(message), null));
    }
    ChatRequest request = new ChatRequest(modelName, List.of(ChatMessage.system(INSTRUCTIONS),
        ChatMessage.user("User: " + message + "\nAssistant: " + answer)), List.of(), MAX_TOKENS);
    return ModelAnswer.of(model.get(), request, agent.settings().stepTimeout())
        .thenApply(answered -> new Facts(parse(answered.text()).orElseGet(() -> OfflineFactExtractor.extract(message)),
            answered.call(AgentCall.EXTRACTION, model.get(), modelName)));
  }

  /** The answer as at most five non-blank strings, if it is a JSON array of strings (a code fence around it is fine). */
  static Optional<List<String>> parse(String answer) {
    String json = answer.strip().replaceAll("^```(?:json)?\\s*|\\s*```$", "");
    try {
      JsonNode array = JSON.readTree(json);
      if (array == null || !array.isArray()) {
        return Optional.empty();
      }
      List<String> facts = new ArrayList<>();
      for (JsonNode fact : array) {
        if (!fact.isTextual()) {
          return Optional.empty();
        }
        if (!fact.asText().isBlank() && facts.size() < OfflineFactExtractor.MAX_FACTS) {
          facts.add(fact.asText().strip());
        }
      }
      return Optional.of(facts);
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
  }
}
