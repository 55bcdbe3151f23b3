package dev.colloquy.engine.agent;

import java.time.Instant;

/**
 * One fact the agent keeps about a user of a tenant (seed 002's {@code agent_memories}): stored by
 * extraction after a turn ({@code extraction}) or at the user's request ({@code tool}).
 */
public record Memory(String memoryId, String content, String source, Instant createdAt) {}
