package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/**
 * What a long session's prompt says of the conversation its history no longer holds: a summary of the
 * first {@code coveredMessages} messages of the session's conversation (its opening context, then each
 * completed turn's message and answer), made by the model ({@code source} {@code model}) or, without
 * one, extracted from them ({@code offline}). Each summary rolls the previous one forward.
 */
public record RollingSummary(String text, int coveredMessages, String source) implements CborSerializable {

  public static final String BY_MODEL = "model";
  public static final String OFFLINE = "offline";
}
