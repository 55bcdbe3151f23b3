package dev.colloquy.engine.agent;

import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.Timeouts;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.observe.TurnLogContext;
import dev.colloquy.engine.tenant.TenantConfig;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The language middleware's way in (seed 004 §9), the first step of a turn: detects the message's
 * language and, when the tenant's configuration asks for translation ({@code translate}) and the
 * message is not in the tenant's language (the first of its {@code languages}), has the model
 * translate it. Every other case is a passthrough: detection off or unsure, no translation asked, no
 * model, or a translation that failed. A function of the turn rather than an actor of its own: the
 * turn's supervisor gets its result as one message.
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

  private LanguageStep() {}

  private static final Logger log = LoggerFactory.getLogger(LanguageStep.class);

  /**
   * Detects the language of {@code message} and translates it when the tenant asks for it; never
   * fails: whatever goes wrong, the message passes through. {@code model} translates when present;
   * without it every message passes through. {@code logContext} is the turn's, for the lines written
   * on the threads that finish the step.
   */
  public static CompletionStage<Detected> detect(String tenantId, String message, Optional<ChatModel> model,
      String modelName, AgentServices agent, Map<String, String> logContext) {
    CompletableFuture<String> language = Timeouts.within(CompletableFuture
            .supplyAsync(() -> agent.language().detect(message).orElse(null), agent.blocking()),
            agent.settings().stepTimeout())
        .exceptionally(failure -> {
          TurnLogContext.run(logContext, () -> log.warn("Language detection failed ({}); the message passes through",
              failure.getClass().getName()));
          return null;
        });
    CompletableFuture<TenantConfig> config =
        agent.policies().config(tenantId).toCompletableFuture().exceptionally(failure -> TenantConfig.NO_CHANGE);
    return language.thenCombine(config, Known::new)
        .thenCompose(known -> {
          String agentLanguage = agentLanguage(known.config());
          if (!translates(known, agentLanguage) || model.isEmpty()) {
            return CompletableFuture.completedFuture(new Detected(known.language(), message, null, agentLanguage, null));
          }
          return ModelAnswer.of(model.get(), Translation.request(modelName, message, known.language(), agentLanguage),
                  agent.settings().stepTimeout())
              .handle((answer, failure) -> translated(known.language(), agentLanguage, message, model.get(), modelName,
                  answer, failure, logContext));
        });
  }

  /**
   * What the turn goes on with should the step itself fail (a bug, since {@link #detect} never fails on
   * purpose): the message as it was sent, its language unknown.
   */
  public static Detected passThrough(String message) {
    return new Detected(null, message, null, agentLanguage(TenantConfig.NO_CHANGE), null);
  }

  private record Known(String language, TenantConfig config) {}

  private static Detected translated(String language, String agentLanguage, String message, ChatModel model,
      String modelName, ModelAnswer.Answer answer, Throwable failure, Map<String, String> logContext) {
    if (failure != null || answer.text().isBlank()) {
      TurnLogContext.run(logContext, () -> log.info("The message could not be translated ({}); it passes through",
          failure == null ? "empty answer" : StageFailures.cause(failure).getClass().getSimpleName()));
      return new Detected(language, message, null, agentLanguage,
          answer == null ? null : answer.call(AgentCall.TRANSLATION, model, modelName));
    }
    return new Detected(language, answer.text().strip(), language, agentLanguage,
        answer.call(AgentCall.TRANSLATION, model, modelName));
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
}
