package dev.colloquy.engine.agent;

import java.net.URI;
import java.util.concurrent.CompletionStage;

/** Posts one signed webhook; the stage fails with a message that says why when the receiver did not take it. */
public interface WebhookSender {

  /** {@code signature} is the {@code webhook-signature} header; {@code timestamp} is in Unix seconds. */
  CompletionStage<Void> send(URI url, String webhookId, long timestamp, String signature, String body);
}
