package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/** Something the knowledge base lacks for this turn, and what would fill it. */
public record Gap(String attribute, String suggestion) implements CborSerializable {}
