package dev.colloquy.engine.model;

/** A streaming chat model. {@code stream} returns at once; tokens arrive on the listener. */
public interface ChatModel {

  /** The provider name shown in run metadata, e.g. {@code openai-compatible} or {@code offline}. */
  String provider();

  ChatStream stream(ChatRequest request, ChatListener listener);
}
