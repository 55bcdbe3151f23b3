package dev.colloquy.engine.agent;

import com.fasterxml.jackson.databind.JsonNode;

/** What a tenant tells the agent about one of its users (seed 002's {@code user_context}): plan, usage, preferences. */
public record UserContext(String plan, JsonNode usage, JsonNode preferences) {}
