package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/** One model run of a turn: its id and the model name it asks. */
public record RunSpec(String runId, String model) implements CborSerializable {}
