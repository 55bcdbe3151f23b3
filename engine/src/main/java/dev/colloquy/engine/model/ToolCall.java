package dev.colloquy.engine.model;

/**
 * A tool call a model asked for: its id (which the result names), the tool, and the arguments as the
 * model wrote them, a JSON text that may be malformed.
 */
public record ToolCall(String id, String name, String arguments) {}
