package dev.colloquy.persistence.readside;

import java.time.Instant;

/** A chat as the chat list shows it: {@code updatedAt} is when a turn last began or ended, or when it was opened. */
public record ChatRow(String chatId, String userId, String characterId, String title, Instant createdAt,
    Instant updatedAt) {}
