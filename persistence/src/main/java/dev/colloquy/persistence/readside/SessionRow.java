package dev.colloquy.persistence.readside;

import java.time.Instant;

/** A session as the session list shows it. */
public record SessionRow(
    String sessionId,
    String status,
    String title,
    Instant createdAt,
    Instant lastActivityAt,
    Instant closedAt,
    String closeReason,
    int turnCount,
    long promptTokens,
    long completionTokens,
    double costUsd) {}
