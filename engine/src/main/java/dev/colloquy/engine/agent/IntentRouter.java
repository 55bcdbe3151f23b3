package dev.colloquy.engine.agent;

import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.observe.TurnLogContext;
import dev.colloquy.engine.tenant.TenantConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first step of a turn (seed 004 §8.1): reads the tenant's configuration, then classifies the
 * message with one short model call, or with the {@link OfflineIntentClassifier} when no model
 * routes, the call fails or takes too long, or its answer is not one of the three intents. Its result
 * says who decided. A function of the turn rather than an actor of its own: the turn's supervisor
 * gets its result as one message.
 */
public final class IntentRouter {

  /**
   * The routing of the message and the configuration it was routed under; {@code call} is the
   * model's routing call with its tokens (its cost is left to the turn to price), null when no call
   * answered.
   */
  public record Routed(Intent intent, String source, TenantConfig config, AgentCall call) {}

  /** A one-word answer: a little room for a model that adds punctuation or a newline. */
  static final int MAX_TOKENS = 8;

  static final String SYSTEM = "You are a precise classifier. Reply with one word only.";

  private IntentRouter() {}

  private static final Logger log = LoggerFactory.getLogger(IntentRouter.class);

  /**
   * Routes {@code message}; never fails. {@code model} routes when present; empty means the offline
   * classifier does. {@code logContext} is the turn's, for the lines written on the threads that
   * finish the step.
   */
  public static CompletionStage<Routed> route(String tenantId, String message, Optional<ChatModel> model,
      String modelName, AgentServices agent, Map<String, String> logContext) {
    return agent.policies().config(tenantId)
        .handle((known, failure) -> known != null ? known : TenantConfig.NO_CHANGE)
        .thenCompose(config -> {
          if (model.isEmpty()) {
            return CompletableFuture.completedFuture(offline(message, config, null));
          }
          ChatRequest request = new ChatRequest(modelName,
              List.of(ChatMessage.system(SYSTEM), ChatMessage.user(prompt(message, config))), List.of(), MAX_TOKENS);
          return ModelAnswer.of(model.get(), request, agent.settings().stepTimeout())
              .handle((answer, failure) -> decide(message, config,
                  answer, answer == null ? null : answer.call(AgentCall.ROUTING, model.get(), modelName), failure,
                  logContext));
        });
  }

  private static Routed decide(String message, TenantConfig config, ModelAnswer.Answer answer, AgentCall call,
      Throwable failure, Map<String, String> logContext) {
    if (failure != null) {
      TurnLogContext.run(logContext, () -> log.info("The model did not route the message ({}); the offline rules do",
          StageFailures.cause(failure).getClass().getSimpleName()));
      return offline(message, config, null);
    }
    Optional<Intent> intent = Intent.parse(answer.text());
    if (intent.isEmpty()) {
      TurnLogContext.run(logContext,
          () -> log.info("The model's routing answer is not an intent; the offline rules route the message"));
      return offline(message, config, call);
    }
    return new Routed(intent.get(), AgentTrace.BY_MODEL, config, call);
  }

  /**
   * What the turn goes on with should routing itself fail (a bug, since {@link #route} never fails on
   * purpose): a domain query, the offline rules' own default.
   */
  public static Routed unrouted() {
    return new Routed(Intent.DOMAIN_QUERY, AgentTrace.OFFLINE, TenantConfig.NO_CHANGE, null);
  }

  private static Routed offline(String message, TenantConfig config, AgentCall call) {
    return new Routed(OfflineIntentClassifier.classify(message, config.allowedTopics(), config.blockedTopics()),
        AgentTrace.OFFLINE, config, call);
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
