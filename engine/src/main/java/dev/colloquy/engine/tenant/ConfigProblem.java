package dev.colloquy.engine.tenant;

import dev.colloquy.engine.CborSerializable;

/** One invalid value of a tenant configuration: the field (its API name) and what is wrong with it. */
public record ConfigProblem(String field, String problem) implements CborSerializable {}
