package dev.colloquy.engine.model;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The JSON Schema a structured answer must follow (OpenAI's {@code response_format} of type
 * {@code json_schema}, strict), with the name the provider is told.
 */
public record ResponseSchema(String name, ObjectNode schema) {}
