package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import java.time.Instant;
import java.util.Map;

/**
 * What a closed session amounts to, for the caller and for billing: its turns, tokens and cost per
 * {@code provider/model}, and how long it was open.
 */
public record SessionSummary(
    int turns,
    int completedTurns,
    Map<String, Usage> usageByModel,
    Instant openedAt,
    Instant closedAt,
    long durationMs)
    implements CborSerializable {

  public SessionSummary {
    usageByModel = Map.copyOf(usageByModel);
  }
}
