package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/**
 * One model run of a turn: its id, the provider that serves it and the model it asks there. Runs
 * journaled before providers had names have a null provider; their model is a plain name.
 */
public record RunSpec(String runId, String provider, String model) implements CborSerializable {}
