package dev.colloquy.persistence.dialect;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** Which session a turn belongs to, for routes that name a turn without its session. */
public interface TurnSessions {

  /** Records that {@code turnId} is a turn of {@code sessionId}, a session of {@code tenantId}. */
  CompletionStage<Void> record(String turnId, String sessionId, String tenantId);

  /** The session of {@code turnId} if it is a turn of {@code tenantId}'s; another tenant's turn is not found. */
  CompletionStage<Optional<String>> sessionOf(String turnId, String tenantId);
}
