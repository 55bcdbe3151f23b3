package dev.colloquy.engine.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The outbox of webhooks waiting to be delivered, filled by the read side from the journal. Several
 * nodes may deliver from it: a webhook is leased to one of them at a time. Blocking: call it off the
 * actors' dispatcher.
 */
public interface WebhookOutbox {

  /** A webhook to deliver: its id (the same on every attempt), its tenant, its body and the attempts made. */
  record Pending(String webhookId, String tenantId, String sessionId, String eventType, String payload, int attempts) {}

  /** Up to {@code max} due webhooks, leased to the caller for {@code lease}. */
  List<Pending> lease(int max, Duration lease);

  void delivered(String webhookId, int attempts);

  /** The attempt failed; the next is due at {@code nextAttempt}. */
  void retryAt(String webhookId, int attempts, Instant nextAttempt, String error);

  /** The last attempt failed (or there is nowhere to send it): given up, and billed as a failed escalation webhook. */
  void failed(Pending webhook, int attempts, String error);
}
