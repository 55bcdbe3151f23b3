package dev.colloquy.app;

import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.agent.ConfiguredWebhookTargets;
import dev.colloquy.engine.agent.EgressGuard;
import dev.colloquy.engine.agent.HttpWebhookSender;
import dev.colloquy.engine.agent.WebhookDispatcher;
import dev.colloquy.engine.observe.EngineMetrics;
import dev.colloquy.persistence.agent.JdbcWebhookOutbox;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;

/** The delivery of the escalation webhooks on this node: the outbox table, the tenants' targets, the guarded sender. */
final class Webhooks {

  private Webhooks() {}

  static void start(ActorSystem<?> system, ColloquySettings settings, DataSource dataSource, EngineMetrics metrics,
      Executor blocking) {
    system.systemActorOf(
        WebhookDispatcher.create(new JdbcWebhookOutbox(dataSource),
            new ConfiguredWebhookTargets(system, settings.http().askTimeout()),
            new HttpWebhookSender(new EgressGuard(settings.agent().egressAllow()), settings.agent().webhooks().timeout()),
            settings.agent().webhooks(), metrics, blocking),
        "webhook-dispatcher", Props.empty());
  }
}
