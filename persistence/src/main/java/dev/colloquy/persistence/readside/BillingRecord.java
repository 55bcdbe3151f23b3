package dev.colloquy.persistence.readside;

import java.time.Instant;

/**
 * One row of {@code billing_events}: a {@code session_start}, or a {@code session_end} with why the
 * session ended and its totals; the totals are null on a start. {@code usageByModel} is a JSON
 * object {"provider/model": {prompt_tokens, completion_tokens, cost_usd}}.
 */
public record BillingRecord(String sessionId, String kind, String tenantId, Instant occurredAt, String reason,
    Integer turns, Integer completedTurns, Long promptTokens, Long completionTokens, Double costUsd,
    Long durationMs, String usageByModel) {}
