package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.tenant.TenantConfig;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each rule of seed 004 §7.3 and §8.3, under a tenant with a webhook, and none without one. */
class EscalationRulesTest {

  private static final TenantConfig WITH_WEBHOOK = TenantConfig.NO_CHANGE.overlay(change("https://example.com/hook", 0.6, 3));

  private static TenantConfig change(String webhook, Double threshold, Integer maxTurns) {
    return new TenantConfig(null, null, null, webhook, threshold, null, maxTurns, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null);
  }

  private static Optional<EscalationReason> decide(TenantConfig config, Intent intent, Double confidence, int prior,
      String message) {
    return EscalationRules.decide(config, intent, confidence, prior, message);
  }

  @Test
  void aDomainQueryBelowTheThresholdEscalatesForLowConfidence() {
    assertThat(decide(WITH_WEBHOOK, Intent.DOMAIN_QUERY, 0.59, 0, "How do refunds work?"))
        .contains(EscalationReason.LOW_RETRIEVAL_CONFIDENCE);
    assertThat(decide(WITH_WEBHOOK, Intent.DOMAIN_QUERY, 0.6, 0, "How do refunds work?")).isEmpty();
  }

  @Test
  void theTurnAfterMaxTurnsEscalatesWhateverItsIntent() {
    assertThat(decide(WITH_WEBHOOK, Intent.CONVERSATIONAL, null, 2, "ok")).isEmpty();
    assertThat(decide(WITH_WEBHOOK, Intent.CONVERSATIONAL, null, 3, "ok")).contains(EscalationReason.MAX_TURNS_EXCEEDED);
    assertThat(decide(WITH_WEBHOOK, Intent.DOMAIN_QUERY, 0.9, 3, "And refunds?"))
        .contains(EscalationReason.MAX_TURNS_EXCEEDED);
  }

  @Test
  void anExplicitRequestForAHumanEscalatesFirst() {
    assertThat(decide(WITH_WEBHOOK, Intent.CONVERSATIONAL, null, 0, "Can I talk to a human please?"))
        .contains(EscalationReason.USER_REQUESTED);
    assertThat(decide(WITH_WEBHOOK, Intent.DOMAIN_QUERY, 0.1, 5, "connect me to a real person"))
        .contains(EscalationReason.USER_REQUESTED);
    assertThat(EscalationRules.asksForHuman("I want to speak to your manager")).isTrue();
    assertThat(EscalationRules.asksForHuman("This is useless, get me a manager")).isTrue();
    assertThat(EscalationRules.asksForHuman("How do I talk about billing with my insurer?")).isFalse();
  }

  @Test
  void outOfScopeNeverEscalates() {
    assertThat(decide(WITH_WEBHOOK, Intent.OUT_OF_SCOPE, null, 50, "let me talk to a human about football")).isEmpty();
  }

  @Test
  void aTenantWithoutAWebhookHasNoOneToEscalateTo() {
    TenantConfig without = TenantConfig.NO_CHANGE.overlay(change(null, 0.6, 3));
    assertThat(decide(without, Intent.DOMAIN_QUERY, 0.0, 10, "talk to a human")).isEmpty();
  }
}
