package dev.colloquy.engine.agent;

import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.observe.EngineMetrics;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the webhooks of the outbox, on every node: it leases the due ones, signs each with its
 * tenant's secret (Standard Webhooks), posts it, and records the outcome. A failed attempt is
 * retried after an exponential backoff with jitter, up to the configured retries; then the webhook
 * is given up and billed as failed. A crash between an attempt and its record only means that the
 * webhook is posted again, with the same {@code webhook-id}, for the receiver to recognise.
 */
public final class WebhookDispatcher {

  private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);

  /** Webhooks one node takes at a time. */
  static final int BATCH = 16;

  public sealed interface Command {}

  private record Tick() implements Command {}

  private record BatchDone(int count, Throwable failure) implements Command {}

  private WebhookDispatcher() {}

  public static Behavior<Command> create(WebhookOutbox outbox, WebhookTargets targets, WebhookSender sender,
      AgentSettings.Webhooks settings, EngineMetrics metrics, Executor blocking) {
    Delivery delivery = new Delivery(outbox, targets, sender, settings, metrics, blocking);
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(new Tick(), settings.pollInterval());
      return idle(context, delivery);
    }));
  }

  private static Behavior<Command> idle(ActorContext<Command> context, Delivery delivery) {
    return Behaviors.receive(Command.class)
        .onMessage(Tick.class, tick -> {
          context.pipeToSelf(delivery.runBatch(), BatchDone::new);
          return busy(context, delivery);
        })
        .onMessage(BatchDone.class, done -> Behaviors.same())
        .build();
  }

  /** One batch at a time: ticks that come while one runs are dropped. */
  private static Behavior<Command> busy(ActorContext<Command> context, Delivery delivery) {
    return Behaviors.receive(Command.class)
        .onMessage(Tick.class, tick -> Behaviors.same())
        .onMessage(BatchDone.class, done -> {
          if (done.failure() != null) {
            log.warn("The webhook outbox could not be read ({}); trying again shortly",
                done.failure().getClass().getName());
          }
          return idle(context, delivery);
        })
        .build();
  }

  /** The work of one batch, off the actor. */
  private record Delivery(WebhookOutbox outbox, WebhookTargets targets, WebhookSender sender,
      AgentSettings.Webhooks settings, EngineMetrics metrics, Executor blocking) {

    CompletionStage<Integer> runBatch() {
      Duration lease = settings.timeout().multipliedBy(3);
      return CompletableFuture.supplyAsync(() -> outbox.lease(BATCH, lease), blocking)
          .thenCompose(due -> CompletableFuture.allOf(due.stream().map(this::deliver)
                  .map(CompletionStage::toCompletableFuture).toArray(CompletableFuture[]::new))
              .thenApply(done -> due.size()));
    }

    private CompletionStage<Void> deliver(WebhookOutbox.Pending webhook) {
      int attempt = webhook.attempts() + 1;
      return targets.target(webhook.tenantId())
          .thenCompose(target -> target.isPresent() ? post(webhook, target.get())
              : CompletableFuture.<Optional<String>>completedFuture(Optional.of(NO_TARGET)))
          .exceptionally(failure -> Optional.of(describe(failure)))
          .thenAcceptAsync(error -> record(webhook, attempt, error.orElse(null)), blocking)
          .exceptionally(failure -> {
            log.warn("The outcome of webhook {} could not be recorded ({}); it will be attempted again",
                webhook.webhookId(), failure.getClass().getName());
            return null;
          });
    }

    private CompletionStage<Optional<String>> post(WebhookOutbox.Pending webhook, WebhookTargets.Target target) {
      long timestamp = Instant.now().getEpochSecond();
      String signature = StandardWebhooks.signature(target.secret(), webhook.webhookId(), timestamp, webhook.payload());
      return sender.send(URI.create(target.url()), webhook.webhookId(), timestamp, signature, webhook.payload())
          .thenApply(sent -> Optional.<String>empty());
    }

    private void record(WebhookOutbox.Pending webhook, int attempt, String error) {
      if (error == null) {
        outbox.delivered(webhook.webhookId(), attempt);
        metrics.webhookAttempt("delivered");
        log.info("Webhook {} ({}) delivered at attempt {}", webhook.webhookId(), webhook.eventType(), attempt);
      } else if (error.equals(NO_TARGET) || attempt > settings.maxRetries()) {
        outbox.failed(webhook, attempt, error);
        metrics.webhookAttempt("failed");
        log.warn("Webhook {} ({}) given up after {} attempts: {}", webhook.webhookId(), webhook.eventType(), attempt,
            error);
      } else {
        Duration wait = backoff(attempt, settings.initialBackoff(), settings.maxBackoff());
        outbox.retryAt(webhook.webhookId(), attempt, Instant.now().plus(wait), error);
        metrics.webhookAttempt("retry");
        log.info("Webhook {} ({}) attempt {} failed ({}); next attempt in {} ms", webhook.webhookId(),
            webhook.eventType(), attempt, error, wait.toMillis());
      }
    }
  }

  static final String NO_TARGET = "the tenant has no escalation webhook URL";

  /**
   * The wait after failed attempt {@code attempt} (1 for the first): the initial backoff doubled with
   * each further attempt, at most {@code max}, less a random part of up to a half, so that the
   * retries of many webhooks that failed together do not arrive together.
   */
  static Duration backoff(int attempt, Duration initial, Duration max) {
    long full = Math.min(max.toMillis(), initial.toMillis() << Math.min(attempt - 1, 30));
    long jitter = (long) (full * 0.5 * ThreadLocalRandom.current().nextDouble());
    return Duration.ofMillis(full - jitter);
  }

  private static String describe(Throwable failure) {
    Throwable cause = StageFailures.cause(failure);
    String message = cause.getMessage();
    return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
  }
}
