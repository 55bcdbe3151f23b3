package dev.colloquy.engine.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tenant configuration entity with the persistence testkit, which also round-trips every
 * command, event, reply and state through the CBOR serializer.
 */
class TenantConfigurationTest {

  private static final Set<String> MODELS = Set.of("small", "large", "offline");
  private static ActorTestKit testKit;
  private static TenantConfig defaults;

  private EventSourcedBehaviorTestKit<TenantConfiguration.Command, TenantConfiguration.Event, TenantConfigState> entity;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.load());
    defaults = TenantConfig.defaults(settings.limits(), 1800, "small");
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void create() {
    entity = EventSourcedBehaviorTestKit.create(testKit.system(),
        TenantConfiguration.create("tenant-a", defaults, MODELS));
  }

  @AfterEach
  void clear() {
    entity.clear();
  }

  private TenantConfiguration.Reply update(TenantConfig change) {
    return entity.<TenantConfiguration.Reply>runCommand(replyTo -> new TenantConfiguration.Update(change, replyTo))
        .reply();
  }

  private TenantConfiguration.Current get() {
    return (TenantConfiguration.Current) entity.<TenantConfiguration.Reply>runCommand(TenantConfiguration.Get::new)
        .reply();
  }

  private static TenantConfig change(String personaName, String webhook, Double escalation, Integer turnsPerMinute) {
    return new TenantConfig(personaName, null, null, webhook, escalation, null, null, null, null, null, null, null,
        null, turnsPerMinute, null, null, null, null, null, null, null, null, null, null, null);
  }

  @Test
  void aTenantThatSetNothingHasTheDefaultsAtVersionZero() {
    TenantConfiguration.Current current = get();
    assertThat(current.version()).isZero();
    assertThat(current.config()).isEqualTo(defaults);
    assertThat(current.config().turnsPerMinute()).isEqualTo(60);
    assertThat(current.config().escalationThreshold()).isEqualTo(0.55);
  }

  @Test
  void aChangeKeepsTheFieldsItDoesNotNameAndSurvivesARestart() {
    TenantConfiguration.Current updated = (TenantConfiguration.Current) update(change("Aria", null, 0.4, 5));
    assertThat(updated.version()).isEqualTo(1);
    assertThat(updated.config().personaName()).isEqualTo("Aria");
    assertThat(updated.config().turnsPerMinute()).isEqualTo(5);
    assertThat(updated.config().autoResolveThreshold()).isEqualTo(0.80);
    assertThat(updated.newWebhookSecret()).isNull();

    update(change(null, null, null, 7));
    entity.restart();
    TenantConfiguration.Current current = get();
    assertThat(current.version()).isEqualTo(2);
    assertThat(current.config().personaName()).isEqualTo("Aria");
    assertThat(current.config().turnsPerMinute()).isEqualTo(7);
    assertThat(current.updatedAt()).isNotNull();
  }

  @Test
  void anInvalidChangeNamesEachBadFieldAndChangesNothing() {
    var result = entity.<TenantConfiguration.Reply>runCommand(replyTo -> new TenantConfiguration.Update(
        new TenantConfig(null, null, null, "ftp://example.com", 1.5, null, 0, List.of(""), null, "unknown",
            List.of("small", "small"), 5L, List.of("https://ok.example", "*"), 0, null, null, -1L, null, null,
            List.of(), null, "x".repeat(101), null, null, null), replyTo));
    assertThat(result.events()).isEmpty();
    assertThat(result.reply()).isInstanceOf(TenantConfiguration.Invalid.class);
    List<String> fields = ((TenantConfiguration.Invalid) result.reply()).problems().stream()
        .map(ConfigProblem::field).toList();
    assertThat(fields).containsExactlyInAnyOrder("escalation_webhook_url", "escalation_threshold", "auto_resolve_threshold",
        "max_turns_before_escalation", "allowed_topics", "default_model", "fan_out_models", "idle_timeout_seconds",
        "allowed_origins", "turns_per_minute", "monthly_token_budget", "languages", "company_name");
    assertThat(get().version()).isZero();
  }

  @Test
  void autoResolveBelowEscalationIsRefused() {
    TenantConfiguration.Reply reply = update(new TenantConfig(null, null, null, null, 0.9, 0.5, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null));
    assertThat(((TenantConfiguration.Invalid) reply).problems())
        .extracting(ConfigProblem::field).containsExactly("auto_resolve_threshold");
  }

  @Test
  void theWebhookSecretIsIssuedOnceWhenAUrlIsFirstSet() {
    TenantConfiguration.Current first = (TenantConfiguration.Current) update(
        change(null, "https://enterprise.example/webhooks/escalation", null, null));
    String secret = first.newWebhookSecret();
    assertThat(secret).startsWith("whsec_");
    assertThat(Base64.getDecoder().decode(secret.substring("whsec_".length()))).hasSizeGreaterThanOrEqualTo(24);

    TenantConfiguration.Current second = (TenantConfiguration.Current) update(
        change(null, "https://enterprise.example/other", null, null));
    assertThat(second.newWebhookSecret()).isNull();
    assertThat(get().newWebhookSecret()).isNull();
    entity.restart();
    var stored = entity.<TenantConfiguration.Reply>runCommand(TenantConfiguration.GetWebhookSecret::new).reply();
    assertThat(((TenantConfiguration.WebhookSecret) stored).secret()).isEqualTo(secret);
  }

  @Test
  void anEmptyUrlRemovesTheWebhook() {
    update(change(null, "https://enterprise.example/hook", null, null));
    TenantConfiguration.Current removed = (TenantConfiguration.Current) update(change(null, "", null, null));
    assertThat(removed.config().hasWebhook()).isFalse();
  }

  private static TenantConfig dataWebhook(String url) {
    return new TenantConfig(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, url);
  }

  @Test
  void aDataWebhookIssuesTheSecretTooAndMustBeAnAbsoluteHttpUrl() {
    TenantConfiguration.Reply refused = update(dataWebhook("mailto:ops@example.com"));
    assertThat(((TenantConfiguration.Invalid) refused).problems()).extracting(ConfigProblem::field)
        .containsExactly("data_webhook_url");

    TenantConfiguration.Current first = (TenantConfiguration.Current) update(dataWebhook("https://crm.example/lookup"));
    assertThat(first.newWebhookSecret()).startsWith("whsec_");
    assertThat(first.config().dataWebhookUrl()).isEqualTo("https://crm.example/lookup");
    TenantConfiguration.Current escalation = (TenantConfiguration.Current) update(
        change(null, "https://enterprise.example/hook", null, null));
    assertThat(escalation.newWebhookSecret()).as("one secret signs both webhooks").isNull();

    entity.restart();
    assertThat(get().config().hasDataWebhook()).isTrue();
    assertThat(((TenantConfiguration.Current) update(dataWebhook(""))).config().hasDataWebhook()).isFalse();
  }
}
