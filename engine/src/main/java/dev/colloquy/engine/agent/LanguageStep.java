package dev.colloquy.engine.agent;

import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.tenant.TenantConfig;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The language middleware's way in (seed 004 §9), the first step of a turn: detects the message's
 * language and, when the tenant's configuration asks for translation ({@code translate}) and the
 * message is not in the tenant's language (the first of its {@code languages}), has the model
 * translate it. Every other case is a passthrough: detection off or unsure, no translation asked, no
 * model, or a translation that failed. Reports once and stops.
 */
public final class LanguageStep {

  /**
   * What the turn works with: the detected {@code language} (null when unknown), the {@code message}
   * the agent reads (translated or not), the language its answers are translated back into (null: they
   * are not), and the translation call (null when there was none).
   */
  public record Detected(String language, String message, String answerLanguage, String agentLanguage,
      AgentCall call) {

    public boolean translatesAnswers() {
      return answerLanguage != null;
    }
  }

  public sealed interface Command {}

  private record Known(String language, TenantConfig config) implements Command {}

  private record Translated(ModelAnswer.Answer answer, Throwable failure) implements Command {}

  private LanguageStep() {}

  /** {@code model} translates when present; without it every message passes through. */
  public static Behavior<Command> create(String tenantId, String message, Optional<ChatModel> model, String modelName,
      AgentServices agent, ActorRef<Detected> replyTo) {
    return Behaviors.setup(context -> {
      CompletableFuture<String> language = CompletableFuture
          .supplyAsync(() -> agent.language().detect(message).orElse(null), agent.blocking())
          .orTimeout(agent.settings().stepTimeout().toMillis(), TimeUnit.MILLISECONDS)
          .exceptionally(failure -> {
            context.getSystem().log().warn("Language detection failed ({}); the message passes through",
                failure.getClass().getName());
            return null;
          });
      context.pipeToSelf(language.thenCombine(
          agent.policies().config(tenantId).toCompletableFuture().exceptionally(failure -> TenantConfig.NO_CHANGE),
          Known::new), (known, failure) -> known != null ? known : new Known(null, TenantConfig.NO_CHANGE));
      return Behaviors.receive(Command.class)
          .onMessage(Known.class, known -> {
            String agentLanguage = agentLanguage(known.config());
            if (!translates(known, agentLanguage) || model.isEmpty()) {
              return report(new Detected(known.language(), message, null, agentLanguage, null), replyTo);
            }
            context.pipeToSelf(ModelAnswer.of(model.get(),
                Translation.request(modelName, message, known.language(), agentLanguage),
                agent.settings().stepTimeout()), Translated::new);
            return translating(context, known.language(), agentLanguage, message, model.get(), modelName, replyTo);
          })
          .build();
    });
  }

  private static Behavior<Command> translating(ActorContext<Command> context, String language, String agentLanguage,
      String message, ChatModel model, String modelName, ActorRef<Detected> replyTo) {
    return Behaviors.receive(Command.class)
        .onMessage(Translated.class, translated -> {
          if (translated.failure() != null || translated.answer().text().isBlank()) {
            context.getLog().info("The message could not be translated ({}); it passes through",
                translated.failure() == null ? "empty answer" : translated.failure().getClass().getSimpleName());
            return report(new Detected(language, message, null, agentLanguage,
                translated.answer() == null ? null : translated.answer().call(AgentCall.TRANSLATION, model, modelName)),
                replyTo);
          }
          return report(new Detected(language, translated.answer().text().strip(), language, agentLanguage,
              translated.answer().call(AgentCall.TRANSLATION, model, modelName)), replyTo);
        })
        .build();
  }

  /** The language the tenant's agent works in: the first of its languages, English when it has none. */
  static String agentLanguage(TenantConfig config) {
    return config.languages() == null || config.languages().isEmpty() ? "en"
        : Translation.primary(config.languages().getFirst());
  }

  private static boolean translates(Known known, String agentLanguage) {
    return Boolean.TRUE.equals(known.config().translate()) && known.language() != null
        && !known.language().equals(agentLanguage);
  }

  private static Behavior<Command> report(Detected detected, ActorRef<Detected> replyTo) {
    replyTo.tell(detected);
    return Behaviors.stopped();
  }
}
