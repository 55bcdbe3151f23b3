package dev.colloquy.engine.agent;

import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.tenant.TenantConfig;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * When a turn hands its session to a human (seed 004 §7.3, §8.3), decided from the tenant's
 * configuration. Only a tenant with an escalation webhook escalates: without one there is no human
 * to hand the conversation to, and the user would be left waiting. An out-of-scope message never
 * escalates: it is a boundary, not a knowledge gap.
 */
public final class EscalationRules {

  /** Seed 004's defaults, for a configuration that does not set them. */
  static final double DEFAULT_THRESHOLD = 0.55;
  static final int DEFAULT_MAX_TURNS = 10;

  private static final List<Pattern> ASKS_FOR_HUMAN = List.of(
      Pattern.compile("\\b(talk|speak|chat|connect|transfer|put)\\b.{0,30}\\b(human|person|someone|somebody|agent|"
          + "representative|rep|operator|staff|manager|supervisor|executive)\\b", Pattern.CASE_INSENSITIVE),
      Pattern.compile("\\b(real|live|actual|human)\\s+(person|human|agent|being|support)\\b", Pattern.CASE_INSENSITIVE),
      Pattern.compile("\\b(get|give|find|fetch)\\s+me\\s+(a\\s+|an\\s+|the\\s+|your\\s+)?(human|person|manager|supervisor|"
          + "agent|representative|operator)\\b", Pattern.CASE_INSENSITIVE),
      Pattern.compile("\\b(customer care|representative|escalate)\\b", Pattern.CASE_INSENSITIVE));

  private EscalationRules() {}

  /**
   * The reason this turn escalates, if it does. {@code confidence} is retrieval's, known only for a
   * domain query; {@code priorTurns} are the turns the session completed before this one.
   */
  public static Optional<EscalationReason> decide(TenantConfig config, Intent intent, Double confidence,
      int priorTurns, String message) {
    if (!config.hasWebhook() || intent == Intent.OUT_OF_SCOPE) {
      return Optional.empty();
    }
    if (asksForHuman(message)) {
      return Optional.of(EscalationReason.USER_REQUESTED);
    }
    double threshold = config.escalationThreshold() != null ? config.escalationThreshold() : DEFAULT_THRESHOLD;
    if (intent == Intent.DOMAIN_QUERY && confidence != null && confidence < threshold) {
      return Optional.of(EscalationReason.LOW_RETRIEVAL_CONFIDENCE);
    }
    int maxTurns = config.maxTurnsBeforeEscalation() != null ? config.maxTurnsBeforeEscalation() : DEFAULT_MAX_TURNS;
    if (priorTurns >= maxTurns) {
      return Optional.of(EscalationReason.MAX_TURNS_EXCEEDED);
    }
    return Optional.empty();
  }

  public static boolean asksForHuman(String message) {
    return ASKS_FOR_HUMAN.stream().anyMatch(pattern -> pattern.matcher(message).find());
  }
}
