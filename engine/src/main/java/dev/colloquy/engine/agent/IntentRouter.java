package dev.colloquy.engine.agent;

import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.tenant.TenantConfig;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The first step of a turn (seed 004 §8.1): reads the tenant's configuration, then classifies the
 * message with one short model call, or with the {@link OfflineIntentClassifier} when no model
 * routes, the call fails or takes too long, or its answer is not one of the three intents. Reports
 * once, with who decided, and stops.
 */
public final class IntentRouter {

  /**
   * The routing of the message and the configuration it was routed under; {@code call} is the
   * model's routing call with its tokens (its cost is left to the turn to price), null when no call
   * answered.
   */
  public record Routed(Intent intent, String source, TenantConfig config, AgentCall call) {}

  public sealed interface Command {}

  private record ConfigKnown(TenantConfig config, Throwable failure) implements Command {}

  private record Answered(TenantConfig config, ModelAnswer.Answer answer, AgentCall call, Throwable failure)
      implements Command {}

  /** A one-word answer: a little room for a model that adds punctuation or a newline. */
  static final int MAX_TOKENS = 8;

  static final String SYSTEM = "You are a precise classifier. Reply with one word only.";

  private IntentRouter() {}

  /** {@code model} routes when present; empty means the offline classifier does. */
  public static Behavior<Command> create(String tenantId, String message, Optional<ChatModel> model, String modelName,
      AgentServices agent, ActorRef<Routed> replyTo) {
    return Behaviors.setup(context -> {
      context.pipeToSelf(agent.policies().config(tenantId), ConfigKnown::new);
      return Behaviors.receive(Command.class)
          .onMessage(ConfigKnown.class, known -> {
            TenantConfig config = known.config() != null ? known.config() : TenantConfig.NO_CHANGE;
            if (model.isEmpty()) {
              return report(offline(message, config, null), replyTo);
            }
            ChatRequest request = new ChatRequest(modelName,
                List.of(ChatMessage.system(SYSTEM), ChatMessage.user(prompt(message, config))), List.of(), MAX_TOKENS);
            context.pipeToSelf(ModelAnswer.of(model.get(), request, agent.settings().stepTimeout()),
                (answer, failure) -> new Answered(config, answer,
                    answer == null ? null : answer.call(AgentCall.ROUTING, model.get(), modelName), failure));
            return Behaviors.same();
          })
          .onMessage(Answered.class, answered -> report(decide(context, message, answered), replyTo))
          .build();
    });
  }

  private static Routed decide(ActorContext<Command> context, String message, Answered answered) {
    if (answered.failure() != null) {
      context.getLog().info("The model did not route the message ({}); the offline rules do",
          answered.failure().getClass().getSimpleName());
      return offline(message, answered.config(), null);
    }
    Optional<Intent> intent = Intent.parse(answered.answer().text());
    if (intent.isEmpty()) {
      context.getLog().info("The model's routing answer is not an intent; the offline rules route the message");
      return offline(message, answered.config(), answered.call());
    }
    return new Routed(intent.get(), AgentTrace.BY_MODEL, answered.config(), answered.call());
  }

  private static Routed offline(String message, TenantConfig config, AgentCall call) {
    return new Routed(OfflineIntentClassifier.classify(message, config.allowedTopics(), config.blockedTopics()),
        AgentTrace.OFFLINE, config, call);
  }

  private static Behavior<Command> report(Routed routed, ActorRef<Routed> replyTo) {
    replyTo.tell(routed);
    return Behaviors.stopped();
  }

  /** Seed 004 §8.1's classification prompt, with the tenant's vertical and topics. */
  static String prompt(String message, TenantConfig config) {
    String topics = config.allowedTopics() == null || config.allowedTopics().isEmpty()
        ? "anything related to the business and its products, policies and services"
        : String.join(", ", config.allowedTopics());
    String vertical = config.vertical() == null || config.vertical().isBlank() ? "customer support" : config.vertical();
    return "You are a router for a customer support agent in the " + vertical + " industry.\n"
        + "The agent handles these topics only: " + topics + "\n\n"
        + "Classify the user message into exactly one category:\n"
        + "- \"conversational\": greetings, thanks, acknowledgements, small talk, vague openers like \"I need help\", "
        + "\"okay\", \"can you assist me\"\n"
        + "- \"domain_query\": a specific question requiring knowledge about products, policies, procedures, "
        + "pricing, or real-time data\n"
        + "- \"out_of_scope\": asking about anything outside the agent's listed topics\n\n"
        + "User message: \"" + message.replace("\"", "'") + "\"\n\n"
        + "Reply with exactly one word. No explanation. No punctuation.";
  }
}
