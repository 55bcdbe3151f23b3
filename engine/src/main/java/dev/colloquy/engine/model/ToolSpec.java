package dev.colloquy.engine.model;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A tool a model may call (OpenAI's function tool): its name, what it does, and its arguments as a
 * JSON Schema object.
 */
public record ToolSpec(String name, String description, JsonNode parameters) {}
